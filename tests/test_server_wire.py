"""The server's JSON writer gives what the standard library's json reads back."""

from __future__ import annotations

import json
from typing import Any

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


def test_a_composed_message_is_written_as_it_reads_whatever_is_changed() -> None:
    """A message made of its own fields and a shared part written once (``Composed``)
    is written as the dict reads, changed or not: a field set that the shared part
    lacks (the actor's ``ack``), a shared field replaced, removed, updated or cleared;
    a value orjson refuses is written as :func:`encode` writes it."""
    from rebelote.server.wire import Composed, encoded, fragment, text_of

    def made() -> Composed:
        shared = {"type": "state", "table": "t1", "tricks": [{"cards": ["JS", "9S"]}]}
        written = {**shared, "tricks": fragment(shared["tricks"])}
        return Composed(shared, {"seat": 0, "hand": ["AS"]}, written)

    def reads_as_written(m: Composed) -> None:
        assert json.loads(text_of(m)) == m
        assert json.loads(text_of(encoded([("a", m)])[0][1])) == m

    m = made()
    reads_as_written(m)
    m["ack"] = {"id": 7, "seq": 3}
    assert m.own is not None and m.own["ack"] == {"id": 7, "seq": 3}  # still in parts
    reads_as_written(m)
    changes: list[Any] = [
        lambda m: m.__setitem__("tricks", []), lambda m: m.pop("tricks"),
        lambda m: m.__delitem__("table"), lambda m: m.update(table="t2"),
        lambda m: m.setdefault("x", 1), lambda m: m.popitem(), lambda m: m.clear(),
        lambda m: m.__ior__({"table": "t3"}), lambda m: m.__setitem__("big", 2**70)]
    for change in changes:
        m = made()
        change(m)
        reads_as_written(m)
    import copy
    import pickle

    m = made()
    assert pickle.loads(pickle.dumps(m)) == m == copy.deepcopy(m) == copy.copy(m)
    m["n"] = 2**70  # its own field, past orjson's integers: written by json
    assert m.own is not None and "n" in m.own
    reads_as_written(m)
