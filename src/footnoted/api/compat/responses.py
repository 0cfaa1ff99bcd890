"""The Responses API on the wire: the ``response`` object and its streamed events.

A cited answer is one assistant ``message`` whose ``output_text`` ends with the Sources
block and carries an annotation per ``[N]`` marker (``url_citation``, or
``file_citation`` when the document has no link); a refusal is an ``output_text`` with
the message (what ``response.output_text`` shows) followed by OpenAI's ``refusal``
content part (what a program tests). The extra top-level ``citations``, ``refusal`` and
``retrieval`` fields are as in Chat Completions; streamed, they ride on
``response.completed``.
"""

from __future__ import annotations

from typing import Any

from .cited import Cited, citations_field, output_text_annotations
from .stream import Reply, data


def _text_part(text: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}


def _refusal_part(message: str) -> dict[str, Any]:
    return {"type": "refusal", "refusal": message}


def _refusal_field(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        k: payload[k] for k in ("message", "suggestions", "evidence", "elsewhere") if k in payload
    }


class Responses:
    """One reply's ``response`` object, whole or as streamed events (a :class:`Wire`)."""

    def __init__(self, reply: Reply, instructions: str | None) -> None:
        self.reply = reply
        self.instructions = instructions
        self.sources: dict[str, Any] | None = None
        self.text: list[str] = []
        self.sequence = 0

    @property
    def item_id(self) -> str:
        return f"msg_{self.reply.message_id}"

    def _item(self, parts: list[dict[str, Any]], status: str) -> dict[str, Any]:
        return {"type": "message", "id": self.item_id, "role": "assistant",
                "status": status, "content": parts}  # fmt: skip

    def response(
        self, parts: list[dict[str, Any]] | None, extras: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The ``response`` object: ``parts`` None while it is still in progress."""
        out: dict[str, Any] = {
            "id": f"resp_{self.reply.message_id}",
            "object": "response",
            "created_at": self.reply.created,
            "status": "in_progress" if parts is None else "completed",
            "model": self.reply.model,
            "instructions": self.instructions,
            "output": [] if parts is None else [self._item(parts, "completed")],
            "parallel_tool_calls": False,
            "tool_choice": "none",
            "tools": [],
            "error": None,
            "incomplete_details": None,
        }
        if parts is not None:
            prompt, completion = self.reply.usage("".join(p.get("text", "") for p in parts))
            out["usage"] = {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": completion,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + completion,
            }
            out.update(extras or {}, retrieval=self.reply.retrieval())
        return out

    def whole(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The non-streamed reply for ``/api/chat``'s JSON answer or refusal."""
        if payload.get("type") == "refusal":
            message = str(payload["message"])
            parts = [_text_part(message, []), _refusal_part(message)]
            return self.response(parts, {"refusal": _refusal_field(payload)})
        cited = Cited.build(str(payload["answer"]), payload)
        text = cited.text + cited.suffix(self.reply.sources_block)
        parts = [_text_part(text, output_text_annotations(cited, self.reply.base_url))]
        cites = citations_field(payload)
        return self.response(parts, {"citations": cites} if cites is not None else {})

    # -- streaming ------------------------------------------------------------------------
    def _event(self, kind: str, **fields: Any) -> bytes:
        self.sequence += 1
        return data({"type": kind, "sequence_number": self.sequence, **fields}, event=kind)

    def _at(self, index: int) -> dict[str, Any]:
        return {"item_id": self.item_id, "output_index": 0, "content_index": index}

    def start(self) -> bytes:
        return b"".join([
            self._event("response.created", response=self.response(None)),
            self._event("response.in_progress", response=self.response(None)),
            self._event("response.output_item.added", output_index=0,
                        item=self._item([], "in_progress")),
            self._event("response.content_part.added", **self._at(0), part=_text_part("", [])),
        ])  # fmt: skip

    def delta(self, text: str) -> bytes:
        self.text.append(text)
        return self._event("response.output_text.delta", **self._at(0), delta=text, logprobs=[])

    def _close_text(self, annotations: list[dict[str, Any]]) -> tuple[bytes, dict[str, Any]]:
        text = "".join(self.text)
        part = _text_part(text, annotations)
        out = [
            self._event("response.output_text.annotation.added", **self._at(0),
                        annotation_index=i, annotation=a)
            for i, a in enumerate(annotations)
        ]  # fmt: skip
        out.append(self._event("response.output_text.done", **self._at(0), text=text, logprobs=[]))
        out.append(self._event("response.content_part.done", **self._at(0), part=part))
        return b"".join(out), part

    def _complete(self, parts: list[dict[str, Any]], extras: dict[str, Any]) -> bytes:
        return b"".join([
            self._event("response.output_item.done", output_index=0,
                        item=self._item(parts, "completed")),
            self._event("response.completed", response=self.response(parts, extras)),
        ])  # fmt: skip

    def end(self) -> bytes:
        cited = Cited.build("".join(self.text), self.sources)
        suffix = cited.suffix(self.reply.sources_block)
        out = self.delta(suffix) if suffix else b""
        closed, part = self._close_text(output_text_annotations(cited, self.reply.base_url))
        cites = citations_field(self.sources)
        extras = {"citations": cites} if cites is not None else {}
        return out + closed + self._complete([part], extras)

    def refusal(self, payload: dict[str, Any]) -> bytes:
        message = str(payload["message"])
        out = [self.delta(message)]
        closed, part = self._close_text([])
        refusal = _refusal_part(message)
        out += [
            closed,
            self._event("response.content_part.added", **self._at(1), part=_refusal_part("")),
            self._event("response.refusal.delta", **self._at(1), delta=message),
            self._event("response.refusal.done", **self._at(1), refusal=message),
            self._event("response.content_part.done", **self._at(1), part=refusal),
            self._complete([part, refusal], {"refusal": _refusal_field(payload)}),
        ]
        return b"".join(out)

    def error(self, payload: dict[str, Any]) -> bytes:
        failed = {**self.response(None), "status": "failed", "error": payload}
        return b"".join([
            self._event("error", code=payload.get("code"), message=payload.get("message", ""),
                        param=None),
            self._event("response.failed", response=failed),
        ])  # fmt: skip
