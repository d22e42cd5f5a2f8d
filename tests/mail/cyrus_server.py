"""A real Cyrus IMAP server (Debian's Cyrus 3.6: the IMAP server of many hosting companies and of
Fastmail) for the mail tests, beside the Dovecot of tests/mail/conftest.py and with the same
interface: IMAP and LMTP on free loopback ports, a mailbox (an INBOX) for the GM and every player,
all with the password PASSWORD, in a short folder of its own under /tmp.

Cyrus's own `master` runs in the foreground, in a session of its own, from an imapd.conf and a
cyrus.conf written here (CYRUS_IMAPD_CONF, CYRUS_CONF): configdirectory, mail partition and SASL
database (sasldb, filled with saslpasswd2) all in that folder; plain-text LOGIN without TLS;
virtual domains off, so that LMTP takes gm@example.org for the mailbox user/gm; `idled` running,
as on real servers, so that IDLE tells of new mail at once. The INBOXes are created by the admin
(CYRUS_ADMIN) over IMAP as the server starts, before any test looks. Cyrus logs to syslog only
(there is no syslog here): what its processes write to stderr is in `log()`, and every IMAP
session of the GM's mailbox, byte for byte, in `protocol_log()` (Cyrus's "telemetry" log).

Installing: the packages cyrus-common (master, lmtpd, the cyr_* tools) and sasl2-bin
(saslpasswd2) through apt, as scripts/setup does. Not the package cyrus-imapd: it Conflicts with
dovecot-imapd (both provide imap-server), and installing one removes the other. Its two programs
(imapd, idled) are taken from its .deb instead (`apt-get download`, `dpkg-deb -x`), of the same
version as cyrus-common, into a cache folder (CYRUS_CACHE).

Fixtures (exposed to tests/mail by its conftest.py): `cyrus_binary` (the programs, per session),
`cyrus` (a started Cyrus, per test; it starts in about a second), `cyrus_smtp_front` (the SMTP
front of tests/mail/conftest.py, delivering over LMTP into that Cyrus).

This module is imported by the last line of tests/mail/conftest.py, under pytest and when
bench/suite.py loads that file by path: it takes the users, the password and the SMTP front from
that module, which is then being executed (the two conftest.py files share one module name, so it
cannot be imported by name)."""
from __future__ import annotations

import fcntl
import imaplib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loopback import free_port, listening
from mail import mail_conftest


_mail = mail_conftest.loaded("cyrus_server")
DOMAIN: str = _mail.DOMAIN
PASSWORD: str = _mail.PASSWORD
USERS: tuple[str, ...] = ("gm", *_mail.PLAYERS, *_mail.GAME_PLAYERS)  # as the Dovecot's
CYRUS_ADMIN = "cyradmin"  # an IMAP admin (imapd.conf `admins`), with PASSWORD too: creates the mailboxes

CYRUS_LIBEXEC = Path("/usr/lib/cyrus/bin")  # Debian's: master, lmtpd (cyrus-common); imapd, idled (cyrus-imapd)
# Never cyrus-imapd: it would remove dovecot-imapd (see above). cyrus-common needs a mail transport
# agent: Postfix, which the tests have anyway (tests/mail/oauth2_servers.py) and scripts/setup
# installs in the same go, rather than apt's default one, Exim.
CYRUS_APT = ["cyrus-common", "sasl2-bin", "postfix"]
_SBIN_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


def _cache_root() -> Path:
    """Where the programs of the cyrus-imapd package are unpacked: a folder the cyrus user can
    read when the tests run as root (master runs imapd as that user), else the user's cache."""
    if os.geteuid() == 0:
        return Path("/var/cache/gm-tests")
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gm-tests"


CYRUS_CACHE = _cache_root()


# --- the programs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CyrusBinaries:
    master: Path
    lmtpd: Path
    imapd: Path
    idled: Path
    saslpasswd2: str
    version: str  # Debian's version of cyrus-common (and of the imapd taken), e.g. 3.6.1-4+deb12u5


def _common_version() -> str | None:
    """The version of the installed cyrus-common, None if it is not installed."""
    try:
        done = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Status} ${Version}", "cyrus-common"],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    status, _, version = done.stdout.partition(" ")
    return version if done.returncode == 0 and status == "installed" and version else None


def _common_installed() -> bool:
    return (_common_version() is not None and (CYRUS_LIBEXEC / "master").exists()
            and (CYRUS_LIBEXEC / "lmtpd").exists() and shutil.which("saslpasswd2", path=_SBIN_PATH) is not None)


def _imapd_folder(version: str) -> Path:
    """The folder with imapd and idled: Debian's, where the cyrus-imapd package is installed (a
    machine without Dovecot), else where they are unpacked from its .deb."""
    if (CYRUS_LIBEXEC / "imapd").exists() and (CYRUS_LIBEXEC / "idled").exists():
        return CYRUS_LIBEXEC
    return CYRUS_CACHE / f"cyrus-imapd_{version}" / "usr" / "lib" / "cyrus" / "bin"


def _find_cyrus() -> CyrusBinaries | None:
    version = _common_version()
    saslpasswd2 = shutil.which("saslpasswd2", path=_SBIN_PATH)
    if version is None or saslpasswd2 is None:
        return None
    imapd = _imapd_folder(version)
    found = CyrusBinaries(CYRUS_LIBEXEC / "master", CYRUS_LIBEXEC / "lmtpd", imapd / "imapd", imapd / "idled",
                          saslpasswd2, version)
    if not all(p.exists() for p in (found.master, found.lmtpd, found.imapd, found.idled)):
        return None
    return found


def _run(argv: list[str], cwd: Path) -> str:
    """Why `argv` failed ('' if it did not)."""
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{' '.join(argv)}: {e}"
    return f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}" if done.returncode != 0 else ""


def _unpack_imapd(version: str) -> str:
    """imapd and idled from the cyrus-imapd package of `version`, unpacked (not installed) into
    CYRUS_CACHE; returns why it failed ('' on success)."""
    target = CYRUS_CACHE / f"cyrus-imapd_{version}"
    try:
        CYRUS_CACHE.mkdir(parents=True, exist_ok=True)
        CYRUS_CACHE.chmod(0o755)
    except OSError as e:
        return f"{CYRUS_CACHE}: {e}"
    # pytest-xdist workers all get here at once: one downloads, the others wait and find it.
    with open("/tmp/gm-tests-cyrus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / "usr/lib/cyrus/bin/imapd").exists():
            return ""
        work = Path(tempfile.mkdtemp(prefix="unpack-", dir=CYRUS_CACHE))
        try:
            work.chmod(0o755)  # apt-get download as root hands the file to its _apt user
            why = _run(["apt-get", "download", "-qq", f"cyrus-imapd={version}"], work)
            if why:
                return why
            debs = list(work.glob("cyrus-imapd_*.deb"))
            if len(debs) != 1:
                return f"apt-get download cyrus-imapd={version}: no .deb"
            why = _run(["dpkg-deb", "-x", str(debs[0]), str(work / "root")], work)
            if why:
                return why
            if not (work / "root/usr/lib/cyrus/bin/imapd").exists():
                return f"no usr/lib/cyrus/bin/imapd in cyrus-imapd {version}"
            (work / "root").chmod(0o755)
            os.rename(work / "root", target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return ""


@pytest.fixture(scope="session")
def cyrus_binary(apt_installer: Callable[[list[str], Callable[[], bool]], str]) -> CyrusBinaries:
    """Cyrus's programs, installed on demand: cyrus-common and sasl2-bin through apt, imapd and
    idled unpacked from the cyrus-imapd package of the same version."""
    found = _find_cyrus()
    if found is None:
        why = "" if _common_installed() else apt_installer(CYRUS_APT, _common_installed)
        version = _common_version()
        if not why and version is not None:
            why = _unpack_imapd(version)
            if why:  # that version gone from the archive (a security update since)? Upgrade, try again.
                why = apt_installer(CYRUS_APT, lambda: False)
                version = _common_version()
                if not why and version is not None:
                    why = _unpack_imapd(version)
        found = _find_cyrus()
        if found is None:
            message = (
                "Cyrus IMAP is not installed and could not be installed: "
                f"{why or 'no cyrus master, lmtpd, imapd or saslpasswd2 after installing'}. Run scripts/setup test."
            )
            if os.environ.get("CI"):
                pytest.fail(message)  # scripts/setup installs it: in CI its absence is a bug
            pytest.skip(message)
    return found


# --- the server ----------------------------------------------------------------------------------

# imapd.conf(5). Cyrus's defaults otherwise (3.6): the "/" hierarchy separator and the alternate
# namespace (the admin's user/gm is gm's INBOX, gm's folders are beside it), duplicate suppression
# on (lmtpd delivers a Message-ID only once to a mailbox, see Cyrus.duplicate_suppression),
# delayed expunge, IDLE polling every 60 s where idled cannot be reached.
CYRUS_IMAPD_CONF = """\
configdirectory: {d}/conf
defaultpartition: default
partition-default: {d}/spool
servername: {servername}
admins: {admin}
allowplaintext: yes
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: {d}/sasldb2
sasl_mech_list: PLAIN LOGIN
virtdomains: off
failedloginpause: 0
syslog_prefix: gmcy-{imap_port}
duplicatesuppression: {duplicates}
{user}
"""
# cyrus.conf(5). master passes its -C to none of them: each is told the imapd.conf itself.
# lmtpd -a: LMTP over TCP without AUTH (as from a trusted MTA).
CYRUS_CONF = """\
START {{
}}
SERVICES {{
  imap cmd="{imapd} -C {d}/imapd.conf" listen="127.0.0.1:{imap_port}" prefork=0
  lmtp cmd="{lmtpd} -C {d}/imapd.conf -a" listen="127.0.0.1:{lmtp_port}" prefork=0
}}
EVENTS {{
}}
DAEMON {{
  idled cmd="{idled} -C {d}/imapd.conf"
}}
"""


@dataclass
class Cyrus(_mail.Mailboxes):  # type: ignore[name-defined,misc]
    """A Cyrus of one test's own, in a short folder under /tmp (unix socket paths must fit 108
    bytes), with an INBOX for the GM and each player, all with the password PASSWORD."""

    binaries: CyrusBinaries
    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gmcy", dir="/tmp")))
    imap_port: int = field(default_factory=free_port)
    lmtp_port: int = field(default_factory=free_port)
    servername: str = "imap.example.org"  # in the greeting, Received: lines and the SASL realm
    protocol_logs: tuple[str, ...] = ("gm",)  # users whose IMAP sessions Cyrus logs (protocol_log)
    # Cyrus's default, unlike Dovecot: a second delivery of a Message-ID to a mailbox is dropped
    # (LMTP still says 250). Off, each delivery is kept, as Dovecot does (for counting resent mail).
    duplicate_suppression: bool = True
    process: subprocess.Popen[bytes] | None = None
    created: bool = False  # the mailboxes (at the first start)

    def __post_init__(self) -> None:
        (self.base / "conf" / "socket").mkdir(parents=True)
        for user in self.protocol_logs:  # Cyrus logs the sessions of the users with a folder here
            (self.base / "conf" / "log" / user).mkdir(parents=True)
        (self.base / "spool").mkdir()
        if os.geteuid() == 0:  # master runs as the cyrus user
            owner = pwd.getpwnam("cyrus")
            user = "cyrus_user: cyrus"
        else:  # as this user
            owner = pwd.getpwuid(os.geteuid())
            user = f"cyrus_user: {owner.pw_name}"
        fields = dict(d=self.base, imap_port=self.imap_port, lmtp_port=self.lmtp_port, servername=self.servername,
                      admin=CYRUS_ADMIN, user=user, duplicates="yes" if self.duplicate_suppression else "no",
                      imapd=self.binaries.imapd, idled=self.binaries.idled, lmtpd=self.binaries.lmtpd)
        (self.base / "imapd.conf").write_text(CYRUS_IMAPD_CONF.format(**fields))
        (self.base / "cyrus.conf").write_text(CYRUS_CONF.format(**fields))
        for name in (CYRUS_ADMIN, *USERS):
            subprocess.run([self.binaries.saslpasswd2, "-f", str(self.base / "sasldb2"), "-u", self.servername,
                            "-p", "-c", name], input=PASSWORD.encode(), check=True, capture_output=True, timeout=30)
        self.base.chmod(0o755)  # mkdtemp's 0700 would keep the cyrus user out
        for path in [self.base, *self.base.rglob("*")]:
            os.chown(path, owner.pw_uid, owner.pw_gid)

    def start(self) -> None:
        # A session of its own, so that stop() can end the master and every child process at once.
        with (self.base / "master.log").open("ab") as log:
            self.process = subprocess.Popen(
                [str(self.binaries.master), "-C", str(self.base / "imapd.conf"), "-M", str(self.base / "cyrus.conf"),
                 "-p", str(self.base / "master.pid"), "-D"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            )
        deadline = time.monotonic() + 10
        # idled's socket too: an IDLE begun before idled listens would poll (imapidlepoll, 60 s).
        while not (listening(self.imap_port) and listening(self.lmtp_port)
                   and (self.base / "conf" / "socket" / "idle").exists()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                status = self.process.returncode
                self.stop()
                raise RuntimeError(f"Cyrus did not start (exit status {status}):\n{self.log()}")
            time.sleep(0.01)
        if not self.created:
            try:
                self._create_mailboxes()
            except (OSError, imaplib.IMAP4.error) as e:
                self.stop()
                raise RuntimeError(f"Cyrus: creating the mailboxes failed: {e}\n{self.log()}") from e
            self.created = True

    def _create_mailboxes(self) -> None:
        with imaplib.IMAP4("127.0.0.1", self.imap_port, timeout=10) as admin:
            admin.login(CYRUS_ADMIN, PASSWORD)
            for user in USERS:
                kind, said = admin.create(f"user/{user}")
                if kind != "OK":
                    raise imaplib.IMAP4.error(f"CREATE user/{user}: {kind} {said!r}")
            admin.logout()

    def stop(self) -> None:
        """Kill the whole server at once, as a crash would."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()
            deadline = time.monotonic() + 5
            while (listening(self.imap_port) or listening(self.lmtp_port)) and time.monotonic() < deadline:
                time.sleep(0.01)
        self.process = None

    @property
    def version(self) -> str:
        return self.binaries.version

    def log(self) -> str:
        """What master and its processes wrote (Cyrus logs to syslog, which is not read here)."""
        path = self.base / "master.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def protocol_log(self, user: str = "gm") -> str:
        """Every IMAP session of `user` (one of `protocol_logs`), as Cyrus logged it: lines from the
        client after '<time<', the server's after '>time>'."""
        folder = self.base / "conf" / "log" / user
        if not folder.is_dir():
            return ""
        files = sorted(folder.iterdir(), key=lambda p: (p.stat().st_mtime, p.name))
        return "".join(f"=== {p.name}\n{p.read_text(errors='replace')}\n" for p in files)


@pytest.fixture
def cyrus(cyrus_binary: CyrusBinaries) -> Iterator[Cyrus]:
    """A started Cyrus of the test's own; removed, folder and all, after it."""
    server = Cyrus(cyrus_binary)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.base, ignore_errors=True)


@pytest.fixture
def cyrus_smtp_front(cyrus: Cyrus) -> Iterator[Any]:
    """The SMTP front of tests/mail/conftest.py (an SmtpFront), delivering into `cyrus` over LMTP."""
    front = _mail.SmtpFront(_mail.LmtpRelay(cyrus.lmtp_port))
    front.start()
    try:
        yield front
    finally:
        front.stop()
