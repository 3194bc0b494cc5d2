"""The web layer: guest sign-in, the lobby, WebSocket play, reconnection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from rebelote.server.app import create_app


def _client(tmp_path: Path) -> TestClient:
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite'}", secret="test", seed=2)
    return TestClient(app)


def _sign_in(client: TestClient, nickname: str = "Ana") -> str:
    res = client.post("/api/guest", json={"nickname": nickname})
    assert res.status_code == 200
    cookie = res.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    player: str = res.json()["player"]
    return player


def _next(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of that type (for "state": the next with the cards dealt)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind and message.get("phase") != "waiting":
            return message


def _table_with_bots(ws: Any, preset: str = "classic") -> tuple[str, dict[str, Any]]:
    """Create a table over the socket, fill it with random bots: its id and first state."""
    ws.send_json({"type": "create", "preset": preset})
    table: str = _next(ws, "created")["table"]
    ws.send_json({"type": "bots", "table": table, "level": "random"})
    return table, _next(ws, "state")


def test_guest_sign_in_and_bad_requests(tmp_path: Path) -> None:
    client = _client(tmp_path)
    assert client.get("/api/me").status_code == 401
    assert client.post("/api/guest", json={"nickname": ""}).status_code == 400
    assert client.post("/api/guest", content=b"nope").status_code == 415  # not JSON
    assert client.post("/api/guest", content=b"nope",
                       headers={"content-type": "application/json"}).status_code == 400
    player = _sign_in(client)
    assert client.get("/api/me").json()["player"] == player
    assert "rebelote" in client.get("/").text
    assert client.get("/static/app.js").status_code == 200


def test_websocket_needs_a_session(tmp_path: Path) -> None:
    client = _client(tmp_path)
    import pytest
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws") as ws:
        ws.receive_text()


def test_play_against_bots_and_reconnect(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _sign_in(client)
    with client.websocket_connect("/ws") as ws:
        table, state = _table_with_bots(ws)
        assert len(state["hand"]) in (5, 8) and state["seat"] == 0
        ws.send_text("{not json")
        assert _next(ws, "error")["code"] == "bad_message"
        for _ in range(40):
            if state["turn"] != 0 or not state["legal"]:
                break
            ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
            state = _next(ws, "state")
        played = state
    assert client.get("/api/tables").json()[0]["table"] == table
    with client.websocket_connect("/ws") as ws:  # a reload: a new socket, the same state
        ws.send_json({"type": "sync", "table": table})
        again = _next(ws, "state")
        assert again == played


def test_another_player_sees_only_the_public_table(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _sign_in(client, "Ana")
    with client.websocket_connect("/ws") as ws:
        table, mine = _table_with_bots(ws)
    other = _client(tmp_path)  # the same database, another browser
    _sign_in(other, "Bruno")
    with other.websocket_connect("/ws") as ws:
        ws.send_json({"type": "watch", "table": table})
        public = _next(ws, "state")
    assert public["hand"] == [] and public["legal"] == []
    assert not set(mine["hand"]) & set(str(public))


def test_record_download_has_finished_hands_only(tmp_path: Path) -> None:
    from rebelote.record import replay_record

    client = _client(tmp_path)
    _sign_in(client)
    with client.websocket_connect("/ws") as ws:
        table, state = _table_with_bots(ws, "ffb")
        for _ in range(200):
            if state["scores"] or state["turn"] != 0:
                break
            ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
            state = _next(ws, "state")
    res = client.get(f"/api/tables/{table}/record")
    assert res.status_code == 200 and "attachment" in res.headers["content-disposition"]
    record = res.json()
    assert len(record["hands"]) == len(state["scores"])
    assert state["scores"]  # at least one hand finished: the record is not empty
    assert all(len(h.get("play", [])) in (0, 32) for h in record["hands"])  # finished only
    assert replay_record(record).game.totals == state["totals"]
    assert client.get("/api/tables/nope/record").status_code == 404


def test_calculator_api_uses_the_score_pad_code(tmp_path: Path) -> None:
    client = _client(tmp_path)
    game = {"rules": {"preset": "classic"}, "hands": [{"taker": 0, "points": 81},
                                                       {"taker": 0, "points": 100}]}
    res = client.post("/api/score/game", json=game)
    assert res.status_code == 200
    assert res.json()["hands"][0]["reserve"] == 81  # a litige, carried...
    assert res.json()["hands"][1]["scored"] == [181, 62]  # ...to the next made hand
    bad = client.post("/api/score/game", json={"hands": [{"taker": 0, "points": 170}]})
    assert bad.status_code == 400 and "162" in bad.json()["error"]


def test_accounts_with_argon2(tmp_path: Path) -> None:
    client = _client(tmp_path)
    res = client.post("/api/register", json={"name": "Chloé", "password": "correct horse"})
    assert res.status_code == 200
    assert "httponly" in res.headers["set-cookie"].lower()
    account = res.json()["player"]
    stored = client.app.state.service.store.account("Chloé")  # type: ignore[attr-defined]
    assert stored[0] == account and stored[1].startswith("$argon2")
    assert "correct horse" not in stored[1]
    assert client.post("/api/register", json={"name": "Chloé",
                                              "password": "another one"}).status_code == 409
    assert client.post("/api/register", json={"name": "x", "password": "short"}).status_code == 400
    client.post("/api/logout")
    assert client.get("/api/me").status_code == 401
    assert client.post("/api/login", json={"name": "Chloé",
                                           "password": "wrong password"}).status_code == 401
    assert client.post("/api/login", json={"name": "Nobody",
                                           "password": "whatever1"}).status_code == 401
    ok = client.post("/api/login", json={"name": "Chloé", "password": "correct horse"})
    assert ok.status_code == 200 and client.get("/api/me").json()["player"] == account


def test_a_guest_who_makes_an_account_keeps_its_games(tmp_path: Path) -> None:
    client = _client(tmp_path)
    guest = _sign_in(client, "Ana")
    with client.websocket_connect("/ws") as ws:
        table, _state = _table_with_bots(ws)
    assert client.get("/api/session").json()["account"] is False
    res = client.post("/api/register", json={"name": "Ana Lopez", "password": "tapis vert 42"})
    assert res.status_code == 200
    assert res.json() == {"player": guest, "nickname": "Ana Lopez"}
    assert client.get("/api/session").json() == {"player": guest, "nickname": "Ana Lopez",
                                                  "account": True}
    mine = [t for t in client.get("/api/tables").json() if t["table"] == table]
    assert mine and "Ana Lopez" in mine[0]["seats"]
    client.post("/api/logout")
    back = client.post("/api/login", json={"name": "ana lopez", "password": "tapis vert 42"})
    assert back.status_code == 200 and back.json()["player"] == guest
    # an account that registers again makes another account; the first stays
    again = client.post("/api/register", json={"name": "Ana Two", "password": "tapis vert 43"})
    assert again.status_code == 200 and again.json()["player"] != guest


def test_a_guest_keeps_its_name_when_the_account_name_is_taken(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _sign_in(client, "Bea")
    client.post("/api/logout")
    guest = _sign_in(client, "Carla")
    taken = client.post("/api/register", json={"name": "BEA", "password": "tapis vert 42"})
    assert taken.status_code == 409 and taken.json()["code"] == "name_taken"
    assert client.get("/api/session").json() == {"player": guest, "nickname": "Carla",
                                                  "account": False}
    same = client.post("/api/register", json={"name": "carla", "password": "tapis vert 42"})
    assert same.status_code == 200 and same.json() == {"player": guest, "nickname": "carla"}


def test_refused_names_and_passwords_say_which_rule(tmp_path: Path) -> None:
    client = _client(tmp_path)
    cases = [({"name": "Dora", "password": "short"}, "password_length"),
             ({"name": "Dora", "password": "password123"}, "password_common"),
             ({"name": "Dora", "password": "aaaaaaaaaaab"}, "password_repeated"),
             ({"name": "x" * 25, "password": "tapis vert 42"}, "name_length"),
             ({"name": "--", "password": "tapis vert 42"}, "name_letter"),
             ({"name": "Dora", "password": 12}, "password_length")]
    for body, code in cases:
        res = client.post("/api/register", json=body)
        assert (res.status_code, res.json()["code"]) == (400, code), body
    assert client.get("/api/session").json()["player"] is None


def test_seats_show_nicknames(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _sign_in(client, "Zoé")
    with client.websocket_connect("/ws") as ws:
        _table, state = _table_with_bots(ws)
    assert state["seats"][0] == "Zoé" and state["seats"][1] == "bot:random"


def test_history_for_the_replay_viewer(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _sign_in(client)
    with client.websocket_connect("/ws") as ws:
        table, state = _table_with_bots(ws, "ffb")
        for _ in range(200):
            if state["scores"]:
                break
            ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
            state = _next(ws, "state")
    history = client.get(f"/api/tables/{table}/history").json()
    assert len(history["hands"]) == len(state["scores"])
    played = [h for h in history["hands"] if h["tricks"]]
    assert played and all(len(h["tricks"]) == 8 for h in played)
    first = played[0]
    assert sorted(c for seat in first["cards"] for c in seat) == sorted(
        c for t in first["tricks"] for c in t["cards"])  # every card, all hands shown
    assert client.get("/replay").status_code == 200
    assert client.get("/api/tables/nope/history").status_code == 404


def test_statistics_page_and_ratings(tmp_path: Path) -> None:
    client = _client(tmp_path)
    assert client.get("/api/stats").status_code == 400  # whose?
    _sign_in(client, "Ana")
    mine = client.get("/api/stats").json()
    assert mine["games"] == 0 and mine["rating"] is None
    assert client.get("/api/ratings").json() == []
    assert "Ratings" in client.get("/stats").text


def test_the_rule_options_a_table_may_set(tmp_path: Path) -> None:
    from rebelote.rules import OPTION_NAMES, Rules

    catalog = _client(tmp_path).get("/api/rules").json()
    names = {o["name"] for o in catalog["options"]}
    assert names == set(OPTION_NAMES) - {"players", "game", "deck_style"}
    assert "announcements" in names and "direction" in names
    assert catalog["presets"]["three"]["players"] == 3  # every preset plays on the web
    assert catalog["presets"]["decouverte"]["players"] == 2
    assert catalog["presets"]["classic"]["announcements"] is Rules.classic().announcements
    assert catalog["presets"]["contree"]["game"] == "auction"
