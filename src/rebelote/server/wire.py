"""The server's JSON on the wire, written with orjson: a state message takes 6 µs where
the standard library's ``json`` took 68 (measured, 1.7 kB), and writing messages was the
event loop's largest single cost under load (a fifth of its busy time, profiled with 100
tables of bots playing)."""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.responses import JSONResponse as _StarletteJSON

_OPTIONS = orjson.OPT_NON_STR_KEYS


def encode(value: Any) -> bytes:
    """``value`` as UTF-8 JSON (what ``json.dumps`` gives, without ``\\u`` escapes; a
    value orjson refuses, such as an integer past 64 bits, written by ``json``, whose
    ASCII output any text can carry)."""
    try:
        return orjson.dumps(value)
    except TypeError:  # keys that are not text (numbers, said as text), or too large
        pass
    try:
        return orjson.dumps(value, option=_OPTIONS)  # 1.7 times slower: only if needed
    except TypeError:
        return json.dumps(value).encode()


def dumps(value: Any) -> str:
    """:func:`encode` as text (a WebSocket text message)."""
    return encode(value).decode()


def fragment(value: Any) -> orjson.Fragment:
    """``value`` written once, to be written as it is inside other messages (a part
    many messages carry unchanged, such as a hand's finished tricks)."""
    return orjson.Fragment(encode(value))


class Composed(dict[str, Any]):
    """A message (every field readable, as any dict) made of fields of its own and
    fields it shares with other messages: ``written``, one object for all of them, the
    shared fields to write (a field may be a :func:`fragment` of its value).

    A broadcast's state messages differ in their seat's fields only; each was written
    whole, walking every object of its trees, for each listener. Written so, the shared
    part is written once per broadcast and its large unchanged parts not walked at all
    (a busy server's data is not in the processor's cache: walking it is what costs)."""

    __slots__ = ("own", "written")

    def __init__(self, shared: dict[str, Any], own: dict[str, Any],
                 written: dict[str, Any]) -> None:
        super().__init__(shared)
        super().update(own)
        self.own: dict[str, Any] | None = own
        """This message's own fields; None once it was changed otherwise than by
        setting a field the shared part lacks: then it is written whole."""
        self.written = written

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        if self.own is not None and key not in self.written:
            self.own[key] = value  # a field of its own (the actor's ``ack``)
        else:
            self.own = None

    def _whole(self) -> None:
        self.own = None

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (dict(self),)  # pickled or copied: a plain dict of its fields

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._whole()

    def pop(self, *args: Any) -> Any:
        self._whole()
        return super().pop(*args)

    def popitem(self) -> tuple[str, Any]:
        self._whole()
        return super().popitem()

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._whole()
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._whole()
        super().update(*args, **kwargs)

    def clear(self) -> None:
        self._whole()
        super().clear()

    def __ior__(self, other: Any) -> Composed:  # type: ignore[override,misc]
        self._whole()
        return super().__ior__(other)


def _composed_text(message: Composed, shared: dict[int, bytes]) -> str:
    """``message``'s text, its shared part's taken from (or written into) ``shared``,
    by the shared part's identity (the message whole if it was changed, or holds
    what orjson does not write)."""
    own = message.own
    if own is None:
        return dumps(message)
    key = id(message.written)
    text = shared.get(key)
    try:
        if text is None:
            text = shared[key] = encode(message.written)
        if not own:
            return text.decode()
        return (encode(own)[:-1] + b"," + text[1:]).decode()
    except TypeError:  # keys that are not text, integers past 64 bits: as encode does
        return dumps(dict(message))


class Encoded(dict[str, Any]):
    """A message written once, kept as its text: only its ``type`` and ``table`` stay
    readable (what the server routes and filters by while it waits for a write).

    A state message is a tree of a few hundred lists and dicts; kept until its action
    was written (50 ms under load, 150 tables' worth at any time), those trees made
    each young collection of the garbage collector walk some 50,000 objects (8 ms
    stalls, 110 of them in 20 s). Text is not walked."""

    __slots__ = ("text",)

    def __init__(self, message: dict[str, Any], text: str) -> None:
        super().__init__(type=message.get("type"), table=message.get("table"))
        self.text = text


def encoded(out: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Each message of ``out`` as :class:`Encoded` (one sent to several recipients
    written once)."""
    done: dict[int, Encoded] = {}
    shared: dict[int, bytes] = {}
    result: list[tuple[str, dict[str, Any]]] = []
    for recipient, message in out:
        ready = done.get(id(message))
        if ready is None:
            if isinstance(message, Encoded):
                ready = message
            elif isinstance(message, Composed):
                ready = Encoded(message, _composed_text(message, shared))
            else:
                ready = Encoded(message, dumps(message))
            done[id(message)] = ready
        result.append((recipient, ready))
    return result


def text_of(message: dict[str, Any]) -> str:
    """A message's text: kept if :class:`Encoded`, written otherwise."""
    if isinstance(message, Encoded):
        return message.text
    if isinstance(message, Composed):
        return _composed_text(message, {})
    return dumps(message)


class JSONResponse(_StarletteJSON):
    """Starlette's JSON response, rendered by :func:`encode`."""

    def render(self, content: Any) -> bytes:
        return encode(content)
