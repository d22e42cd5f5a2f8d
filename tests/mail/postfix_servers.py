"""Real Postfix between the judge and its players, for what happens to the judge's mail after its
submission server took it: relayed on to a large receiver that checks SPF, DKIM and DMARC
(`postfix_relay`), or refused at delivery and bounced back to the judge's own mailbox as a real
delivery status notification (`bouncing_mail`). Each is a Postfix of the test's own
(oauth2_servers.PrivatePostfix), started in a fraction of a second; the judge's domain is
judge.example, the players' players.example.

Fixtures (exposed to tests/mail by its conftest.py): `postfix_relay`, `bouncing_mail`.

This module is imported by the last lines of tests/mail/conftest.py (see oauth2_servers.py)."""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gm.settings import MailServer
from loopback import free_port, wait_listening
from mail import mail_conftest
from mail.oauth2_servers import PRIVATE_MAIN_CF, PrivatePostfix
from mail.receiver import Receiver, receiving

_mail = mail_conftest.loaded("postfix_servers")
PASSWORD: str = _mail.PASSWORD
JUDGE_DOMAIN = "judge.example"
PLAYERS_DOMAIN = "players.example"
JUDGE = f"gm@{JUDGE_DOMAIN}"

# The usual queue timings are minutes to days: here a mail deferred is tried again within a second
# or two, and bounced after a minute at most (a permanent refusal is bounced at once either way).
QUICK_QUEUE = """\
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
maximal_queue_lifetime = 60s
bounce_queue_lifetime = 60s
message_size_limit = 0
"""


# --- relaying to a large receiver ----------------------------------------------------------------

# The judge's outgoing server: mail from loopback (mynetworks, no AUTH) to the players' domain goes
# to the receiver's port, by the transport map; mail to anywhere else bounces at once (the error
# transport), so that nothing leaves the machine. It says EHLO mx.judge.example, from 127.0.0.1.
RELAY_MAIN_CF = PRIVATE_MAIN_CF + """\
myhostname = mx.{judge_domain}
mydestination =
alias_maps =
alias_database =
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
transport_maps = inline:{{ {players_domain}=smtp:[127.0.0.1]:{receiver_port} }}
default_transport = error:5.7.1 this Postfix relays to {players_domain} only
smtp_tls_security_level = none
""" + QUICK_QUEUE


@dataclass
class RelayingPostfix(PrivatePostfix):
    """Takes the judge's mail on `port` from loopback (no AUTH) and relays mail for PLAYERS_DOMAIN
    to the SMTP server on `receiver_port`."""

    receiver_port: int

    def main_cf(self) -> str:
        return RELAY_MAIN_CF.format(base=self.base, judge_domain=JUDGE_DOMAIN, players_domain=PLAYERS_DOMAIN,
                                    receiver_port=self.receiver_port)


@dataclass
class Relay:
    """The judge's outgoing Postfix and the large receiver behind it."""

    postfix: RelayingPostfix
    receiver: Receiver
    judge_domain: str = JUDGE_DOMAIN
    players_domain: str = PLAYERS_DOMAIN

    @property
    def server(self) -> MailServer:
        """Where the judge submits: no TLS, no login (loopback is Postfix's mynetworks)."""
        return MailServer("127.0.0.1", self.postfix.port, "none", None, None)


@pytest.fixture
def postfix_relay(postfix_master: str) -> Iterator[Relay]:
    """A Postfix taking the judge's mail (on `.server`) and relaying what is for players.example to
    `.receiver` (tests/mail/receiver.py), which checks SPF, DKIM and DMARC of each mail against the
    test's DNS (ask for `dns_zone` too, and publish there)."""
    receiver = Receiver()
    with receiving(receiver) as port:
        postfix = RelayingPostfix(postfix_master, port)
        try:
            postfix.start()
            yield Relay(postfix, receiver)
        finally:
            postfix.stop()
            shutil.rmtree(postfix.base, ignore_errors=True)


# --- refusing at delivery, bouncing back to the judge ------------------------------------------

FULL = "full"  # the player whose mailbox is full

# tests/mail/conftest.py's Dovecot takes any user name in its static userdb; here the passwd file
# is the userdb as well, so LMTP refuses a user it does not list (550 5.1.1).
STATIC_USERDB = """\
userdb {{
  driver = static
  args = home={d}/mail/%n
}}
"""
BOUNCING_DOVECOT_CONF = """\
userdb {{
  driver = passwd-file
  args = username_format=%n {d}/passwd
  default_fields = home={d}/mail/%n
}}
# gm+anything@judge.example is gm's, into its INBOX: the judge's per-mail return paths.
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
# Quotas by message count (the count backend needs vsizes); only FULL has a rule (passwd file).
# A mailbox at its quota is refused at RCPT, as an unknown user is (lmtp_rcpt_check_quota; without
# it, after DATA), and for good: 552 5.2.2, not 452 4.2.2 (quota_full_tempfail = no). Postfix
# bounces either at once (dsn=5.2.2, status=bounced).
mail_plugins = $mail_plugins quota
plugin {{
  quota = count:User quota
  quota_vsizes = yes
}}
quota_full_tempfail = no
lmtp_rcpt_check_quota = yes
# Postfix's SMTP AUTH asks Dovecot's auth service (the same passwords as IMAP).
service auth {{
  inet_listener auth-inet {{
    address = 127.0.0.1
    port = {auth_port}
  }}
}}
"""


@dataclass
class BouncingDovecot(_mail.Dovecot):  # type: ignore[name-defined,misc]
    """tests/mail/conftest.py's Dovecot whose LMTP refuses users it does not know (550 5.1.1) and
    FULL's mail (552 5.2.2: a quota of one message, which it has from the start); gm+tag is gm's;
    and its auth service on `auth_port`, for Postfix's SASL."""

    auth_port: int = field(default_factory=free_port)

    def __post_init__(self) -> None:
        super().__post_init__()
        with (self.base / "passwd").open("a") as passwd:
            passwd.write(f"{FULL}:{{PLAIN}}{PASSWORD}:::::: userdb_quota_rule=*:messages=1\n")
        home = self.base / "mail" / FULL
        (home / "sdbox" / "mailboxes" / "INBOX" / "dbox-Mails").mkdir(parents=True)  # as the others' (conftest.py)
        owner = (self.base / "mail" / "gm").stat()
        for path in [home, *home.rglob("*")]:
            os.chown(path, owner.st_uid, owner.st_gid)
        conf = self.base / "dovecot.conf"
        static = STATIC_USERDB.format(d=self.base)
        text = conf.read_text()
        assert static in text, "tests/mail/conftest.py's Dovecot has no static userdb any more"
        conf.write_text(text.replace(static, "") + BOUNCING_DOVECOT_CONF.format(d=self.base, auth_port=self.auth_port))

    def start(self) -> None:
        super().start()
        wait_listening(self.auth_port, "Dovecot's auth service")
        # FULL's one message: its mailbox is full from now on.
        self.deliver(b"From: filler@players.example\r\nSubject: the one mail\r\n\r\nfull now\r\n",
                     [f"{FULL}@{PLAYERS_DOMAIN}"], sender=f"filler@{PLAYERS_DOMAIN}")


# The judge's submission server, which is also the players' domain's and the judge's own MX:
# mail from a client that signed in (SMTP AUTH by Dovecot's SASL) for either domain goes to
# Dovecot's LMTP. Every recipient is taken at RCPT (no list of users here), so a refusal comes at
# delivery, and Postfix bounces the mail to its envelope sender: its DSN goes to gm's mailbox by
# the same LMTP, gm+tag included.
BOUNCING_MAIN_CF = PRIVATE_MAIN_CF + """\
myhostname = mx.{judge_domain}
mydestination =
alias_maps =
alias_database =
mynetworks = 127.0.0.0/8
relay_domains = {judge_domain} {players_domain}
relay_transport = lmtp:inet:127.0.0.1:{lmtp_port}
relay_recipient_maps =
smtpd_reject_unlisted_recipient = no
recipient_delimiter = +
smtpd_tls_security_level = none
smtpd_tls_auth_only = no
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:127.0.0.1:{auth_port}
smtpd_sasl_security_options = noanonymous
smtpd_relay_restrictions = permit_sasl_authenticated, reject
""" + QUICK_QUEUE


@dataclass
class BouncingPostfix(PrivatePostfix):
    """Takes mail on `port` from clients that signed in, for JUDGE_DOMAIN and PLAYERS_DOMAIN,
    delivered to the LMTP server on `lmtp_port`; bounces what that refuses."""

    lmtp_port: int
    auth_port: int

    def main_cf(self) -> str:
        return BOUNCING_MAIN_CF.format(base=self.base, judge_domain=JUDGE_DOMAIN, players_domain=PLAYERS_DOMAIN,
                                       lmtp_port=self.lmtp_port, auth_port=self.auth_port)


@dataclass
class BouncingMail:
    """The judge's mail server and the players': Postfix for submission and delivery, Dovecot for
    the mailboxes. Players are <user>@players.example: alice, bob, carol, p1 to p10 receive, FULL's
    mailbox is full, anyone else does not exist (but gm, whose mailbox takes gm@ of either domain)."""

    postfix: BouncingPostfix
    dovecot: BouncingDovecot
    judge_domain: str = JUDGE_DOMAIN
    players_domain: str = PLAYERS_DOMAIN
    judge_address: str = JUDGE

    @property
    def submission(self) -> MailServer:
        """Where the judge submits: no TLS, AUTH as gm@judge.example."""
        return MailServer("127.0.0.1", self.postfix.port, "none", self.judge_address, PASSWORD)

    @property
    def serve_settings(self) -> dict[str, str]:
        """The GM_* settings that make `gm serve` this judge: with
        start_gm_serve(url, .dovecot, .postfix.port, data, **.serve_settings) it reads gm's mailbox
        here and submits to this Postfix, signed in."""
        return {"GM_ADDRESS": self.judge_address, "GM_SMTP_USER": self.judge_address, "GM_SMTP_PASSWORD": PASSWORD}

    def judge_account(self) -> MailServer:
        """The judge's mailbox over IMAP (no TLS), where the bounces arrive."""
        return self.dovecot.account("gm")  # type: ignore[no-any-return]

    def account(self, user: str) -> MailServer:
        """A player's mailbox over IMAP."""
        return self.dovecot.account(user)  # type: ignore[no-any-return]

    def address(self, user: str) -> str:
        return f"{user}@{self.players_domain}"

    def log(self) -> str:
        """Postfix's log: each delivery's status (sent, bounced, deferred) and the server's words."""
        return self.postfix.log()

    def stored(self, user: str) -> list[Path]:
        """The mails in `user`'s INBOX, as files (sdbox: one file 'u.<uid>' a mail)."""
        folder = self.dovecot.base / "mail" / user / "sdbox" / "mailboxes" / "INBOX" / "dbox-Mails"
        return sorted(p for p in folder.iterdir() if p.name.startswith("u."))


@pytest.fixture
def bouncing_mail(postfix_master: str, dovecot_binary: str) -> Iterator[BouncingMail]:
    """Postfix and Dovecot where mail the judge submits (`.submission`) to a player that does not
    exist, or to full@players.example, is refused at delivery and bounced, the report delivered to
    the judge's mailbox (`.judge_account()`, for read_mailbox), gm+tag return paths included."""
    dovecot = BouncingDovecot(dovecot_binary)
    postfix = BouncingPostfix(postfix_master, dovecot.lmtp_port, dovecot.auth_port)
    try:
        dovecot.start()
        postfix.start()
        yield BouncingMail(postfix, dovecot)
    finally:
        postfix.stop()
        dovecot.stop()
        shutil.rmtree(postfix.base, ignore_errors=True)
        shutil.rmtree(dovecot.base, ignore_errors=True)
