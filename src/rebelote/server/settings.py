"""The server's settings: one object, from ``rebelote serve``'s flags and ``REBELOTE_*``
environment variables, the same with one worker or many.

A flag given on the command line wins over its environment variable, which wins over
the default. ``rebelote serve --workers N`` hands the settings to its workers through
the environment (:meth:`Settings.to_env`), so every process runs with the same ones.
Each setting, its variable and its meaning are in :data:`FIELDS` (docs/operations.md
prints the same table).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from rebelote.paths import data_dir as default_data_dir

LOG_FORMATS = ("plain", "json")
LOG_LEVELS = ("debug", "info", "warning", "error")
LOOPS = ("auto", "uvloop", "asyncio")


class SettingsError(ValueError):
    """A setting with a value the server cannot use (the message names the variable)."""


@dataclass(frozen=True)
class Settings:
    """Everything ``rebelote serve`` can be told."""

    host: str = "127.0.0.1"
    port: int = 8000
    database: str | None = None
    redis: str | None = None
    workers: int = 1
    data_dir: Path | None = None
    log_format: str = "plain"
    log_level: str = "info"
    owner_timeout: float = 15.0
    guests_per_hour: int = 60
    name: str | None = None
    migrate: bool = True
    loop: str = "auto"

    @property
    def folder(self) -> Path:
        """The data folder (made if missing)."""
        path = self.data_dir or default_data_dir()
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL: the setting, or SQLite in the data folder."""
        return self.database or f"sqlite:///{self.folder / 'server.sqlite'}"

    def secret(self) -> str:
        """The key that signs session cookies: $REBELOTE_SECRET, or one made once and
        kept (mode 0600) in the data folder, so that a restart logs nobody out."""
        if os.environ.get("REBELOTE_SECRET"):
            return os.environ["REBELOTE_SECRET"]
        path = self.folder / "server-secret"
        if not path.exists():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another worker made it first
                pass
            else:
                with os.fdopen(fd, "w") as out:
                    out.write(secrets.token_hex(32))
        return path.read_text().strip()

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None, **flags: Any) -> Settings:
        """Settings from the environment (``env``, default ``os.environ``), then the
        flags that are not None."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in fields(cls):
            var = ENV[f.name]
            if flags.get(f.name) is not None:
                values[f.name] = flags[f.name]
            elif env.get(var, "") != "":
                values[f.name] = _parse(f.name, var, env[var])
        settings = cls(**values)
        settings.check()
        return settings

    def check(self) -> None:
        if not 0 < self.port < 65536:
            raise SettingsError(f"port {self.port} is not 1 to 65535 (--port, REBELOTE_PORT)")
        if self.workers < 1:
            raise SettingsError("workers must be 1 or more (--workers, REBELOTE_WORKERS)")
        if self.workers > 1 and not self.redis:
            raise SettingsError("several workers share their tables through Redis: "
                                "give --redis URL (or REBELOTE_REDIS_URL)")
        if self.log_format not in LOG_FORMATS:
            raise SettingsError(f"log format {self.log_format!r} is not one of "
                                f"{', '.join(LOG_FORMATS)} (REBELOTE_LOG_FORMAT)")
        if self.log_level not in LOG_LEVELS:
            raise SettingsError(f"log level {self.log_level!r} is not one of "
                                f"{', '.join(LOG_LEVELS)} (REBELOTE_LOG_LEVEL)")
        if self.loop not in LOOPS:
            raise SettingsError(f"event loop {self.loop!r} is not one of "
                                f"{', '.join(LOOPS)} (--loop, REBELOTE_LOOP)")
        if self.loop == "uvloop" and importlib.util.find_spec("uvloop") is None:
            raise SettingsError("the uvloop event loop is not installed: pip install uvloop "
                                "(or --loop asyncio, REBELOTE_LOOP)")
        if self.guests_per_hour < 0:
            raise SettingsError("guests per hour is 0 (no limit) or more "
                                "(--guests-per-hour, REBELOTE_GUESTS_PER_HOUR)")
        if self.owner_timeout < 1:
            raise SettingsError("the owner timeout is at least 1 second "
                                "(REBELOTE_OWNER_TIMEOUT)")

    def to_env(self) -> dict[str, str]:
        """The settings as environment variables (for worker processes)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[ENV[f.name]] = ("1" if value else "0") if isinstance(value, bool) \
                    else str(value)
        return out

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @property
    def logging_level(self) -> int:
        return int(getattr(logging, self.log_level.upper()))


ENV = {f: "REBELOTE_" + f.upper() for f in Settings.__dataclass_fields__}
ENV["database"] = "REBELOTE_DATABASE_URL"
ENV["redis"] = "REBELOTE_REDIS_URL"

FIELDS: list[tuple[str, str, str, str]] = [
    # (setting, flag, default, meaning)
    ("host", "--host", "127.0.0.1", "address to listen on"),
    ("port", "--port", "8000", "port to listen on"),
    ("database", "--database", "SQLite in the data folder",
     "SQLAlchemy URL of the store (`postgresql+psycopg://user:pass@host/db` with "
     "`rebelote[postgres]`)"),
    ("redis", "--redis", "none (one process)",
     "Redis URL: the scale-out mode (needs `rebelote[cluster]`)"),
    ("workers", "--workers", "1", "server processes on this port (more than one needs Redis)"),
    ("data_dir", "--data-dir", "platformdirs' user data folder (`~/.local/share/rebelote`)",
     "the SQLite database and the cookie key"),
    ("log_format", "--log-format", "plain", "`plain` text or `json` (one object a line)"),
    ("log_level", "--log-level", "info", "`debug`, `info`, `warning` or `error`"),
    ("owner_timeout", "--owner-timeout", "15",
     "seconds after which a dead process's tables are taken over"),
    ("guests_per_hour", "--guests-per-hour", "60",
     "new guests one address may make in an hour (0: no limit; behind a load balancer, "
     "uvicorn's `FORWARDED_ALLOW_IPS` names it so that the client's address is used)"),
    ("name", "--name", "a random id", "this process's name in logs, metrics and Redis"),
    ("migrate", "--migrate/--no-migrate", "on",
     "upgrade the database schema at start (`rebelote serve --workers N` migrates once)"),
    ("loop", "--loop", "auto",
     "the event loop: `uvloop` (libuv's, in C, installed with rebelote but on Windows), "
     "Python's `asyncio`, or `auto`: uvloop when installed; under load uvloop took 6-8 % "
     "less CPU an action and served 2-8 % more actions a second (four runs each, "
     "2026-12-03)"),
]


def _parse(name: str, var: str, raw: str) -> Any:
    kind = Settings.__dataclass_fields__[name].type
    try:
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            if raw.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(raw)
            return raw.lower() in ("1", "true", "yes", "on")
        if kind == "Path | None":
            return Path(raw)
    except ValueError:
        raise SettingsError(f"{var}={raw!r} is not a valid {kind.split()[0]}") from None
    return raw.lower() if name in ("log_format", "log_level", "loop") else raw


def settings_table() -> str:
    """Every setting as a Markdown table (docs/operations.md)."""
    rows = ["| setting | flag | environment | default | what |", "|---|---|---|---|---|"]
    for name, flag, default, doc in FIELDS:
        rows.append(f"| `{name}` | `{flag}` | `{ENV[name]}` | {default} | {doc} |")
    rows.append("| secret | — | `REBELOTE_SECRET` | made once in the data folder | "
                "the key that signs session cookies (the same for every process) |")
    return "\n".join(rows)
