"""Server processes for tests and benchmarks: a free loopback port, the platform started
by its own command (``rebelote serve``), a throwaway Redis."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, db: Path, redis_url: str | None = None,
                 workers: int = 1, env: dict[str, str] | None = None,
                 data: Path | None = None) -> subprocess.Popen[bytes]:
    """``rebelote serve`` on ``port`` with the SQLite database ``db`` (its data folder
    beside it, or ``data``), waiting until it answers; ``env``: more variables. Its
    output goes to ``server-PORT.log`` beside the database (what :func:`stop_server`
    shows if it does not stop)."""
    command = [sys.executable, "-m", "rebelote", "serve", "--port", str(port),
               "--database", f"sqlite:///{db}", "--workers", str(workers)]
    if redis_url is not None:
        command += ["--redis", redis_url]
    log = db.parent / f"server-{port}.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                env=dict(os.environ, PYTHONUNBUFFERED="1",
                                         XDG_DATA_HOME=str(data or db.parent / "data"),
                                         **(env or {})))
    _LOGS[proc.pid] = log
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not start")


_LOGS: dict[int, Path] = {}


def stop_server(proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """Stop a server as an operator does (SIGTERM) and wait for it. One still running
    after ``timeout`` seconds is a fault: its threads' stacks (``kill -USR1``, the
    server's faulthandler), its tasks' (``kill -USR2``, logged) and the end of its log
    are the assertion's message."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
        return
    except subprocess.TimeoutExpired:
        pass
    proc.send_signal(signal.SIGUSR1)  # the threads first: the tasks end the log's tail
    time.sleep(1.0)
    proc.send_signal(signal.SIGUSR2)
    time.sleep(1.0)
    proc.kill()
    proc.wait(timeout=10)
    log = _LOGS.get(proc.pid)
    tail = log.read_text(errors="replace")[-16000:] if log is not None and log.exists() else ""
    raise AssertionError(f"the server (pid {proc.pid}) did not stop within {timeout} s "
                         f"of SIGTERM; its log ends:\n{tail}")


def sign_in_guest(port: int, nickname: str = "Ana") -> str:
    """Sign in as a guest on the server at ``port``: its session cookie."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/guest",
                                 data=json.dumps({"nickname": nickname}).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        cookie: str = resp.headers["set-cookie"].split(";")[0]
        return cookie


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str | None]:
    """A Redis of our own on a free port (its URL), or None without ``redis-server``."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
