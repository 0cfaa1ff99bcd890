"""Chat Completions on the wire: the ``chat.completion`` object and its streamed chunks.

A cited answer: ``message.content`` is the text ending with the Sources block,
``message.annotations`` holds a ``url_citation`` per ``[N]`` marker, and the extra
top-level ``citations`` holds footnoted's own citation objects. A refusal: the message is
both ``content`` (what a user sees) and OpenAI's ``message.refusal`` (what a program
tests), with the extra top-level ``refusal: {message, suggestions, evidence}``. Streamed,
the Sources block is the last content delta; the final chunk (``finish_reason``) carries
the annotations in its delta and the extra fields next to ``usage``.
"""

from __future__ import annotations

from typing import Any

from .cited import Cited, chat_annotations, citations_field
from .stream import Reply, data


def _refusal_field(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        k: payload[k] for k in ("message", "suggestions", "evidence", "elsewhere") if k in payload
    }


def _usage(prompt: int, completion: int) -> dict[str, int]:
    total = prompt + completion
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


def completion(reply: Reply, payload: dict[str, Any]) -> dict[str, Any]:
    """The non-streamed reply for ``/api/chat``'s JSON answer or refusal."""
    extras: dict[str, Any] = {"retrieval": reply.retrieval()}
    if payload.get("type") == "refusal":
        content = str(payload["message"])
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": content}
        extras["refusal"] = _refusal_field(payload)
    else:
        cited = Cited.build(str(payload["answer"]), payload)
        content = cited.text + cited.suffix(reply.sources_block)
        message = {"role": "assistant", "content": content, "refusal": None,
                   "annotations": chat_annotations(cited, reply.base_url)}  # fmt: skip
        cites = citations_field(payload)
        if cites is not None:
            extras["citations"] = cites
    return {
        "id": f"chatcmpl-{reply.message_id}",
        "object": "chat.completion",
        "created": reply.created,
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": _usage(*reply.usage(content)),
        **extras,
    }


class ChatChunks:
    """``chat.completion.chunk`` frames of one streamed answer (a :class:`Wire`)."""

    def __init__(self, reply: Reply, include_usage: bool) -> None:
        self.reply = reply
        self.include_usage = include_usage
        self.sources: dict[str, Any] | None = None
        self.text: list[str] = []

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{self.reply.message_id}",
            "object": "chat.completion.chunk",
            "created": self.reply.created,
            "model": self.reply.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _final(self, delta: dict[str, Any], extras: dict[str, Any]) -> bytes:
        chunk = {**self._chunk(delta, "stop"), **extras, "retrieval": self.reply.retrieval()}
        if self.include_usage:
            chunk["usage"] = _usage(*self.reply.usage("".join(self.text)))
        return data(chunk) + data("[DONE]")

    def start(self) -> bytes:
        return data(self._chunk({"role": "assistant", "content": ""}))

    def delta(self, text: str) -> bytes:
        self.text.append(text)
        return data(self._chunk({"content": text}))

    def end(self) -> bytes:
        cited = Cited.build("".join(self.text), self.sources)
        suffix = cited.suffix(self.reply.sources_block)
        out = self.delta(suffix) if suffix else b""
        annotations = chat_annotations(cited, self.reply.base_url)
        cites = citations_field(self.sources)
        extras = {"citations": cites} if cites is not None else {}
        return out + self._final({"annotations": annotations} if annotations else {}, extras)

    def refusal(self, payload: dict[str, Any]) -> bytes:
        message = str(payload["message"])
        out = data(self._chunk({"content": message, "refusal": message}))
        self.text.append(message)
        return out + self._final({}, {"refusal": _refusal_field(payload)})

    def error(self, payload: dict[str, Any]) -> bytes:
        return data({"error": {**payload, "type": "server_error", "param": None}})
