"""Health, readiness, metrics and structured logs of a server process."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine
from starlette.testclient import TestClient

from rebelote.server.app import create_app
from rebelote.server.observability import configure_logging, log, table_id
from rebelote.server.settings import Settings
from tests.servers import redis_server


def _metrics(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    res = client.get("/metrics")
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(res.text) for s in family.samples}


def _state(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "state" and message.get("phase") != "waiting":
            return message


def test_health_readiness_and_metrics(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'o.sqlite'}", secret="t", seed=1)
    with TestClient(app) as client:
        assert client.get("/healthz").json()["status"] == "ok"
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json() == {"status": "ready",
                                                             "database": "ok"}
        client.post("/api/guest", json={"nickname": "Ana"})
        acts = 0
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "create", "preset": "classic"})
            table = ws.receive_json()["table"]
            ws.send_json({"type": "bots", "table": table, "level": "random"})
            state = _state(ws)
            while acts < 6 and state["turn"] == 0 and state["winner"] is None:
                ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
                acts += 1
                state = _state(ws)
            ws.send_json({"type": "act", "table": table, "action": "nonsense"})
            assert ws.receive_json()["type"] == "error"
            time.sleep(0.6)  # the event-loop watcher runs every 250 ms
            m = _metrics(client)
            assert m[("rebelote_connected_sockets", ())] == 1
        assert m[("rebelote_open_tables", ())] == 1
        assert m[("rebelote_answer_seconds_count", (("type", "act"),))] == acts + 1
        assert m[("rebelote_messages_total", (("result", "ok"), ("type", "act")))] == acts + 1
        stored = m[("rebelote_actions_total", (("kind", "act"),))]
        assert stored >= acts  # the players' and the bots' actions
        assert m[("rebelote_actions_total", (("kind", "deal"),))] >= 1
        with app.state.service.store.engine.connect() as db:  # each stored one counted
            rows = dict(db.exec_driver_sql(
                "SELECT kind, count(*) FROM actions GROUP BY kind").fetchall())
        assert rows == {kind: m[("rebelote_actions_total", (("kind", kind),))]
                        for kind in rows} and rows["act"] == stored
        assert m[("rebelote_store_write_seconds_count", ())] >= 1
        assert m[("rebelote_event_loop_lag_seconds_count", ())] >= 1
        assert m[("rebelote_socket_open_seconds_count", ())] == 1  # the one socket
        assert m.get(("rebelote_slow_messages_total", (("type", "act"),)), 0) == 0
        for kind in ("bots", "hints", "auth", "stats", "calc"):  # nothing left waiting
            assert m[("rebelote_job_queue_depth", (("kind", kind),))] == 0
        # The database gone: not ready, saying why.
        app.state.service.store.engine = create_engine(
            "postgresql+psycopg://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 1})
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["database"].startswith("unreachable")
        assert client.get("/healthz").status_code == 200  # the process itself is up


def test_readiness_needs_redis_in_the_scale_out_mode(tmp_path: Path) -> None:
    with redis_server(tmp_path) as redis_url:
        if redis_url is None:
            pytest.skip("redis-server is not installed")
        app = create_app(f"sqlite:///{tmp_path / 'c.sqlite'}", secret="t",
                         redis_url=redis_url)
        with TestClient(app) as client:
            assert client.get("/readyz").json() == {"status": "ready", "database": "ok",
                                                    "redis": "ok"}
            import redis

            with contextlib.suppress(redis.exceptions.ConnectionError):
                redis.Redis.from_url(redis_url).shutdown(nosave=True)  # Redis gone
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.json()["redis"].startswith("unreachable")


@pytest.mark.parametrize("fmt", ["json", "plain"])
def test_structured_logs(fmt: str) -> None:
    out = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        configure_logging(Settings(log_format=fmt, name="web3"), stream=out)
        token = table_id.set("t123")
        log.info("a card played")
        table_id.reset(token)
        log.warning("no table here")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    first, second = out.getvalue().splitlines()
    if fmt == "json":
        a, b = json.loads(first), json.loads(second)
        assert a["message"] == "a card played" and a["table_id"] == "t123"
        assert a["process"] == "web3" and a["level"] == "info"
        assert "table_id" not in b and b["level"] == "warning"
    else:
        assert "[web3] a card played table_id=t123" in first and "table_id" not in second


def test_a_slow_message_is_logged_with_what_it_awaits(caplog: pytest.LogCaptureFixture) -> None:
    """A message whose handler waits (here on an event nobody sets) is told once, with
    the coroutines it waits in; a quick one is not told."""
    import asyncio
    from types import SimpleNamespace

    from rebelote.server.observability import Observability

    watch = Observability(Settings(), SimpleNamespace(tables={}),  # type: ignore[arg-type]
                          SimpleNamespace(append=lambda actions: None),  # type: ignore[arg-type]
                          lambda: 0)

    async def stuck_in_storage(never: asyncio.Event) -> None:
        await never.wait()

    async def handle(message: dict[str, Any], never: asyncio.Event) -> None:
        with watch.message(message):
            await stuck_in_storage(never)

    async def main() -> tuple[list[str], list[str], list[str]]:
        never = asyncio.Event()
        quick = asyncio.Event()
        quick.set()
        done = asyncio.create_task(handle({"type": "sync", "table": "t1"}, quick))
        await done
        task = asyncio.create_task(handle({"type": "act", "table": "t2"}, never))
        await asyncio.sleep(0.05)
        early = watch.report_slow(after=1.0)
        told = watch.report_slow(after=0.01)
        again = watch.report_slow(after=0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return early, told, again

    with caplog.at_level(logging.WARNING, logger="rebelote.server"):
        early, told, again = asyncio.run(main())
    assert early == [] and again == []
    assert len(told) == 1 and told[0].startswith("act at table t2")
    where = told[0]
    assert where.index("handle") < where.index("stuck_in_storage") < where.index("wait (locks")
    assert told[0] in caplog.text
    assert watch.slow.labels("act")._value.get() == 1
    assert watch.slow.labels("sync")._value.get() == 0


def test_a_failing_message_is_counted_logged_and_raised(caplog: pytest.LogCaptureFixture) -> None:
    """A handler that raises: counted as failed (not ok, no answer time), logged with its
    traceback, raised on; its table id leaves the log context and it is no longer in
    flight. A cancelled handler is neither."""
    from types import SimpleNamespace

    from rebelote.server.observability import Observability

    watch = Observability(Settings(), SimpleNamespace(tables={}),  # type: ignore[arg-type]
                          SimpleNamespace(append=lambda actions: None),  # type: ignore[arg-type]
                          lambda: 0)
    with (caplog.at_level(logging.ERROR, logger="rebelote.server"),
          pytest.raises(ZeroDivisionError), watch.message({"type": "act", "table": "t9"})):
        assert table_id.get() == "t9"
        _ = 1 / 0
    assert table_id.get() is None and not watch._in_flight
    assert watch.messages.labels("act", "failed")._value.get() == 1
    assert watch.messages.labels("act", "ok")._value.get() == 0
    assert "a act message failed" in caplog.text and "ZeroDivisionError" in caplog.text
    with contextlib.suppress(KeyboardInterrupt), watch.message({"type": "sync"}):
        raise KeyboardInterrupt
    assert watch.messages.labels("sync", "failed")._value.get() == 0
    with watch.message({"type": "sync"}):
        pass
    with watch.message("not an object"):
        pass
    assert watch.messages.labels("sync", "ok")._value.get() == 1
    assert watch.messages.labels("other", "ok")._value.get() == 1
    assert watch.answer.labels("sync")._sum.get() > 0 and not watch._in_flight
