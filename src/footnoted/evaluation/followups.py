"""``footnoted eval followups``: do follow-up questions cite the right passage?

The set (``tests/data/followups.jsonl``) holds hand-written two- and three-turn
conversations over the repository's ``samples/`` and the SQuAD 2.0 dev articles. Each
turn names the verbatim ``evidence`` that answers it (or ``null``: the documents do not
answer it, so it must be refused). A turn counts as cited right when some citation its
answer refers to contains the evidence (whitespace aside). Every conversation is asked
turn by turn, with the conversation so far (``--no-context``: each turn on its own), in
whatever mode the settings pick (``FOOTNOTED_GENERATION_MODE``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..answering.conversation import Conversation, Exchange
from ..answering.pipeline import AskResult
from ..answering.question import Question
from ..errors import FootnotedError, InvalidInput
from . import metrics as m
from .datasets import read_squad
from .runners import KnowledgeBase, Metric, ProgressFn, RunInfo, knowledge_base, squad_documents

KINDS = ("elliptical", "pronoun", "standalone", "unanswerable")


@dataclass(frozen=True, slots=True)
class Turn:
    question: str
    evidence: str | None  # None: the documents do not answer it


@dataclass(frozen=True, slots=True)
class FollowupCase:
    id: str
    kb: str  # "samples" or "squad-dev"
    kind: str
    turns: tuple[Turn, ...]


def read_followups(path: Path) -> list[FollowupCase]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            turns = tuple(Turn(t["question"], t["evidence"]) for t in row["turns"])
            out.append(FollowupCase(row["id"], row["kb"], row["kind"], turns))
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path}:{n} is not a follow-up conversation ({exc}).") from exc
    return out


def kb_documents(kb: str, samples: Path, squad: Path) -> dict[str, tuple[str, str]]:
    if kb == "samples":
        files = sorted(p for p in samples.iterdir() if p.is_file())
        return {p.name: (p.name, p.read_text(encoding="utf-8")) for p in files}
    if kb == "squad-dev":
        return squad_documents(read_squad(squad))
    raise InvalidInput(f"Unknown knowledge base {kb!r} (samples or squad-dev).")


@dataclass
class FollowupResult:
    info: RunInfo
    context: bool  # asked with the conversation so far
    conversations: int
    first_turns: int
    first_cited: int
    followups: dict[str, int] = field(default_factory=dict)  # later turns per kind
    followups_right: dict[str, int] = field(default_factory=dict)  # cited right / refused
    items: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def metrics(self) -> list[Metric]:
        def row(name: str, kinds: Sequence[str]) -> Metric:
            n = sum(self.followups.get(k, 0) for k in kinds)
            return Metric(name, m.rate(sum(self.followups_right.get(k, 0) for k in kinds), n), n)

        answerable = [k for k in KINDS if k != "unanswerable"]
        return [
            row("follow-ups citing the right passage", answerable),
            *(row(f"  {k}", [k]) for k in answerable),
            row("unanswerable follow-ups refused", ["unanswerable"]),
            Metric(
                "first turns citing the right passage",
                m.rate(self.first_cited, self.first_turns),
                self.first_turns,
            ),
        ]


def cited_right(kb: KnowledgeBase, turn: Turn, reply: AskResult | None) -> bool:
    """Answered citing the evidence, or (no evidence) refused."""
    if turn.evidence is None:
        return reply is None or reply.refused
    if reply is None or reply.refused:
        return False
    want = m.collapse(turn.evidence)
    return any(want in m.collapse(text) for _, text in kb.referenced(reply))


def run_followups(
    path: Path,
    samples: Path,
    squad: Path,
    context: bool = True,
    progress: ProgressFn | None = None,
) -> FollowupResult:
    conversations = read_followups(path)
    turns_total = sum(len(c.turns) for c in conversations)
    infos: list[RunInfo] = []
    asked = 0
    items: list[dict[str, Any]] = []
    firsts = first_right = 0
    kinds: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for kb_name in sorted({c.kb for c in conversations}):
        with knowledge_base(kb_documents(kb_name, samples, squad), progress) as kb:
            kb.fn.warm_up()
            started = time.perf_counter()
            for conv in (c for c in conversations if c.kb == kb_name):
                history: list[Exchange] = []
                for i, turn in enumerate(conv.turns):
                    reply = _ask(kb, turn.question, history if context else ())
                    ok = cited_right(kb, turn, reply)
                    if i == 0:
                        firsts += 1
                        first_right += ok
                    else:
                        kind = "unanswerable" if turn.evidence is None else conv.kind
                        kinds[kind] += 1
                        right[kind] += ok
                    answer = reply.answer.text if reply and reply.answer else ""
                    items.append({
                        "id": conv.id, "turn": i, "kind": conv.kind, "question": turn.question,
                        "right": ok, "refused": reply is None or reply.refused,
                        "standalone_question": reply.info.get("standalone_question")
                        if reply else None,
                        "answer": answer,
                    })  # fmt: skip
                    history.append(Exchange(turn.question, answer))
                    asked += 1
                    if progress is not None:
                        progress("questions", asked, turns_total)
            infos.append(kb.info(time.perf_counter() - started))
    if not infos:
        raise InvalidInput(f"{path} holds no conversations.")
    info = replace(
        infos[-1],
        documents=sum(i.documents for i in infos),
        chunks=sum(i.chunks for i in infos),
        failed_files=sum(i.failed_files for i in infos),
        model_seconds=round(sum(i.model_seconds for i in infos), 3),
        ingest_seconds=round(sum(i.ingest_seconds for i in infos), 3),
        ask_seconds=round(sum(i.ask_seconds for i in infos), 3),
    )
    return FollowupResult(
        info, context, len(conversations), firsts, first_right, dict(kinds), dict(right), items
    )


def _ask(kb: KnowledgeBase, question: str, history: Sequence[Exchange]) -> AskResult | None:
    try:
        return kb.fn.answer(Question(question, conversation=Conversation(tuple(history))))
    except FootnotedError:
        return None
