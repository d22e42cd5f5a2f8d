"""gm serve's HTTP server of the games' pages answers a malformed URL (a NUL byte, an undecodable
or unencodable percent-escape, an over-long path, backslashes) with an error status, never by
dropping the connection, and goes on serving: a red team's request with `%00` once made `open`
raise inside the handler, and the client got no answer at all."""
from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gm.web.publish import http_server

GOOD = b"GET /g1/index.html HTTP/1.0"


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    """A pages server over a real socket, of a folder with an index and one game's page."""
    folder = tmp_path / "pages"
    (folder / "g1").mkdir(parents=True)
    (folder / "index.html").write_text("<p>the index</p>")
    (folder / "g1" / "index.html").write_text("<p>game g1</p>")
    server = http_server(folder, 0, "127.0.0.1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _ask(port: int, request_line: bytes, end: bytes = b"\r\n\r\n") -> bytes:
    """The whole answer to one raw request (HTTP/1.0: the server closes the connection after it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request_line + end)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def _status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1."), f"no status line, the connection dropped: {answer[:80]!r}"
    return int(answer.split(b" ", 2)[1])


def test_the_good_request_is_served(port: int) -> None:
    answer = _ask(port, GOOD)
    assert _status(answer) == 200 and answer.endswith(b"<p>game g1</p>")


@pytest.mark.parametrize("path", [
    b"/%00", b"/g1/%00index.html", b"/g1/index.html%00", b"/g1%00", b"/g1%00/", b"//%00", b"/%00?page=1",
    b"/\x00", b"/g1/index.html\x00", b"/g1/\x00index.html",  # a raw NUL byte
    b"/%ed%a0%80", b"/g1/%ed%a0%80index.html",  # a lone surrogate: no file name can hold it
], ids=repr)
@pytest.mark.parametrize("method", [b"GET", b"HEAD"])
def test_a_nul_byte_or_a_lone_surrogate_is_no_such_page(port: int, method: bytes, path: bytes) -> None:
    answer = _ask(port, method + b" " + path + b" HTTP/1.0")
    assert _status(answer) == 404
    assert _status(_ask(port, GOOD)) == 200


@pytest.mark.parametrize("path", [
    b"/%ff%fe", b"/g1/%ff%fe/index.html", b"/\xff\xfe", b"/ab%zz", b"/%",  # not UTF-8, or no escape at all
    b"/g1\\index.html", b"/..\\..\\etc\\passwd", b"/%5c..%5cindex.html", b"/g1%5cindex.html",  # backslashes
    b"/" + b"a" * 5000, b"/" + b"a/" * 3000,  # a name, or a path, longer than the file system takes
], ids=lambda path: repr(path[:40]))
def test_other_malformed_paths_are_refused_and_the_server_goes_on(port: int, path: bytes) -> None:
    assert _status(_ask(port, b"GET " + path + b" HTTP/1.0")) == 404
    assert _status(_ask(port, GOOD)) == 200


def test_a_request_line_too_long_to_read_is_refused(port: int) -> None:
    # Exactly what the server reads of a line (65536 bytes and one more), so it closes with nothing
    # left unread: a reset would be a race with its answer.
    assert _status(_ask(port, b"GET /" + b"a" * (65537 - 5), end=b"")) == 414
    assert _status(_ask(port, GOOD)) == 200
