"""The bridge from a worker thread to a streaming response."""

from __future__ import annotations

import asyncio
import threading

from footnoted.api.sse import KEEP_ALIVE, Bridge
from footnoted.models import Delta, Started

IDS = {"session_id": "s1", "message_id": "m1"}


async def collect(bridge: Bridge, keepalive_s: float = 5.0) -> list[bytes]:
    return [chunk async for chunk in bridge.frames(keepalive_s, IDS)]


def test_frames_produced_together_go_out_in_one_write() -> None:
    async def main() -> list[bytes]:
        bridge = Bridge()

        def worker() -> None:
            for i in range(50):
                bridge.put(Delta(f"w{i} "))
            bridge.close()

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()  # everything is buffered before the response reads
        return await collect(bridge)

    chunks = asyncio.run(main())
    assert len(chunks) == 1
    events = chunks[0].decode().split("\n\n")[:-1]
    assert len(events) == 50
    assert events[0] == 'id: 0\nevent: answer_delta\ndata: {"text":"w0 "}'
    assert events[49].startswith("id: 49\n")


def test_frames_apart_in_time_go_out_as_they_come_with_keep_alives() -> None:
    async def main() -> tuple[list[bytes], bool]:
        bridge = Bridge()
        step = threading.Event()

        def worker() -> None:
            bridge.put(Started())
            step.wait(5)
            bridge.put(Delta("late"))
            bridge.close()

        threading.Thread(target=worker).start()
        out: list[bytes] = []
        async for chunk in bridge.frames(0.05, IDS):
            out.append(chunk)
            if chunk == KEEP_ALIVE:
                step.set()
        return out, bridge.cancelled.is_set()

    chunks, cancelled = asyncio.run(main())
    assert chunks[0].startswith(b'id: 0\nevent: answer_start\ndata: {"session_id":"s1"')
    assert KEEP_ALIVE in chunks
    assert chunks[-1].startswith(b"id: 1\nevent: answer_delta")
    assert cancelled  # the stream is over: a worker still running would stop
