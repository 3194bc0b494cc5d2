"""One settings object: every `rebelote serve` flag also by a REBELOTE_* variable, the
flag winning, bad values refused with the variable named; the same settings reach every
worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import rebelote
from rebelote.server.settings import ENV, FIELDS, Settings, SettingsError, settings_table
from tests.servers import free_port, redis_server


def test_every_setting_from_the_environment(tmp_path: Path) -> None:
    env = {"REBELOTE_HOST": "127.0.0.2", "REBELOTE_PORT": "9123",
           "REBELOTE_DATABASE_URL": "sqlite:////x.sqlite", "REBELOTE_REDIS_URL": "redis://r",
           "REBELOTE_WORKERS": "3", "REBELOTE_DATA_DIR": str(tmp_path),
           "REBELOTE_LOG_FORMAT": "JSON", "REBELOTE_LOG_LEVEL": "warning",
           "REBELOTE_OWNER_TIMEOUT": "4.5", "REBELOTE_NAME": "web7",
           "REBELOTE_MIGRATE": "off", "REBELOTE_GUESTS_PER_HOUR": "7",
           "REBELOTE_LOOP": "UVLoop"}
    assert set(env) == set(ENV.values())  # every setting has its variable
    got = Settings.load(env)
    assert got == Settings(host="127.0.0.2", port=9123, database="sqlite:////x.sqlite",
                           redis="redis://r", workers=3, data_dir=tmp_path,
                           log_format="json", log_level="warning", owner_timeout=4.5,
                           name="web7", migrate=False, guests_per_hour=7, loop="uvloop")
    # A flag wins over its variable; a worker gets back exactly the same settings.
    assert Settings.load(env, port=8001, migrate=True).port == 8001
    assert Settings.load(got.to_env()) == got
    assert {name for name, *_ in FIELDS} == set(Settings.__dataclass_fields__)
    assert "REBELOTE_OWNER_TIMEOUT" in settings_table()


def test_defaults_and_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("REBELOTE_DATA_DIR", raising=False)
    settings = Settings.load({})
    assert (settings.host, settings.port, settings.workers) == ("127.0.0.1", 8000, 1)
    assert settings.database_url == f"sqlite:///{tmp_path / 'xdg' / 'rebelote' / 'server.sqlite'}"
    monkeypatch.setenv("REBELOTE_DATA_DIR", str(tmp_path / "data"))
    assert Settings.load({}).folder == tmp_path / "data"
    from rebelote.cli import default_sheet_path
    from rebelote.tui.app import default_record_path

    assert default_sheet_path().parent == default_record_path().parent == tmp_path / "data"


@pytest.mark.parametrize(("var", "value", "named"), [
    ("REBELOTE_PORT", "eighty", "REBELOTE_PORT"),
    ("REBELOTE_PORT", "70000", "REBELOTE_PORT"),
    ("REBELOTE_WORKERS", "2", "REBELOTE_REDIS_URL"),
    ("REBELOTE_LOG_FORMAT", "xml", "REBELOTE_LOG_FORMAT"),
    ("REBELOTE_MIGRATE", "perhaps", "REBELOTE_MIGRATE"),
    ("REBELOTE_OWNER_TIMEOUT", "0", "REBELOTE_OWNER_TIMEOUT"),
    ("REBELOTE_LOOP", "trio", "REBELOTE_LOOP"),
])
def test_bad_values_are_refused(var: str, value: str, named: str, tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=named):
        Settings.load({var: value})
    done = subprocess.run([sys.executable, "-m", "rebelote", "serve"], capture_output=True,
                          text=True, timeout=60,
                          env=dict(os.environ, **{var: value},
                                   REBELOTE_DATA_DIR=str(tmp_path)))
    assert done.returncode == 2 and named in done.stderr and "Traceback" not in done.stderr


def test_version() -> None:
    done = subprocess.run([sys.executable, "-m", "rebelote", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"rebelote {rebelote.__version__}"


def _serve(tmp_path: Path, port: int, **env: str) -> subprocess.Popen[bytes]:
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "rebelote", "serve"], stdout=log,
                            stderr=subprocess.STDOUT,
                            env=dict(os.environ, REBELOTE_PORT=str(port),
                                     REBELOTE_DATA_DIR=str(tmp_path / "data"), **env))
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    raise AssertionError((tmp_path / "serve.log").read_text())


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_by_environment_alone(tmp_path: Path, workers: int) -> None:
    """The port, database, data folder, log format and name from the environment only,
    with one worker or two (the second through Redis)."""
    with redis_server(tmp_path) as redis_url:
        if workers > 1 and redis_url is None:
            pytest.skip("redis-server is not installed")
        port = free_port()
        db = tmp_path / "by-env.sqlite"
        extra = {"REBELOTE_WORKERS": str(workers), "REBELOTE_REDIS_URL": redis_url or ""} \
            if workers > 1 else {}
        proc = _serve(tmp_path, port, REBELOTE_DATABASE_URL=f"sqlite:///{db}",
                      REBELOTE_LOG_FORMAT="json", REBELOTE_NAME="envtest", **extra)
        try:
            for _ in range(4):  # every worker answers
                req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables",
                                             headers={"X-Request-ID": "req-42"})
                with urllib.request.urlopen(req, timeout=5) as resp:
                    assert resp.headers["x-request-id"] == "req-42"
                    assert json.loads(resp.read()) == []
        finally:
            proc.terminate()
            proc.wait(timeout=20)
        assert db.exists()
        assert (tmp_path / "data" / "server-secret").exists()
        lines = [json.loads(line) for line in (tmp_path / "serve.log").read_text().splitlines()
                 if line.startswith("{")]
        access = [x for x in lines if x["message"].startswith("GET /api/tables")]
        assert len(access) == 4 and {x["request_id"] for x in access} == {"req-42"}
        assert {x["process"] for x in lines} == {"envtest"}


def test_the_operations_page_lists_every_setting() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "operations.md").read_text()
    assert settings_table() in page


@pytest.mark.parametrize("name", ["RULES.md", "RECORD.md"])
def test_the_shared_specifications_are_copied_unchanged(name: str) -> None:
    shared = Path("/work/shared") / name
    if not shared.exists():
        pytest.skip("the shared specifications are not on this machine")
    docs = Path(__file__).resolve().parents[1] / "docs" / name
    assert docs.read_text() == shared.read_text()
