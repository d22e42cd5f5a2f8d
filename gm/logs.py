"""How `gm serve` logs (and its outbox sender process): at INFO, what it did at start, one line per
mail in and out, each adjudication, and what went wrong; the libraries' chatter (alembic's
migration context, aiosmtpd's and aioimaplib's commands) only from WARNING. `gm --debug serve`
logs everything at DEBUG."""
from __future__ import annotations

import logging

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CHATTY = ("alembic", "mail.log", "aioimaplib")  # each logs every step or command at INFO


def configure(level: int = logging.INFO) -> None:
    logging.basicConfig(level=level, format=FORMAT)
    for name in CHATTY:
        logging.getLogger(name).setLevel(max(level, logging.WARNING) if level > logging.DEBUG else level)
