"""Server-sent events: framing, and a bridge from a worker thread to the event loop.

The synchronous ``Footnoted.ask()`` generator runs in a worker thread that pushes
frames through :class:`Bridge`; the response reads them without blocking the loop and
sends a ``: keep-alive`` comment whenever nothing arrived for a while. When the client
goes away the response is cancelled, :attr:`Bridge.cancelled` is set, and the worker
stops at its next step.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable
from typing import Any

from .responses import dumps

KEEP_ALIVE = b": keep-alive\n\n"
HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
    "Content-Encoding": "identity",
    "X-Content-Type-Options": "nosniff",
}
MEDIA_TYPE = "text/event-stream"

Frame = tuple[str, dict[str, Any]]


def frame(event: str, data: dict[str, Any], event_id: int | None = None) -> bytes:
    """One SSE event; the JSON payload holds no newline, so it is one ``data:`` line."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {dumps(data)}\n\n".encode()


class _End:
    pass


_END = _End()


class Bridge:
    """Frames from one worker thread to one streaming response."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[Frame | _End] = asyncio.Queue()
        self.cancelled = threading.Event()

    def put(self, event: str, data: dict[str, Any]) -> None:
        """Called from the worker thread."""
        self._send((event, data))

    def close(self) -> None:
        self._send(_END)

    def _send(self, item: Frame | _End) -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)
        except RuntimeError:  # the event loop is gone: nobody is listening any more
            self.cancelled.set()

    async def frames(self, keepalive_s: float) -> AsyncIterator[bytes]:
        """The SSE byte stream; cancelling it (client gone) cancels the worker."""
        event_id = 0
        async for item in self.items(keepalive_s):
            if item is None:
                yield KEEP_ALIVE
                continue
            yield frame(item[0], item[1], event_id)
            event_id += 1

    async def items(self, keepalive_s: float) -> AsyncIterator[Frame | None]:
        """Frames as they arrive, ``None`` after ``keepalive_s`` without one."""
        try:
            while True:
                try:
                    item = await asyncio.wait_for(self._queue.get(), keepalive_s)
                except TimeoutError:
                    yield None
                    continue
                if isinstance(item, _End):
                    return
                yield item
        finally:
            self.cancelled.set()


async def replay(frames: Iterable[Frame]) -> AsyncIterator[bytes]:
    """Stream stored frames (a completed answer sent again)."""
    for event_id, (event, data) in enumerate(frames):
        yield frame(event, data, event_id)
