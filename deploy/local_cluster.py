"""``make cluster``: the compose file's topology from Debian's packages, on loopback,
without Docker: a PostgreSQL of its own (``initdb`` in a new folder), a Redis of its own,
two or more ``rebelote serve`` processes and HAProxy in front of them (WebSockets,
health checks on ``/readyz``). The tests and the bench start it too, and kill or
restart its parts.

``python -m deploy.local_cluster [--servers N] [--port P]``: starts it, prints the
address, stops everything on Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType

HAPROXY_CFG = """global
    maxconn 8000
defaults
    mode http
    timeout connect 2s
    timeout check 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    option redispatch
    retries 3
frontend web
    bind 127.0.0.1:{port}
    option forwardfor
    http-request set-header X-Request-ID %[uuid()] unless {{ req.hdr(x-request-id) -m found }}
    default_backend rebelote
backend rebelote
    balance leastconn
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 2s fall 3 rise 1 maxconn 4000
{servers}
"""


class ClusterError(RuntimeError):
    """A part of the topology did not start."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def missing_programs() -> list[str]:
    """The Debian programs the topology needs that are not installed."""
    need = {"redis-server": shutil.which("redis-server"), "haproxy": shutil.which("haproxy"),
            "initdb (postgresql)": _pg_bin("initdb")}
    return [name for name, found in need.items() if not found]


def _pg_bin(name: str) -> str | None:
    base = Path("/usr/lib/postgresql")
    if not base.exists():
        return shutil.which(name)
    for version in sorted(base.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0,
                          reverse=True):
        if (version / "bin" / name).exists():
            return str(version / "bin" / name)
    return shutil.which(name)


def _wait(test: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if test():  # type: ignore[operator]
                return
        time.sleep(0.1)
    raise ClusterError(f"{what} did not start within {timeout:.0f} s")


def _listening(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


class LocalCluster:
    """PostgreSQL, Redis, ``servers`` server processes and HAProxy, all on 127.0.0.1."""

    def __init__(self, folder: Path | None = None, servers: int = 2,
                 owner_timeout: float = 15.0, port: int | None = None,
                 log_format: str = "json") -> None:
        self.folder = Path(folder or tempfile.mkdtemp(prefix="rebelote-cluster-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = servers
        self.owner_timeout = owner_timeout
        self.log_format = log_format
        self.port = port or free_port()
        self.pg_port = free_port()
        self.redis_port = free_port()
        self.server_ports = [free_port() for _ in range(servers)]
        self.secret = secrets.token_hex(32)
        self.pg_dir = Path(tempfile.mkdtemp(prefix="rebelote-pg-"))  # postgres may enter it
        self.servers: list[subprocess.Popen[bytes] | None] = [None] * servers
        self.redis: subprocess.Popen[bytes] | None = None
        self.haproxy: subprocess.Popen[bytes] | None = None
        self._as_postgres = os.geteuid() == 0  # PostgreSQL will not run as root

    # -- addresses ------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_url(self) -> str:
        return f"postgresql+psycopg://rebelote@127.0.0.1:{self.pg_port}/rebelote"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def server_name(self, index: int) -> str:
        return f"web{index + 1}"

    # -- life -----------------------------------------------------------------------------

    def start(self) -> LocalCluster:
        missing = missing_programs()
        if missing:
            raise ClusterError(f"not installed: {', '.join(missing)} (.ci/run installs them)")
        self._init_postgres()
        self.start_postgres()
        self._run_pg("createdb", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "rebelote",
                     "rebelote")
        self.start_redis()
        self.start_server(0, migrate=True)  # the first one migrates the database
        for index in range(1, self.count):
            self.start_server(index, migrate=False)
        self.start_haproxy()
        return self

    def stop(self) -> None:
        procs = [self.haproxy, *self.servers, self.redis]
        for proc in procs:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in procs:
            if proc is not None:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        with contextlib.suppress(Exception):
            self.stop_postgres()
        shutil.rmtree(self.pg_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- PostgreSQL -----------------------------------------------------------------------

    def _run_pg(self, program: str, *args: str) -> None:
        binary = _pg_bin(program)
        if binary is None:
            raise ClusterError(f"{program} is not installed")
        command = [binary, *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ClusterError(f"{program} failed: {done.stderr.strip()[-500:]}")

    def _init_postgres(self) -> None:
        if self._as_postgres:
            shutil.chown(self.pg_dir, "postgres", "postgres")
        self._run_pg("initdb", "-D", str(self.pg_dir / "data"), "-U", "rebelote",
                     "--auth=trust", "-E", "UTF8", "--no-sync")

    def start_postgres(self) -> None:
        self._run_pg("pg_ctl", "-D", str(self.pg_dir / "data"), "-l", str(self.pg_dir / "log"),
                     "-w", "-t", "60", "-o",
                     f"-p {self.pg_port} -k {self.pg_dir} -c listen_addresses=127.0.0.1 "
                     "-c fsync=off -c max_connections=200", "start")

    def stop_postgres(self) -> None:
        self._run_pg("pg_ctl", "-D", str(self.pg_dir / "data"), "-w", "-m", "fast", "stop")

    # -- Redis ----------------------------------------------------------------------------

    def start_redis(self) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        self.redis = subprocess.Popen(
            [binary, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: _listening(self.redis_port), "redis")

    def stop_redis(self) -> None:
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait(timeout=10)

    # -- server processes -----------------------------------------------------------------

    def start_server(self, index: int, migrate: bool = False) -> None:
        port = self.server_ports[index]
        name = self.server_name(index)
        env = dict(os.environ, PYTHONUNBUFFERED="1", REBELOTE_SECRET=self.secret,
                   REBELOTE_DATA_DIR=str(self.folder / name),
                   REBELOTE_DATABASE_URL=self.database_url,
                   REBELOTE_REDIS_URL=self.redis_url, REBELOTE_NAME=name,
                   REBELOTE_OWNER_TIMEOUT=str(self.owner_timeout),
                   REBELOTE_LOG_FORMAT=self.log_format,
                   REBELOTE_MIGRATE="1" if migrate else "0")
        log = (self.folder / f"{name}.log").open("ab")
        self.servers[index] = subprocess.Popen(
            [sys.executable, "-m", "rebelote", "serve", "--port", str(port)],
            stdout=log, stderr=log, env=env)
        log.close()
        proc = self.servers[index]
        assert proc is not None

        def ready() -> bool:
            if proc.poll() is not None:
                raise ClusterError(f"{name} exited ({self.folder / f'{name}.log'})")
            return _http_ok(f"http://127.0.0.1:{port}/readyz")

        _wait(ready, name, timeout=180)

    def kill_server(self, index: int) -> None:
        """``kill -9`` the server process ``index``."""
        proc = self.servers[index]
        if proc is not None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)

    # -- HAProxy --------------------------------------------------------------------------

    def start_haproxy(self) -> None:
        lines = [f"    server {self.server_name(i)} 127.0.0.1:{p} check"
                 for i, p in enumerate(self.server_ports)]
        config = self.folder / "haproxy.cfg"
        config.write_text(HAPROXY_CFG.format(port=self.port, servers="\n".join(lines)))
        binary = shutil.which("haproxy")
        assert binary is not None
        log = (self.folder / "haproxy.log").open("ab")
        self.haproxy = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=log,
                                        stderr=log)
        log.close()
        _wait(lambda: _http_ok(f"{self.url}/readyz"), "haproxy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--folder", type=Path, default=None,
                        help="where logs and data go (default: a new temporary folder)")
    args = parser.parse_args()
    cluster = LocalCluster(args.folder, servers=args.servers, port=args.port,
                           log_format="plain")
    with cluster:
        print(f"rebelote cluster on {cluster.url} (HAProxy) — servers "
              + ", ".join(f"{cluster.server_name(i)} 127.0.0.1:{p}"
                          for i, p in enumerate(cluster.server_ports))
              + f"; PostgreSQL 127.0.0.1:{cluster.pg_port}, Redis 127.0.0.1:"
              f"{cluster.redis_port}; logs in {cluster.folder}. Ctrl-C stops it.", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.sigwait({signal.SIGINT, signal.SIGTERM})


if __name__ == "__main__":
    main()
