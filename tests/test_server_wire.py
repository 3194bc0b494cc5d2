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
