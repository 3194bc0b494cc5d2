"""The server's WebSocket protocol reads on while few messages wait (uvicorn's paused and
resumed the socket at every message), pauses once many do, and loses none."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import uvicorn
from websockets.sync.client import connect

from rebelote.server.websocket import PAUSE_AT, WebSocketProtocol
from tests.servers import free_port

pauses: list[int] = []


class CountingProtocol(WebSocketProtocol):
    """Counts the pauses of its socket's reading."""

    def connection_made(self, transport: Any) -> None:
        pause = transport.pause_reading

        def counted() -> None:
            pauses.append(1)
            pause()

        transport.pause_reading = counted
        super().connection_made(transport)


async def echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Echoes every text message; after "hold", stops reading for half a second."""
    if scope["type"] != "websocket":
        return
    await receive()
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        if message["text"] == "hold":
            await asyncio.sleep(0.5)
        await send({"type": "websocket.send", "text": message["text"]})


def test_reading_pauses_only_when_messages_pile_up() -> None:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(echo, host="127.0.0.1", port=port,
                                           ws=CountingProtocol, loop="asyncio",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(100):
            if server.started:
                break
            threading.Event().wait(0.05)
        with connect(f"ws://127.0.0.1:{port}/") as ws:
            for i in range(50):  # one at a time: never more than one waits
                ws.send(f"m{i}")
                assert ws.recv(timeout=5) == f"m{i}"
            assert pauses == []
            ws.send("hold")  # the application stops reading while 4x PAUSE_AT arrive
            sent = [f"n{i}" for i in range(4 * PAUSE_AT)]
            for text in sent:
                ws.send(text)
            got = [ws.recv(timeout=5) for _ in range(len(sent) + 1)]
            assert got == ["hold", *sent]  # every one, in order
            assert pauses, "the socket's reading never paused"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_frames_go_by_the_servers_own_send_past_the_middleware() -> None:
    """The request middleware keeps a socket's ASGI send in its scope; frames go by it
    (not through every middleware's wrapper), with Starlette's rules kept: a socket
    not open refuses, a client gone is a disconnect and the socket is closed for us."""
    import pytest
    from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

    from rebelote.server.app import send_frame
    from rebelote.server.observability import RAW_SEND, RequestContext

    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen["scope"], seen["send"] = scope, send

    async def server_send(message: Any) -> None:
        sent.append(message)

    async def nothing() -> Any:
        return {"type": "websocket.connect"}

    sent: list[Any] = []
    asyncio.run(RequestContext(app)({"type": "websocket", "headers": []}, nothing, server_send))
    assert seen["scope"][RAW_SEND] is server_send and seen["send"] is server_send

    async def wrapped(message: Any) -> None:  # what the middleware would have given
        raise AssertionError("a frame went through the middleware")

    socket = WebSocket({"type": "websocket", "path": "/ws", "headers": [],
                        RAW_SEND: server_send}, nothing, wrapped)
    socket.application_state = WebSocketState.CONNECTED
    asyncio.run(send_frame(socket, '{"type":"state"}'))
    assert sent == [{"type": "websocket.send", "text": '{"type":"state"}'}]

    async def gone(message: Any) -> None:
        raise OSError("connection reset")

    socket.scope[RAW_SEND] = gone
    with pytest.raises(WebSocketDisconnect):
        asyncio.run(send_frame(socket, "{}"))
    assert socket.application_state == WebSocketState.DISCONNECTED
    with pytest.raises(RuntimeError):  # closed: Starlette's own refusal
        asyncio.run(send_frame(socket, "{}"))
    assert len(sent) == 1
