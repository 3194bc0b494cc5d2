"""A wheel built from the repository, installed with ``[postgres]`` into a fresh
virtualenv (from PyPI), serves the lobby and plays a hand on PostgreSQL; the wheel
carries the licences; ``rebelote --version``.

Needs PyPI (about two minutes, less with pip's cache) and ``REBELOTE_TEST_POSTGRES_URL``
(``.ci/run`` starts PostgreSQL).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

import rebelote
from tests.servers import free_port, sign_in_guest
from tests.test_server_postgres import postgres_url  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str | Path, timeout: float = 900) -> str:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                          timeout=timeout, env={k: v for k, v in os.environ.items()
                                                if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


async def _play_a_hand(port: int, cookie: str) -> dict[str, Any]:
    async with connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"Cookie": cookie}) as ws:
        await ws.send(json.dumps({"type": "create", "preset": "classic"}))
        while (created := json.loads(await ws.recv()))["type"] != "created":
            pass
        table = created["table"]
        await ws.send(json.dumps({"type": "bots", "table": table, "level": "random"}))
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] != "state" or message.get("phase") == "waiting":
                continue
            if message["scores"]:
                return message  # a hand played and scored
            if message["turn"] == 0 and message["legal"]:
                await ws.send(json.dumps({"type": "act", "table": table,
                                          "action": message["legal"][0]}))


def test_wheel_in_a_fresh_virtualenv_plays_on_postgresql(tmp_path: Path,
                                                         postgres_url: str) -> None:  # noqa: F811
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path / "dist", ROOT)
    (wheel,) = (tmp_path / "dist").glob("rebelote-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert any(n.endswith("static/cards/LICENSE") for n in names)  # the card pictures' LGPL
    assert any(n.endswith("migrations/versions/0005_summaries.py") for n in names)
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", f"{wheel}[postgres]")
    assert _run(venv / "bin" / "rebelote", "--version").strip() == (
        f"rebelote {rebelote.__version__}")
    # The installed package, not this checkout.
    where = _run(python, "-c", "import rebelote; print(rebelote.__file__)")
    assert str(venv) in where
    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [venv / "bin" / "rebelote", "serve", "--port", str(port), "--database", postgres_url],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        | {"REBELOTE_DATA_DIR": str(tmp_path / "data")})
    try:
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz",
                                            timeout=1) as resp:
                    assert json.loads(resp.read())["database"] == "ok"
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "serve.log").read_text()
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=5) as resp:
            assert json.loads(resp.read()) == []
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
            assert b"rebelote" in resp.read()
        state = asyncio.run(_play_a_hand(port, sign_in_guest(port, "Ana")))
        assert len(state["scores"]) == 1 and sum(state["scores"][0]) > 0
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_the_scale_out_mode_says_which_extra_it_needs(tmp_path: Path) -> None:
    """Without the [cluster] extra, --redis fails with the pip command to run."""
    script = ("import sys; sys.modules['redis'] = None; sys.argv = ['rebelote', 'serve', "
              "'--redis', 'redis://127.0.0.1:1/0', '--port', '1']; "
              "from rebelote.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, REBELOTE_DATA_DIR=str(tmp_path)))
    assert done.returncode == 1 and "rebelote[cluster]" in done.stderr, done.stderr
