"""One process without Redis, its database failing a write: the action must be refused
with a clear error, acknowledged to nobody, and the table must stay where the database
has it (#16's storage-is-the-truth change; the scale-out mode on the make-cluster
topology: tests/test_cluster_topology.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy.exc import OperationalError
from starlette.testclient import TestClient

from rebelote.server.app import create_app


def _state(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] in ("state", "error") and message.get("phase") != "waiting":
            return message


def test_a_failed_write_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'f.sqlite'}", secret="t", seed=4)
    store = app.state.service.store
    with TestClient(app) as client:
        client.post("/api/guest", json={"nickname": "Ana"})
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "create", "preset": "classic"})
            table = ws.receive_json()["table"]
            ws.send_json({"type": "bots", "table": table, "level": "random"})
            state = _state(ws)
            while state["turn"] != 0:
                ws.send_json({"type": "sync", "table": table})
                state = _state(ws)
            append = store.append

            def down(actions: Any) -> None:
                raise OperationalError("INSERT", {}, Exception("database is down"))

            store.append = down
            ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
            refused = _state(ws)
            assert refused["type"] == "error" and refused["code"] == "storage"
            store.append = append
            ws.send_json({"type": "sync", "table": table})
            assert _state(ws) == state  # nothing changed
