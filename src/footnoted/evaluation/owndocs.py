"""Evals whose questions are each asked of one document alone (TAT-QA's report pages,
PolicyQA's privacy policies, ConditionalQA's gov.uk pages): every document is written as
Markdown into a collection of its own, and each question is asked there, so the eval
measures reading a document (the right row, clause or condition; a value rather than a
heading), not finding it among others. What every such eval grades is here: refused or
not; the answer holds the gold answer; it quotes the gold passage; the exact answer it
marks is a gold answer (EM and F1, SQuAD's definitions, over the answers that mark one);
and the answer's length, so a longer answer cannot pass for a better one.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..answering.question import Question
from ..errors import FootnotedError
from ..lexical import MARKER
from ..service.facade import AskResult, Footnoted
from ..settings import Settings
from . import metrics as m
from .realdocs import holds
from .runners import KnowledgeBase, Metric, ProgressFn, RunInfo


@dataclass(frozen=True, slots=True)
class OwnQuestion:
    id: str
    question: str
    answers: tuple[str, ...]  # what the answer must hold (all of them); empty: not graded so
    golds: tuple[str, ...]  # what a marked exact answer is compared with (EM, F1)
    passages: tuple[str, ...]  # the gold passage(s) the answer should quote; may be empty
    groups: dict[str, str]  # breakdowns: {"answer type": "span", …}


@dataclass(frozen=True, slots=True)
class OwnDocument:
    id: str
    markdown: str
    questions: tuple[OwnQuestion, ...]


@dataclass(slots=True)
class Tally:
    questions: int = 0
    refused: int = 0
    graded: int = 0  # questions with answers to hold
    holds: int = 0
    with_passage: int = 0  # answered questions with a gold passage
    quotes_passage: int = 0
    spans: int = 0  # answers with an exact answer marked
    em: float = 0.0
    f1: float = 0.0
    lengths: list[int] = field(default_factory=list)

    def add(self, item: dict[str, Any]) -> None:
        self.questions += 1
        self.graded += "holds" in item or (item["refused"] and bool(item["gold"]))
        if item["refused"]:
            self.refused += 1
            return
        self.holds += bool(item.get("holds"))
        if "quotes_passage" in item:
            self.with_passage += 1
            self.quotes_passage += bool(item["quotes_passage"])
        self.lengths.append(int(item["length"]))
        if "exact" in item:
            self.spans += 1
            self.em += float(item["em"])
            self.f1 += float(item["f1"])

    def row(self) -> dict[str, float | int | None]:
        answered = self.questions - self.refused
        return {
            "n": self.questions,
            "refused": m.rate(self.refused, self.questions),
            "holds": m.rate(self.holds, self.graded),
            "quotes passage": m.rate(self.quotes_passage, self.with_passage),
            "marked": m.rate(self.spans, answered),
            "em": self.em / self.spans if self.spans else None,
            "f1": self.f1 / self.spans if self.spans else None,
        }


@dataclass(slots=True)
class OwnDocsResult:
    info: RunInfo
    documents: int
    unit: str  # what a document is: "pages", "policies"
    overall: Tally
    by: dict[str, dict[str, Tally]]
    errors: int
    items: list[dict[str, Any]]

    @property
    def pages(self) -> int:
        return self.documents

    @property
    def by_type(self) -> dict[str, Tally]:
        return self.by.get("answer type", {})

    def metrics(self) -> list[Metric]:
        t, row = self.overall, self.overall.row()
        return [
            Metric("answer holds the gold answer", row["holds"], t.graded),
            Metric("refused (every question has an answer)", row["refused"], t.questions),
            Metric("answered: quotes the gold passage", row["quotes passage"], t.with_passage),
            Metric("answered: an exact answer is marked", row["marked"], t.questions - t.refused),
            Metric("marked exact answer: EM", row["em"], t.spans),
            Metric("marked exact answer: F1", row["f1"], t.spans),
        ]

    @property
    def median_length(self) -> float | None:
        """The answers' median length in characters, markers aside."""
        return statistics.median(self.overall.lengths) if self.overall.lengths else None

    def breakdowns(self) -> dict[str, dict[str, dict[str, float | int | None]]]:
        return {by: {k: v.row() for k, v in sorted(t.items())} for by, t in self.by.items()}


Plain = Callable[[str], str]


def run_own_documents(
    prefix: str,
    unit: str,
    documents: Sequence[OwnDocument],
    progress: ProgressFn | None = None,
    plain: Plain = lambda text: text,
) -> OwnDocsResult:
    """Each document in a collection of its own (``prefix-ID``), each question asked
    there; ``plain`` puts answer and gold alike in the form they are compared in."""
    overall, by = Tally(), dict[str, dict[str, Tally]]()
    items: list[dict[str, Any]] = []
    errors = 0
    with tempfile.TemporaryDirectory(prefix="footnoted-eval-") as tmp:
        root = Path(tmp)
        fn = Footnoted(Settings(home=root / "home"))
        try:
            started = time.perf_counter()
            fn.warm_up(ingest=True)
            loaded = time.perf_counter() - started
            started = time.perf_counter()
            chunks = failed = 0
            for i, doc in enumerate(documents):
                file = root / "documents" / f"{prefix}-{i + 1}.md"
                file.parent.mkdir(exist_ok=True)
                file.write_text(doc.markdown, encoding="utf-8")
                report = fn.ingest([file], collection=f"{prefix}-{i + 1}")
                chunks, failed = chunks + report.chunks, failed + len(report.failed)
                if progress is not None:
                    progress("ingest", i + 1, len(documents))
            ingested = time.perf_counter() - started
            asked = [(i, d, q) for i, d in enumerate(documents, 1) for q in d.questions]
            vectors = fn.embedder.embed([q.question for _, _, q in asked])
            started = time.perf_counter()
            for n, ((i, doc, q), vector) in enumerate(zip(asked, vectors, strict=True), 1):
                embedding = [float(x) for x in vector]
                question = Question(q.question, f"{prefix}-{i}", embedding=embedding)
                try:
                    result: AskResult | None = fn.answer(question)
                except FootnotedError:
                    result, errors = None, errors + 1
                item = {"document": doc.id, **grade(q, result, plain)}
                items.append(item)
                overall.add(item)
                for name, value in q.groups.items():
                    by.setdefault(name, {}).setdefault(value, Tally()).add(item)
                if progress is not None:
                    progress("questions", n, len(asked))
            kb = KnowledgeBase(fn, {}, len(documents), chunks, failed, loaded, ingested)
            info = kb.info(time.perf_counter() - started)
        finally:
            fn.close()
    return OwnDocsResult(info, len(documents), unit, overall, by, errors, items)


def grade(q: OwnQuestion, result: AskResult | None, plain: Plain) -> dict[str, Any]:
    answer = None if result is None else result.answer
    item: dict[str, Any] = {
        "id": q.id,
        "question": q.question,
        **q.groups,
        "gold": list(q.answers),
        "refused": answer is None,
        "answer": None if answer is None else answer.text,
    }
    if answer is None:
        return item
    text = MARKER.sub(" ", answer.text)
    if q.answers:
        item["holds"] = all(holds(plain(text), [plain(a)]) for a in q.answers)
    if q.passages:
        item["quotes_passage"] = quotes_passage(answer.text, q.passages)
    marked = [answer.text[s.exact_start : s.exact_end] for s in answer.spans
              if s.exact_start is not None and s.exact_end is not None]  # fmt: skip
    if marked and q.golds:
        exact = " ".join(marked)
        item["exact"] = exact
        item["em"] = m.exact_match(exact, q.golds)
        item["f1"] = m.f1(exact, q.golds)
    item["length"] = m.answer_length(answer.text)
    return item


def quotes_passage(answer: str, passages: Sequence[str]) -> bool:
    """Whether the answer's first quote (its text up to the first ``[N]``) is part of a
    gold passage (or holds one whole): the answer rests on the passage that holds it."""
    first = next((piece.strip() for piece in MARKER.split(answer) if piece.strip()), "")
    if not first:
        return False
    return any(holds(p, [first]) or (len(p) >= 20 and holds(first, [p])) for p in passages)
