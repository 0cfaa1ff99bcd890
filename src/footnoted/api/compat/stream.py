"""One reply on the OpenAI wire, and the loop that frames a streamed answer's events.

The chat service streams the core's typed events (``Started``, ``Delta``, ``Sources``,
``Refusal``, ``Failed``, ``Done``); a :class:`Wire` turns them into Chat Completions
chunks or Responses events, and the frames that arrived together go out in one write.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...models import Delta, Done, Failed, Refusal, Sources, Started
from ..responses import dumps
from ..sse import KEEP_ALIVE, Bridge
from ..wire import refusal_payload, sources_data


@dataclass(slots=True)
class Reply:
    """What a reply's frames need to know, whatever the wire."""

    message_id: str
    model: str
    base_url: str  # citation links are made absolute against it
    sources_block: bool
    retrieval: Callable[[], dict[str, Any]]  # read late: retrieval fills it in
    usage: Callable[[str], tuple[int, int]]  # (prompt, completion) tokens of an answer
    created: int = field(default_factory=lambda: int(time.time()))


class Wire(Protocol):
    sources: dict[str, Any] | None

    def start(self) -> bytes: ...
    def delta(self, text: str) -> bytes: ...
    def end(self) -> bytes: ...
    def refusal(self, data: dict[str, Any]) -> bytes: ...
    def error(self, data: dict[str, Any]) -> bytes: ...


def data(value: dict[str, Any] | str, event: str | None = None) -> bytes:
    text = value if isinstance(value, str) else dumps(value)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


async def refused(wire: Wire, payload: dict[str, Any]) -> AsyncIterator[bytes]:
    """A refusal decided before streaming began (the evidence check)."""
    yield wire.start() + wire.refusal(payload)


async def frames(wire: Wire, bridge: Bridge, keepalive_s: float) -> AsyncIterator[bytes]:
    async for batch in bridge.batches(keepalive_s):
        if batch is None:
            yield KEEP_ALIVE
            continue
        out: list[bytes] = []
        for event in batch:
            match event:
                case Started():
                    out.append(wire.start())
                case Delta(text=text):
                    out.append(wire.delta(text))
                case Sources():
                    wire.sources = sources_data(event)
                case Refusal() | Failed() | Done():
                    out.append(_last(wire, event))
                    yield b"".join(out)
                    return
        if out:
            yield b"".join(out)


def _last(wire: Wire, event: Refusal | Failed | Done) -> bytes:
    """The frames that end a reply: its refusal, its error, or its end."""
    match event:
        case Refusal():
            return wire.refusal(refusal_payload(event))
        case Failed(code=code, message=message):
            return wire.error({"code": code, "message": message})
    return wire.end()
