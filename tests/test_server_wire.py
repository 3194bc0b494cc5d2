"""The server's JSON writer gives what the standard library's json reads back."""

from __future__ import annotations

import json

from rebelote.server.wire import JSONResponse, dumps


def test_dumps_reads_back_as_json_does() -> None:
    message = {"type": "state", "name": "Éloïse ♥", "seats": [0, 1, None], "ok": True,
               "score": 12.5, 3: "a key that is a number", "nested": {"a": [[1, 2], []]}}
    text = dumps(message)
    assert json.loads(text) == json.loads(json.dumps(message))
    assert "Éloïse ♥" in text  # UTF-8 text, not \u escapes


def test_values_orjson_refuses_are_written_by_json() -> None:
    huge = 10**30  # past 64 bits
    assert json.loads(dumps({"n": huge})) == {"n": huge}


def test_json_response_body() -> None:
    response = JSONResponse({"tables": [{"id": "t1", "seats": ["Ana", None]}]}, 201)
    assert response.status_code == 201
    assert response.headers["content-type"] == "application/json"
    assert json.loads(bytes(response.body)) == {"tables": [{"id": "t1", "seats": ["Ana", None]}]}


def test_messages_kept_as_text_while_they_wait() -> None:
    """``encoded`` keeps each message as its text (one sent to several written once),
    readable for routing by its type and table only; ``text_of`` gives the text of
    either kind; the garbage collector no longer has the message's tree to walk."""
    import gc

    from rebelote.server.wire import Encoded, encoded, text_of

    state = {"type": "state", "table": "t1", "hand": [["JS", "9S"] for _ in range(50)]}
    lobby = {"type": "lobby", "tables": [{"id": "t1"}]}
    out = encoded([("a", state), ("b", lobby), ("c", lobby)])
    assert [p for p, _m in out] == ["a", "b", "c"]
    assert out[1][1] is out[2][1]  # written once
    assert all(isinstance(m, Encoded) for _p, m in out)
    assert out[0][1]["type"] == "state" and out[0][1].get("table") == "t1"
    assert out[1][1].get("table") is None
    assert json.loads(text_of(out[0][1])) == state and text_of(lobby) == dumps(lobby)
    assert encoded(out)[0][1] is out[0][1]  # already written: kept
    assert not any(x is state["hand"] for x in gc.get_referents(out[0][1]))
    assert not gc.is_tracked(text_of(out[0][1]))
