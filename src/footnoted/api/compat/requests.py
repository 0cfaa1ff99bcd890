"""OpenAI request bodies (Chat Completions, Responses) and what footnoted makes of them.

``model`` names a collection; the question is the last user message's text, read with
the messages before it (``conversation``). ``system``/``developer`` messages and
``instructions`` reach the model in LLM mode and are ignored by extractive answers.
Sampling settings (``temperature``, ``top_p``, ``max_tokens``, ``seed``…) are accepted
and not used: the collection's settings decide how footnoted answers. What footnoted
cannot honour (more than one choice, tools, a JSON or audio reply, log probabilities,
stored responses) is a 400 naming the parameter.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...answering.conversation import Conversation, exchanges
from ...errors import BadRequest, InvalidInput, NotFound
from ..schemas import ChatRequest
from .cited import without_sources

TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
NO_TOOLS = "footnoted answers from your documents and calls no tools."
Rule = tuple[Callable[[Any], bool], str]


def _given(value: Any) -> bool:
    return value is not None


def _not_text(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type", "text") != "text"


CHAT_RULES: dict[str, Rule] = {
    "n": (lambda v: v not in (None, 1), "footnoted gives one answer per question: n must be 1."),
    "tools": (bool, NO_TOOLS),
    "functions": (bool, NO_TOOLS),
    "tool_choice": (lambda v: v not in (None, "none", "auto"), NO_TOOLS),
    "function_call": (lambda v: v not in (None, "none", "auto"), NO_TOOLS),
    "response_format": (_not_text, "footnoted replies with cited text: only type text."),
    "logprobs": (bool, "footnoted does not report log probabilities."),
    "top_logprobs": (_given, "footnoted does not report log probabilities."),
    "audio": (_given, "footnoted replies with text only."),
    "modalities": (lambda v: v not in (None, ["text"]), "footnoted replies with text only."),
    "prediction": (_given, "footnoted does not take predicted outputs."),
}
RESPONSES_RULES: dict[str, Rule] = {
    "tools": (bool, NO_TOOLS),
    "tool_choice": (lambda v: v not in (None, "none", "auto"), NO_TOOLS),
    "previous_response_id": (
        _given,
        "footnoted keeps no responses by id: send the conversation as a list in input.",
    ),
    "conversation": (_given, "footnoted keeps no conversations: send them as input."),
    "prompt": (_given, "footnoted has no stored prompts."),
    "background": (bool, "footnoted answers in the foreground only."),
    "include": (bool, "footnoted has no extra output to include."),
    "top_logprobs": (_given, "footnoted does not report log probabilities."),
    "text": (
        lambda v: isinstance(v, dict) and _not_text(v.get("format")),
        "footnoted replies with cited text: text.format must be of type text.",
    ),
}


class V1Message(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class V1Request(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens… are accepted, unused

    model: str = Field(min_length=1, max_length=200, description="The collection to ask.")
    stream: bool = False
    sources_block: bool = Field(
        default=True, description="End the text with the Sources block (false: leave it out)."
    )


class CompletionRequest(V1Request):
    messages: list[V1Message] = Field(min_length=1)
    stream_options: StreamOptions | None = None


class ResponsesRequest(V1Request):
    input: str | list[dict[str, Any]] = Field(description="A question, or a list of messages.")
    instructions: str | None = None


def check_supported(body: BaseModel, rules: dict[str, Rule]) -> None:
    """A 400 naming the first parameter footnoted cannot honour."""
    given = {**body.model_dump(exclude_unset=True), **(body.model_extra or {})}
    for name, (unsupported, reason) in rules.items():
        if unsupported(given.get(name)):
            raise BadRequest(f"{name} is not supported: {reason}", param=name)


def check_model(model: str, known: Iterable[str]) -> None:
    """An unknown model is OpenAI's 404 ``model_not_found``, never a new collection."""
    names = sorted(known)
    if model not in names:
        raise NotFound(
            f"The model {model!r} does not exist. footnoted's models are its collections: "
            f"{', '.join(names)} (GET /v1/models lists them).",
            code="model_not_found",
            param="model",
        )


def conversation(
    messages: list[V1Message], param: str, instructions: str | None = None
) -> Conversation:
    """The turns before the last user message (each user message with the assistant reply
    after it, less the Sources block footnoted ended it with) and the client's
    instructions (``system``/``developer`` messages, then ``instructions``)."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=0)
    said = (
        (m.role, without_sources(_text(m, param)) if m.role == "assistant" else _text(m, param))
        for m in messages[:last]
    )
    turns = exchanges(said)
    told = [_text(m, param) for m in messages if m.role in ("system", "developer")]
    return Conversation(turns, "\n\n".join([*told, instructions or ""]).strip())


def input_messages(body: ResponsesRequest) -> list[V1Message]:
    """The Responses ``input`` as messages (a string is one user message)."""
    if isinstance(body.input, str):
        return [V1Message(role="user", content=body.input)]
    messages = []
    for item in body.input:
        if item.get("type", "message") != "message" or "role" not in item:
            raise BadRequest(
                f"input items of type {item.get('type')!r} are not supported: send messages.",
                param="input",
            )
        messages.append(V1Message.model_validate(item))
    return messages


def _text(message: V1Message, param: str) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = message.content or []
    for part in parts:
        if part.get("type") not in TEXT_PARTS:
            raise BadRequest(
                f"{part.get('type')!r} content is not supported: footnoted reads text only.",
                param=param,
            )
    return "".join(str(p.get("text", "")) for p in parts)


def first_question(messages: list[V1Message], param: str) -> str | None:
    """The conversation's first user message that says something: what its session is
    titled by (a follow-up such as "And in 2020?" names nothing in a history list)."""
    asked = (_text(m, param).strip() for m in messages if m.role == "user")
    return next((text for text in asked if text), None)


def chat_request(model: str, messages: list[V1Message], param: str) -> ChatRequest:
    """``/api/chat``'s request for the last user message, over collection ``model``."""
    last = next((m for m in reversed(messages) if m.role == "user"), None)
    question = "" if last is None else _text(last, param)
    try:
        return ChatRequest(message=question, message_id=uuid.uuid4().hex, collection=model)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"])
        raise InvalidInput(
            f"The last user message is not a valid question ({where}: {exc.errors()[0]['msg']}).",
            code="invalid_messages",
            param=param,
        ) from exc
