"""The server's WebSocket protocol: uvicorn's sans-I/O one, with its reading paused only
when messages pile up.

uvicorn's protocol pauses the socket's reading at every message received and resumes it
when the application takes the message: two ``epoll_ctl`` system calls and their Python
around each message, about a tenth of the event loop of a server under load (py-spy,
``bench.server_load``). Here reading pauses once :data:`PAUSE_AT` messages wait for the
application, and resumes, as before, when none waits: a client still cannot make the
server queue more than that and one read's worth of messages.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

PAUSE_AT = 16
"""Messages waiting for the application before the socket's reading pauses."""


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, pausing its reading at :data:`PAUSE_AT`
    waiting messages instead of at every message."""

    def send_receive_event_to_app(self) -> None:
        paused = self.read_paused
        self.read_paused = True  # the parent pauses when this is False: not yet
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= PAUSE_AT:
            self.read_paused = True
            self.transport.pause_reading()
