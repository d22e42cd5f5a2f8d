"""Servers on loopback, as the tests and benchmarks start them: a free port, whether something
listens on one, and stopping a server process the way its operator would."""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Callable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_listening(port: int, what: str, timeout: float = 10, log: Callable[[], str] = lambda: "") -> None:
    """Until something listens on `port`; RuntimeError naming `what` (and `log()`) after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not listening(port):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} does not listen on {port}" + (f":\n{log()}" if log() else ""))
        time.sleep(0.01)


def stop(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM, as an operator stops `gm serve`; killed if it has not ended within `timeout` s."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
