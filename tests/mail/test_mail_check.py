"""`gm mail check` against real servers: with the right settings it logs in to IMAP and SMTP as gm
serve would, says what each offers, mails the GM's own address and reads it back, and exits 0;
each wrong setting is named in one PROBLEM line saying what to do, with exit status 1."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gm.mail.oauth2 import grant
from loopback import free_port

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, SmtpFront
    from mail.oauth2_servers import OAuth2Dovecot, Submission
    from oauth2server import AuthorizationServer

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "example.org"
PASSWORD = "secret"  # the test Dovecot's (tests/mail/conftest.py)


def mail_check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    return subprocess.run([sys.executable, "-m", "gm", "mail", "check", *args], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=120)


def settings(dovecot: Dovecot, smtp_port: int, data: Path, **changes: str) -> dict[str, str]:
    env = {"GM_ADDRESS": f"gm@{DOMAIN}", "GM_DATA_DIR": str(data), "GM_IMAP_HOST": "127.0.0.1",
           "GM_IMAP_PORT": str(dovecot.imap_port), "GM_IMAP_TLS": "none", "GM_IMAP_USER": "gm",
           "GM_IMAP_PASSWORD": PASSWORD, "GM_SMTP_PORT": str(smtp_port), "GM_SMTP_TLS": "none",
           "GM_SMTP_USER": "", "GM_SMTP_PASSWORD": ""}
    return {**env, **changes}


def problems(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("PROBLEM")]


def test_the_right_settings_work_and_the_test_mail_comes_back(
        dovecot: Dovecot, smtp_front: SmtpFront, tmp_path: Path) -> None:
    done = mail_check(settings(dovecot, smtp_front.port, tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"ok       IMAP 127.0.0.1:{dovecot.imap_port} (none): logged in as gm by password in ")
    assert "offers IDLE" in lines[0] and "INBOX holds 0 mails" in lines[0]
    assert lines[1].startswith(f"ok       SMTP 127.0.0.1:{smtp_front.port} (none): no log-in (the server offers none)")
    assert lines[2].startswith(f"ok       a mail from gm@{DOMAIN} to itself was sent in ")
    assert lines[-1] == "gm mail check: the mail settings work"
    assert PASSWORD not in done.stdout


@pytest.mark.parametrize("change, problem", [
    ({"GM_IMAP_PASSWORD": "wrong"}, r"IMAP 127.0.0.1:\d+ \(none\): login as 'gm' refused: .*: check \[imap\] user "
                                     r"and password \(with two-step login, an app password\)"),
    ({"GM_IMAP_PORT": "CLOSED"}, r"IMAP 127.0.0.1:\d+ \(none\): cannot connect \(.*\): check \[imap\] host and port"),
    ({"GM_IMAP_TLS": "ssl"}, r"IMAP 127.0.0.1:\d+ \(ssl\): TLS failed \(.*\): the server does not speak TLS from the "
                             r"first byte here; try \[imap\] tls = \"starttls\""),
    ({"GM_IMAP_TLS": "starttls"}, r"IMAP 127.0.0.1:\d+ \(starttls\): the server does not offer STARTTLS"),
    ({"GM_SMTP_PORT": "CLOSED"}, r"SMTP 127.0.0.1:\d+ \(none\): cannot connect \(connection refused\): check "
                                 r"\[smtp\] host and port"),
    # another mailbox's address than the one the judge reads: the test mail lands there
    ({"GM_ADDRESS": f"alice@{DOMAIN}"}, r"the test mail sent to alice@example.org did not arrive in 3 s: is "
                                        r"GM_ADDRESS the address of the mailbox the judge reads\?"),
])
def test_each_wrong_setting_is_one_problem_line(dovecot: Dovecot, smtp_front: SmtpFront, tmp_path: Path,
                                                 change: dict[str, str], problem: str) -> None:
    change = {k: (str(free_port()) if v == "CLOSED" else v) for k, v in change.items()}
    done = mail_check(settings(dovecot, smtp_front.port, tmp_path, **change), "--wait", "3")
    found = problems(done.stdout)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(found) == 1, done.stdout
    assert re.fullmatch(f"PROBLEM  {problem}.*", found[0]), found[0]
    assert "Traceback" not in done.stdout + done.stderr


def test_a_mailbox_another_program_marks_read_is_named(
        dovecot: Dovecot, smtp_front: SmtpFront, tmp_path: Path) -> None:
    """A phone reading the judge's mailbox: it marks every new mail read, and the judge, which reads
    unread mail only, would never see a player's."""
    reader = subprocess.Popen([sys.executable, "-c", MARKS_READ, str(dovecot.imap_port), PASSWORD],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "reading"
        done = mail_check(settings(dovecot, smtp_front.port, tmp_path))
    finally:
        reader.kill()
        reader.wait()
    assert done.returncode == 1
    assert problems(done.stdout) == [
        "PROBLEM  the test mail was marked read before the judge read it: another program (a phone, a mail program, "
        "or a gm serve running now) reads this mailbox, and the judge reads only unread mail: give the judge a "
        "mailbox of its own (or stop gm serve while checking)"]


# Another mail program: every 0.2 s, every mail in gm's INBOX marked read.
MARKS_READ = """
import imaplib, sys, time
imap = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
imap.login("gm", sys.argv[2])
print("reading", flush=True)
while True:
    imap.select("INBOX")
    imap.store("1:*", "+FLAGS", "(\\\\Seen)") if imap.search(None, "ALL")[1][0] else None
    time.sleep(0.2)
"""


def test_oauth2_settings_are_checked_with_a_token(
        oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot, oauth2_submission: Submission,
        tmp_path: Path) -> None:
    env = settings(oauth2_dovecot, oauth2_submission.port, tmp_path, GM_IMAP_PASSWORD="", GM_SMTP_USER=f"gm@{DOMAIN}",
                   GM_OAUTH2_PROVIDER="generic", GM_OAUTH2_CLIENT_ID=oauth2_server.client_id,
                   GM_OAUTH2_TOKEN_URL=oauth2_server.token_url, GM_OAUTH2_DEVICE_URL=oauth2_server.device_url,
                   GM_OAUTH2_SCOPES="mail")
    grant.save(tmp_path / "oauth2-grant.json", {"provider": "generic", "client_id": oauth2_server.client_id,
                                                "user": "gm", "refresh_token": oauth2_server.grant()["refresh_token"]})
    done = mail_check(env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "logged in as gm by OAUTHBEARER" in done.stdout and f"logged in as gm@{DOMAIN} by OAUTHBEARER" in done.stdout
    oauth2_server.revoke("gm")
    done = mail_check(env, "--no-send")
    assert done.returncode == 1 and len(problems(done.stdout)) == 2  # IMAP and SMTP, each in one line
    assert all("run `gm mail authorize` to sign the judge in to generic again" in p for p in problems(done.stdout))
