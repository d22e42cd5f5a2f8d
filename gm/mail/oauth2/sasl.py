"""The SASL mechanisms that carry an OAuth2 access token to IMAP and SMTP: OAUTHBEARER (RFC 7628,
the standard), where a server offers it, else XOAUTH2 (Google's and Microsoft's). A server that
refuses the token first sends its reason as a challenge, and says no only once it is answered:
ERROR_ANSWER is what each mechanism answers it with."""
from __future__ import annotations

import base64

ERROR_ANSWER = {"OAUTHBEARER": b"AQ==", "XOAUTH2": b""}  # base64 of ^A (RFC 7628 §3.2.3); empty


def mechanism(offered: set[str]) -> str:
    """OAUTHBEARER if the server offers it (names as in CAPABILITY/EHLO, any case), else XOAUTH2."""
    return "OAUTHBEARER" if "OAUTHBEARER" in {m.upper() for m in offered} else "XOAUTH2"


def initial_response(mechanism: str, user: str, token: str, host: str, port: int) -> str:
    """The mechanism's first message, base64."""
    if mechanism == "OAUTHBEARER":
        authzid = user.replace("=", "=3D").replace(",", "=2C")  # RFC 5801's gs2 escaping
        text = f"n,a={authzid},\x01host={host}\x01port={port}\x01auth=Bearer {token}\x01\x01"
    else:
        text = f"user={user}\x01auth=Bearer {token}\x01\x01"
    return base64.b64encode(text.encode()).decode("ascii")
