"""Real servers that check real OAuth2 tokens, for the tests of the judge's OAuth2 sign-in
(XOAUTH2, OAUTHBEARER): the stand-in authorization server (tests/oauth2server.py), a Dovecot whose
own `oauth2` passdb checks each token at that server's introspection endpoint, and a private
Postfix taking submissions with SMTP AUTH through that Dovecot's SASL (so the same check) and
delivering to the Dovecot's mailboxes over LMTP. No mocks: a token works only if the
authorization server says, at that moment, that it is active, of the user and of the scope.

Fixtures (exposed to tests/mail by its conftest.py): `oauth2_server`, `oauth2_dovecot`,
`oauth2_submission`; each test gets servers of its own (all three start in about a second).

This module is imported by the last line of tests/mail/conftest.py, under pytest and when
bench/suite.py loads that file by path: it takes the Dovecot class from that module, which is
then being executed (the two conftest.py files share one module name, so it cannot be imported
by name)."""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gm.settings import MailServer
from loopback import free_port, listening, wait_listening
from mail import mail_conftest
from oauth2server import AuthorizationServer


_mail = mail_conftest.loaded("oauth2_servers")
DOMAIN: str = _mail.DOMAIN
PASSWORD: str = _mail.PASSWORD


# --- the authorization server --------------------------------------------------------------------


@pytest.fixture
def oauth2_server() -> Iterator[AuthorizationServer]:
    """A started AuthorizationServer (client gm-test-client, no secret, scope "mail", approving as
    gm); change its settings in the test. Stopped after the test."""
    with AuthorizationServer() as server:
        yield server


# --- Dovecot with the oauth2 passdb --------------------------------------------------------------

# Dovecot 2.3's oauth2 passdb (https://doc.dovecot.org/2.3/configuration_manual/authentication/oauth2/):
# each XOAUTH2 or OAUTHBEARER token (and any password that reaches this passdb) is POSTed to the
# introspection URL as a form, `token=<token>&client_id=&client_secret=` (the last two empty: not
# configured); the JSON answer must say active: true, name the login's user in `username`, and
# list the required scope in its `scope`.
OAUTH2_CONF = """\
introspection_mode = post
introspection_url = {introspection_url}
username_attribute = username
active_attribute = active
active_value = true
scope = {scope}
timeout_msecs = 5000
"""
# Appended to tests/mail/conftest.py's DOVECOT_CONF: the passwd-file passdb there (the players,
# with PASSWORD) is tried first, then this one.
DOVECOT_OAUTH2_CONF = """\
auth_mechanisms = plain login xoauth2 oauthbearer
auth_verbose = yes
passdb {{
  driver = oauth2
  args = {d}/dovecot-oauth2.conf.ext
}}
service auth {{
  inet_listener auth-inet {{
    address = 127.0.0.1
    port = {auth_port}
  }}
}}
# No auth penalty (2, 4, 8, 15 s before answering each further login from an IP that failed one):
# the tests refuse tokens one after another. Dovecot's documented switch: anvil's socket shut.
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"""


@dataclass
class OAuth2Dovecot(_mail.Dovecot):  # type: ignore[name-defined,misc]
    """tests/mail/conftest.py's Dovecot (the same mailboxes, IMAP and LMTP ports, deliver(),
    address(), account()) whose IMAP logins also take XOAUTH2 and OAUTHBEARER, each token checked
    by Dovecot's oauth2 passdb at `introspection_url`; and its auth service on `auth_port`, for
    Postfix's SASL. The players keep their password; the GM signs in with a token only (unless
    `gm_password`), so a test passes on OAuth2, not on a password fallback.

    What Dovecot 2.3.19 checks in the introspection answer (each tried): `active` is true (a
    revoked or expired token is refused), `username` is the login's user (another user's token is
    refused), and `scope` lists `scope` among its words (a token of another scope is refused:
    "Token is not valid for scope 'mail'"; one without `scope` too, unless its `aud` has it). It
    ignores `exp` (active with an `exp` in the past is let in) and `client_id`: expiry is the
    authorization server's to report as inactive. A token is checked at each login (no auth cache).

    What it cannot check: the mechanism. Dovecot 2.3 has no per-mechanism passdb, so a token sent
    as a PLAIN or LOGIN password reaches the oauth2 passdb too and is let in: `logins()` tells
    which mechanism each login used."""

    introspection_url: str = ""
    scope: str = "mail"
    gm_password: bool = False
    auth_port: int = field(default_factory=free_port)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.gm_password:  # gm stays a user (LMTP delivers to it), with a password nobody knows
            passwd = self.base / "passwd"
            unknown = f"gm:{{PLAIN}}{secrets.token_urlsafe(24)}::::::"
            passwd.write_text("".join((unknown if line.startswith("gm:") else line) + "\n"
                                      for line in passwd.read_text().splitlines()))
        (self.base / "dovecot-oauth2.conf.ext").write_text(
            OAUTH2_CONF.format(introspection_url=self.introspection_url, scope=self.scope))
        with (self.base / "dovecot.conf").open("a") as conf:
            conf.write(DOVECOT_OAUTH2_CONF.format(d=self.base, auth_port=self.auth_port))

    def start(self) -> None:
        super().start()
        wait_listening(self.auth_port, "Dovecot's auth service", log=self.log)

    def account(self, user: str = "gm") -> MailServer:
        """The IMAP account of one mailbox; the GM's without a password unless `gm_password`."""
        if user == "gm" and not self.gm_password:
            return MailServer("127.0.0.1", self.imap_port, "none", user, None)
        return super().account(user)  # type: ignore[no-any-return]

    def log(self) -> str:
        """Dovecot's log so far (auth_verbose: why each login was refused)."""
        path = self.base / "log"
        return path.read_text(errors="replace") if path.exists() else ""

    def logins(self) -> list[tuple[str, str]]:
        """(user, mechanism) of each IMAP login so far, e.g. ('gm', 'XOAUTH2'), from the log."""
        found = []
        for line in self.log().splitlines():
            if "imap-login: Info: Login: user=<" in line:
                user = line.split("user=<", 1)[1].split(">", 1)[0]
                found.append((user, line.split("method=", 1)[1].split(",", 1)[0]))
        return found

    def stored(self, user: str) -> list[Path]:
        """The mails in `user`'s INBOX, as files (sdbox: one file 'u.<uid>' a mail)."""
        folder = self.base / "mail" / user / "sdbox" / "mailboxes" / "INBOX" / "dbox-Mails"
        return sorted(p for p in folder.iterdir() if p.name.startswith("u."))


@pytest.fixture
def oauth2_dovecot(dovecot_binary: str, oauth2_server: AuthorizationServer) -> Iterator[OAuth2Dovecot]:
    """A Dovecot of the test's own checking the GM's IMAP tokens at `oauth2_server` (which must
    grant the scope `oauth2_server.scope`, as it was when the fixture started)."""
    server = OAuth2Dovecot(dovecot_binary, introspection_url=oauth2_server.introspect_url, scope=oauth2_server.scope)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.base, ignore_errors=True)


# --- Postfix: submission with SMTP AUTH by Dovecot's SASL ----------------------------------------

POSTFIX_MASTER = "/usr/lib/postfix/sbin/master"
# A private Postfix's services (bench/delivery.py's too), with postlogd writing the log to a file (no syslog here).
MASTER_CF = """\
127.0.0.1:{port} inet n - n - - smtpd
pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
smtp unix - - n - - smtp
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
lmtp unix - - n - - lmtp
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
"""
# Where a private Postfix lives, its log, and loopback only: the first lines of every one's main.cf.
PRIVATE_MAIN_CF = """\
compatibility_level = 3.6
queue_directory = {base}/queue
data_directory = {base}/data
maillog_file = {base}/log
maillog_file_prefixes = {base}
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
"""
# Mail for DOMAIN from an authenticated client only (AUTH by Dovecot's SASL: the token checked by
# the oauth2 passdb), passed to Dovecot's LMTP at once. No TLS: AUTH in the clear on loopback.
MAIN_CF = PRIVATE_MAIN_CF + """\
myhostname = mx.{domain}
mydestination =
alias_maps =
alias_database =
mynetworks = 127.0.0.0/8
relay_domains = {domain}
relay_transport = lmtp:inet:127.0.0.1:{lmtp_port}
smtpd_tls_security_level = none
smtpd_tls_auth_only = no
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:127.0.0.1:{auth_port}
smtpd_sasl_security_options = noanonymous
smtpd_relay_restrictions = permit_sasl_authenticated, reject
smtpd_recipient_restrictions = permit_sasl_authenticated, reject
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
message_size_limit = 0
"""
QUEUES = ("incoming", "active", "deferred", "maildrop", "hold", "corrupt", "bounce", "defer", "trace", "flush",
          "saved", "private", "public")


@pytest.fixture(scope="session")
def postfix_master(apt_installer: Callable[[list[str], Callable[[], bool]], str]) -> str:
    """Postfix's master, installed on demand as Dovecot is (tests/mail/conftest.py: dovecot_binary)."""
    if os.geteuid() != 0:
        pytest.skip("a private Postfix needs root (its daemons switch to the postfix user)")
    if not os.path.exists(POSTFIX_MASTER):
        why = apt_installer(["postfix"], lambda: os.path.exists(POSTFIX_MASTER))
        if not os.path.exists(POSTFIX_MASTER):
            message = f"Postfix is not installed and could not be installed: {why or 'no master after installing'}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    return POSTFIX_MASTER


@dataclass
class PrivatePostfix:
    """A Postfix of its own: its master in the foreground (`master -d`) in a session of its own, its
    configuration and queue in a short folder under /tmp, its smtpd on `port` (loopback). What it
    does with the mail is its main.cf's (main_cf(), by each subclass). Starts and stops in a tenth
    of a second or so. Here and in tests/mail/postfix_servers.py."""

    master: str
    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gmpfx", dir="/tmp")), kw_only=True)
    port: int = field(default_factory=free_port, kw_only=True)
    process: subprocess.Popen[bytes] | None = field(default=None, kw_only=True)

    def main_cf(self) -> str:
        """Its main.cf: PRIVATE_MAIN_CF's lines, then its own."""
        raise NotImplementedError

    def __post_init__(self) -> None:
        base = self.base
        base.chmod(0o755)  # Postfix's daemons run as the postfix user
        (base / "conf").mkdir()
        (base / "conf" / "master.cf").write_text(MASTER_CF.format(port=self.port))
        (base / "conf" / "main.cf").write_text(self.main_cf())
        # Postfix reads a configuration file changed within the last second again and again, every
        # 0.3 s, until it is older (dict_load_file: "the file is hot"): 2 s at each start. Made old.
        old = time.time() - 60
        for name in ("main.cf", "master.cf"):
            os.utime(base / "conf" / name, (old, old))
        for name in (*QUEUES, "pid"):
            (base / "queue" / name).mkdir(parents=True)
        (base / "data").mkdir()
        for path in [base / "queue", base / "data", *(base / "queue").iterdir()]:
            shutil.chown(path, "postfix", "postfix")
        shutil.chown(base / "queue" / "pid", "root", "root")
        for name, mode, group in (("private", 0o700, "postfix"), ("public", 0o710, "postdrop"),
                                  ("maildrop", 0o730, "postdrop")):
            shutil.chown(base / "queue" / name, "postfix", group)
            (base / "queue" / name).chmod(mode)

    def start(self) -> None:
        self.process = subprocess.Popen([self.master, "-c", str(self.base / "conf"), "-d"], start_new_session=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while not listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                errors = self.process.stderr.read().decode(errors="replace") if self.process.poll() is not None else ""
                self.stop()
                raise RuntimeError(f"Postfix did not start:\n{errors}{self.log()}")
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM to the master and its daemons; whatever is left after 5 s, killed."""
        if self.process is None:
            return
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        if self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None

    def log(self) -> str:
        """Postfix's log so far (maillog_file): each AUTH refused, each mail passed on or bounced."""
        path = self.base / "log"
        return path.read_text(errors="replace") if path.exists() else ""


@dataclass
class Submission(PrivatePostfix):
    """A private Postfix taking mail on `port` from clients that signed in (SMTP AUTH through
    Dovecot's auth service on `auth_port`), for DOMAIN, delivered to Dovecot's LMTP on `lmtp_port`."""

    lmtp_port: int
    auth_port: int

    def main_cf(self) -> str:
        return MAIN_CF.format(base=self.base, domain=DOMAIN, lmtp_port=self.lmtp_port, auth_port=self.auth_port)

    def logins(self) -> list[tuple[str, str]]:
        """(user, mechanism) of each SMTP AUTH that brought a mail, e.g. ('gm', 'XOAUTH2'), from the log."""
        found = []
        for line in self.log().splitlines():
            if "sasl_method=" in line and "sasl_username=" in line and "authentication failed" not in line:
                method = line.split("sasl_method=", 1)[1].split(",", 1)[0]
                found.append((line.split("sasl_username=", 1)[1].split(",", 1)[0].strip(), method))
        return found

    def server(self, user: str = "gm") -> MailServer:
        """Where the judge submits mail: no TLS, `user` at DOMAIN, no password (a token instead)."""
        return MailServer("127.0.0.1", self.port, "none", f"{user}@{DOMAIN}", None)


@pytest.fixture
def oauth2_submission(postfix_master: str, oauth2_dovecot: OAuth2Dovecot) -> Iterator[Submission]:
    """A Postfix taking submissions (no TLS, AUTH required: XOAUTH2 and OAUTHBEARER with a token
    `oauth2_dovecot` accepts, or a player's PLAIN/LOGIN password) on `.port`, delivering mail for
    example.org into `oauth2_dovecot`'s mailboxes."""
    submission = Submission(postfix_master, oauth2_dovecot.lmtp_port, oauth2_dovecot.auth_port)
    try:
        submission.start()
        yield submission
    finally:
        submission.stop()
        shutil.rmtree(submission.base, ignore_errors=True)
