"""One chat request: claim its id, answer (JSON or SSE) or replay, store the reply.

The claim on ``(user, message_id)`` is a database row (primary key), taken in one
transaction: concurrent duplicates see ``busy`` (409), a finished one is replayed
without generating again, and the same id with another message is refused (422). The
question and its reply are stored in one transaction before ``answer_end`` is sent.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..answering.citations import Answer, escape_markdown_html
from ..answering.conversation import Conversation, Exchange, exchanges
from ..answering.llm.client import GenerationInterrupted
from ..answering.pipeline import Fold
from ..answering.question import Question
from ..errors import Conflict, FootnotedError, InvalidInput
from ..models import Delta, Done, Event, Failed, Refusal, Sources, Started
from ..records import Claim, Message, NewMessage, Origin, RefusalEntry, User
from ..service.facade import Footnoted
from ..service.titles import session_title
from ..settings import CollectionSettings
from .links import Links
from .schemas import ChatRequest
from .sse import Bridge
from .wire import answer_payload, refusal_payload

log = logging.getLogger("footnoted.api")

BOOT = uuid.uuid4().hex[:12]
OWNER = f"{os.getpid()}:{BOOT}"
STALE_CLAIM_S = 300.0


def claim_is_stale(owner: str, claimed_at: float) -> bool:
    """An in-progress claim whose process is gone (or that is very old) was abandoned."""
    pid_text, _, boot = owner.partition(":")
    if time.time() - claimed_at > STALE_CLAIM_S:
        return True
    try:
        pid = int(pid_text)
    except ValueError:
        return True
    if pid == os.getpid():
        return boot != BOOT  # an earlier process that had our pid
    return not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs. A killed worker whose parent died too stays a
    zombie where nothing reaps orphans (a container without an init): that is gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()  # its name may be any bytes
    except (FileNotFoundError, ProcessLookupError):  # reaped before or while read
        return not Path("/proc/self/stat").exists()  # unless there is no /proc
    except OSError:
        return True
    state = stat.rpartition(b")")[2].split()[:1]
    return state not in ([b"Z"], [b"X"])


def session_turns(messages: Sequence[Message]) -> tuple[Exchange, ...]:
    """A session's stored messages as conversation turns (a refusal is no answer)."""
    return exchanges((m.role, "" if m.type == "refusal" else m.content) for m in messages)


@dataclass(frozen=True, slots=True)
class Turn:
    """Everything one new chat request needs once its id is claimed."""

    user: User
    request: ChatRequest
    question: Question  # resolved: its collection and settings named
    session_id: str
    info: dict[str, Any] = field(default_factory=dict)  # retrieval: collection, duration_ms, …

    @property
    def collection(self) -> str:
        return self.question.where

    @property
    def config(self) -> CollectionSettings:
        return self.question.config

    @property
    def ids(self) -> dict[str, str]:
        return {"session_id": self.session_id, "message_id": self.request.message_id}


class ChatService:
    def __init__(self, service: Footnoted, links: Links, pace_s: float, answering: int) -> None:
        self.service = service
        self.store = service.store
        self.links = links
        self.pace_s = pace_s
        # Retrieval and the extractive answer are CPU work that holds the GIL most of the
        # time: more of them at once than cores only makes each wait longer for the GIL.
        self.answering = threading.BoundedSemaphore(answering)

    # -- before answering -----------------------------------------------------------------
    def prepare(
        self, user: User, request: ChatRequest, origin: Origin, title: str | None = None
    ) -> tuple[Claim, Turn]:
        """Validate, then claim the message id (raises 404/409/422 as the contract says);
        a new session is marked with the ``origin`` it began in and titled by ``title``
        (by default the message)."""
        collection = request.collection or self.service.settings.collection
        config = self.service.collection_settings(collection)
        dim = self.service.embedder.dim
        if request.embedding is not None and len(request.embedding) != dim:
            raise InvalidInput(
                f"embedding has {len(request.embedding)} dimensions; the model makes {dim}.",
                code="embedding_dimension_mismatch",
            )
        claim = self.store.claim_chat(
            user.id,
            request.message_id,
            request.message,
            request.session_id,
            session_title(title or request.message),
            OWNER,
            claim_is_stale,
            origin,
        )
        if claim.outcome == "mismatch":
            raise InvalidInput(
                f"message_id {request.message_id!r} was already used for another message.",
                code="message_id_reused",
            )
        if claim.outcome == "busy":
            raise Conflict(
                f"Message {request.message_id!r} is being answered right now.",
                code="duplicate_in_progress",
            )
        conversation = Conversation()
        if request.session_id is not None:
            turns = session_turns(self.store.session_messages(user.id, claim.session_id))
            conversation = Conversation(turns)
        question = Question(
            request.message,
            collection,
            config,
            embedding=request.embedding,
            conversation=conversation,
            citations=request.include_citations,
        )
        return claim, Turn(user, request, question, claim.session_id)

    def release(self, turn: Turn) -> None:
        self.store.release_chat(turn.user.id, turn.request.message_id, OWNER)

    # -- JSON -------------------------------------------------------------------------------
    def answer_json(self, turn: Turn) -> dict[str, Any]:
        """Answer in one piece and store it; returns the response body."""
        req = turn.request
        try:
            with self.answering:
                result = self.service.answer(turn.question)
        except BaseException:
            self.release(turn)
            raise
        turn.info.update(result.info)
        if result.refusal is not None:
            return self.store_refusal(turn, result.refusal)
        assert result.answer is not None
        a = result.answer
        if result.failed is not None:
            self.store_incomplete(turn, a.text, result.warning)
            raise GenerationInterrupted(result.failed.message, code=result.failed.code)
        cite = req.include_citations and result.cite
        mode = turn.config.citation_link_mode
        linked = Answer(
            a.text,
            self.links.decorate(a.citations, mode, turn.user.token_id),
            a.referenced,
            a.spans,
            a.grounding,
        )
        payload = answer_payload(
            linked,
            include_citations=cite,
            warning=result.warning,
            notice=result.notice,
            **turn.ids,
        )
        self.store_answer(turn, payload)
        return payload

    # -- storing ----------------------------------------------------------------------------
    def store_refusal(self, turn: Turn, refusal: Refusal) -> dict[str, Any]:
        turn.info.update(refusal.retrieval or {})  # refused before any answer started
        payload = {**refusal_payload(refusal), **turn.ids}
        kept = ("suggestions", "evidence", "elsewhere")
        shown: dict[str, Any] = {k: payload[k] for k in kept if k in payload}
        reply = NewMessage("assistant", "refusal", refusal.message, refusal=shown)
        entry = self.service.refusal_entry(turn.request.message, turn.collection, refusal)
        self._complete(turn, reply, payload, entry)
        return payload

    def store_answer(
        self, turn: Turn, payload: dict[str, Any], cancelled: Callable[[], bool] | None = None
    ) -> bool:
        cited = "citations" in payload
        read_as = turn.info.get("standalone_question")  # shown again with the answer
        reply = NewMessage(
            "assistant",
            "answer",
            str(payload["answer"]),
            payload.get("citations") if cited else None,
            payload.get("referenced_indices") if cited else None,
            payload.get("spans") if cited else None,
            payload.get("grounding") if cited else None,
            bool(payload.get("incomplete")),
            read_as=read_as if isinstance(read_as, str) else None,
        )
        return self._complete(turn, reply, payload, None, cancelled)

    def store_incomplete(self, turn: Turn, text: str, warning: str | None) -> bool:
        """Keep a partial answer in history, marked incomplete (generation broke off)."""
        payload = answer_payload(
            Answer(text, (), (), ()), include_citations=False, warning=warning, **turn.ids
        )
        payload.update(answer=text, answer_markdown=escape_markdown_html(text), incomplete=True)
        return self.store_answer(turn, payload)

    def _complete(
        self,
        turn: Turn,
        reply: NewMessage,
        payload: dict[str, Any],
        refusal: RefusalEntry | None,
        cancelled: Callable[[], bool] | None = None,
    ) -> bool:
        question = NewMessage("user", "question", turn.request.message)
        return self.store.complete_chat(
            turn.user.id,
            turn.request.message_id,
            turn.session_id,
            (question, reply),
            payload,
            refusal,
            cancelled or (lambda: False),
            collection=turn.collection,
        )

    # -- SSE --------------------------------------------------------------------------------
    def first_event(self, turn: Turn) -> tuple[Event, Generator[Event, None, None]]:
        """Run retrieval and the evidence check: a ``Refusal`` here is answered as JSON."""
        events = self.service.ask(turn.question)
        try:
            with self.answering:  # in llm mode: retrieval and the evidence check
                return next(events), events
        except BaseException:
            events.close()
            self.release(turn)
            raise

    def stream(
        self, turn: Turn, first: Event, events: Generator[Event, None, None], bridge: Bridge
    ) -> None:
        """Worker thread: send the events as frames, store the answer before answer_end."""
        stored = False
        try:
            stored = self._stream(turn, itertools.chain([first], events), bridge)
        except FootnotedError as exc:
            bridge.put(Failed(exc.code, exc.message))
        except Exception:
            log.exception("chat stream failed")
            bridge.put(Failed("internal_error", "The answer failed."))
        finally:
            events.close()  # stops the generator (and whatever it was waiting on)
            if not stored:
                self.release(turn)
            bridge.close()

    def _stream(self, turn: Turn, events: Iterator[Event], bridge: Bridge) -> bool:
        fold = Fold()
        for event in events:
            if bridge.cancelled.is_set():
                return False
            pause = isinstance(event, Delta) and fold.parts and self.pace_s
            if pause and bridge.cancelled.wait(self.pace_s):
                return False
            if isinstance(event, Sources):
                decorated = self.links.decorate(
                    event.citations, turn.config.citation_link_mode, turn.user.token_id
                )
                event = replace(event, citations=decorated)
            fold.feed(event)
            match event:
                case Started():
                    turn.info.update(event.retrieval or {})
                case Refusal():
                    self.store_refusal(turn, event)
                case Failed():
                    stored = bool(fold.parts) and self.store_incomplete(
                        turn, fold.text, fold.start.warning
                    )
                    bridge.put(event)
                    return stored
                case Done():
                    payload = answer_payload(
                        fold.answer(),
                        include_citations=fold.cited,
                        warning=fold.start.warning,
                        notice=fold.notice,
                        **turn.ids,
                    )
                    if not self.store_answer(turn, payload, bridge.cancelled.is_set):
                        return False
            bridge.put(event)
            if isinstance(event, (Refusal, Done)):
                return True
        return False
