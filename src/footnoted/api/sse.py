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
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from ..models import Event
from .responses import dumps
from .wire import Frame
from .wire import frame as sse_frame

KEEP_ALIVE = b": keep-alive\n\n"
HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
    "Content-Encoding": "identity",
    "X-Content-Type-Options": "nosniff",
}
MEDIA_TYPE = "text/event-stream"


def frame(event: str, data: dict[str, Any], event_id: int | None = None) -> bytes:
    """One SSE event; the JSON payload holds no newline, so it is one ``data:`` line."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {dumps(data)}\n\n".encode()


class _End:
    pass


_END = _End()


class Bridge:
    """Events from one worker thread to one streaming response, typed as the core made
    them: each transport frames them its own way (``frames`` here for ``/api/chat``,
    ``compat.stream.frames`` for ``/v1``).

    The worker appends events to a buffer and wakes the event loop only when the buffer
    was empty; the response takes everything buffered at once and sends it in one write.
    An extractive answer's words, produced together, then cost one wake-up and one
    socket write instead of one per word; a model's tokens still go out as they come.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        self._lock = threading.Lock()
        self._buffer: list[Event | _End] = []
        self.cancelled = threading.Event()

    def put(self, event: Event) -> None:
        """Called from the worker thread."""
        self._send(event)

    def close(self) -> None:
        self._send(_END)

    def _send(self, item: Event | _End) -> None:
        with self._lock:
            wake = not self._buffer
            self._buffer.append(item)
        if not wake:
            return  # the loop was woken for the first buffered frame and takes them all
        try:
            self._loop.call_soon_threadsafe(self._ready.set)
        except RuntimeError:  # the event loop is gone: nobody is listening any more
            self.cancelled.set()

    def _take(self) -> list[Event | _End]:
        with self._lock:
            items, self._buffer = self._buffer, []
            self._ready.clear()
        return items

    async def batches(self, keepalive_s: float) -> AsyncIterator[list[Event] | None]:
        """The events that arrived together, ``None`` after ``keepalive_s`` without any;
        ends when the worker closes. Cancelling it (client gone) cancels the worker."""
        try:
            while True:
                try:
                    await asyncio.wait_for(self._ready.wait(), keepalive_s)
                except TimeoutError:
                    yield None
                    continue
                batch: list[Event] = []
                for item in self._take():
                    if isinstance(item, _End):
                        if batch:
                            yield batch
                        return
                    batch.append(item)
                if batch:
                    yield batch
        finally:
            self.cancelled.set()

    async def frames(
        self, keepalive_s: float, ids: Mapping[str, str | None]
    ) -> AsyncIterator[bytes]:
        """``/api/chat``'s SSE byte stream of the reply ``ids`` names: each batch in one
        write, keep-alive comments between."""
        event_id = 0
        async for batch in self.batches(keepalive_s):
            if batch is None:
                yield KEEP_ALIVE
                continue
            framed = (sse_frame(event, ids) for event in batch)
            yield b"".join(frame(e, d, event_id + i) for i, (e, d) in enumerate(framed))
            event_id += len(batch)


async def replay(frames: Iterable[Frame]) -> AsyncIterator[bytes]:
    """Stream stored frames (a completed answer sent again), in one write."""
    yield b"".join(frame(event, data, event_id) for event_id, (event, data) in enumerate(frames))
