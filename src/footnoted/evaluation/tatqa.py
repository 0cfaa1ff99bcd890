"""TAT-QA: questions over one annual-report page each, its table and the text around it.

Each context (a page: one table, first rows its headers, and the paragraphs around it)
is written as a Markdown document, the table as a Markdown table, into a collection of
its own, and each question is asked of its page's collection: the eval measures reading
a page (picking the table's row and column, quoting a cell rather than a heading), not
finding it among others. Only ``span`` and ``multi-span`` questions are graded
(arithmetic and count answers are no span of the page). For each: refused or not; the
answer holds every gold span (``holds``); the exact answer marked in it is a gold span
(EM and F1, SQuAD's definitions, over the answered); and the answer's length, so a
longer answer cannot pass for a better one.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Sequence
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

GRADED = ("span", "multi-span")


@dataclass(frozen=True, slots=True)
class TatQuestion:
    id: str
    question: str
    answers: tuple[str, ...]
    answer_type: str
    answer_from: str  # table, text or table-text


@dataclass(frozen=True, slots=True)
class Page:
    id: str
    markdown: str
    questions: tuple[TatQuestion, ...]


def read_pages(path: Path, pages: int | None = None) -> list[Page]:
    """TAT-QA's contexts as pages, each with its graded questions."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: list[Page] = []
    for i, context in enumerate(raw[:pages] if pages else raw):
        questions = tuple(
            TatQuestion(
                q["uid"],
                q["question"],
                tuple(str(a) for a in q["answer"] if str(a).strip()),
                q["answer_type"],
                q["answer_from"],
            )
            for q in context["questions"]
            if q["answer_type"] in GRADED
        )
        out.append(Page(context["table"]["uid"], page_markdown(i + 1, context), questions))
    return out


def page_markdown(number: int, context: dict[str, Any]) -> str:
    """The page as Markdown: its table (first row the header) and its paragraphs."""
    rows = [[_cell(c) for c in row] for row in context["table"]["table"]]
    width = max((len(r) for r in rows), default=0)
    lines = [f"# Annual report page {number}", ""]
    if rows and width:
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines.append("| " + " | ".join(rows[0]) + " |")
        lines.append("|" + " --- |" * width)
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        lines.append("")
    paragraphs = sorted(context["paragraphs"], key=lambda p: p["order"])
    lines += [f"{p['text'].strip()}\n" for p in paragraphs]
    return "\n".join(lines)


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


@dataclass(slots=True)
class Tally:
    questions: int = 0
    refused: int = 0
    holds: int = 0
    spans: int = 0  # answers with an exact answer marked
    em: float = 0.0
    f1: float = 0.0
    lengths: list[int] = field(default_factory=list)

    def row(self) -> dict[str, float | int | None]:
        answered = self.questions - self.refused
        return {
            "n": self.questions,
            "refused": m.rate(self.refused, self.questions),
            "holds": m.rate(self.holds, self.questions),
            "marked": m.rate(self.spans, answered),
            "em": self.em / self.spans if self.spans else None,
            "f1": self.f1 / self.spans if self.spans else None,
        }


@dataclass(slots=True)
class TatqaResult:
    info: RunInfo
    pages: int
    overall: Tally
    by_type: dict[str, Tally]
    by_source: dict[str, Tally]
    errors: int
    items: list[dict[str, Any]]

    def metrics(self) -> list[Metric]:
        t = self.overall
        answered = t.questions - t.refused
        return [
            Metric("span questions: answer holds every gold span", t.row()["holds"], t.questions),
            Metric("span questions: refused", t.row()["refused"], t.questions),
            Metric("answered: an exact answer is marked", t.row()["marked"], answered),
            Metric("marked exact answer: EM", t.row()["em"], t.spans),
            Metric("marked exact answer: F1", t.row()["f1"], t.spans),
        ]

    @property
    def median_length(self) -> float | None:
        """The answers' median length in characters, markers aside."""
        return statistics.median(self.overall.lengths) if self.overall.lengths else None

    def breakdowns(self) -> dict[str, dict[str, dict[str, float | int | None]]]:
        return {
            "answer type": {k: v.row() for k, v in sorted(self.by_type.items())},
            "answer from": {k: v.row() for k, v in sorted(self.by_source.items())},
        }


def run_tatqa(
    path: Path, pages: int | None = None, progress: ProgressFn | None = None
) -> TatqaResult:
    chosen = read_pages(path, pages)
    overall = Tally()
    by_type: dict[str, Tally] = {}
    by_source: dict[str, Tally] = {}
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
            for i, page in enumerate(chosen):
                file = root / "pages" / f"page-{i + 1}.md"
                file.parent.mkdir(exist_ok=True)
                file.write_text(page.markdown, encoding="utf-8")
                report = fn.ingest([file], collection=_collection(page))
                chunks, failed = chunks + report.chunks, failed + len(report.failed)
                if progress is not None:
                    progress("ingest", i + 1, len(chosen))
            ingested = time.perf_counter() - started
            asked = [(page, q) for page in chosen for q in page.questions]
            vectors = fn.embedder.embed([q.question for _, q in asked])
            started = time.perf_counter()
            for n, ((page, q), vector) in enumerate(zip(asked, vectors, strict=True), 1):
                vector_ = [float(x) for x in vector]
                question = Question(q.question, _collection(page), embedding=vector_)
                try:
                    result: AskResult | None = fn.answer(question)
                except FootnotedError:
                    result, errors = None, errors + 1
                item = _grade(q, result)
                items.append({"page": page.id, **item})
                for tally in (
                    overall,
                    by_type.setdefault(q.answer_type, Tally()),
                    by_source.setdefault(q.answer_from, Tally()),
                ):
                    _add(tally, item)
                if progress is not None:
                    progress("questions", n, len(asked))
            kb = KnowledgeBase(fn, {}, len(chosen), chunks, failed, loaded, ingested)
            info = kb.info(time.perf_counter() - started)
        finally:
            fn.close()
    return TatqaResult(info, len(chosen), overall, by_type, by_source, errors, items)


def _collection(page: Page) -> str:
    return f"tatqa-{page.id}"


def _grade(q: TatQuestion, result: AskResult | None) -> dict[str, Any]:
    answer = None if result is None else result.answer
    item: dict[str, Any] = {
        "id": q.id,
        "question": q.question,
        "type": q.answer_type,
        "from": q.answer_from,
        "gold": list(q.answers),
        "refused": answer is None,
        "answer": None if answer is None else answer.text,
    }
    if answer is None:
        return item
    item["holds"] = all(holds(_plain(answer.text), [_plain(a)]) for a in q.answers)
    marked = [answer.text[s.exact_start : s.exact_end] for s in answer.spans
              if s.exact_start is not None and s.exact_end is not None]  # fmt: skip
    if marked:
        exact = " ".join(marked)
        item["exact"] = exact
        item["em"] = m.exact_match(exact, _golds(q))
        item["f1"] = m.f1(exact, _golds(q))
    item["length"] = len(MARKER.sub("", answer.text).strip())
    return item


def _golds(q: TatQuestion) -> Sequence[str]:
    """A multi-span answer is graded as its spans together, in the order given."""
    return [" ".join(q.answers)] if q.answer_type == "multi-span" else list(q.answers)


def _plain(text: str) -> str:
    """Money and figures as compared: currency signs and thousands' spacing aside."""
    return text.replace("$", "").replace("€", "").replace("£", "")


def _add(tally: Tally, item: dict[str, Any]) -> None:
    tally.questions += 1
    if item["refused"]:
        tally.refused += 1
        return
    tally.holds += bool(item.get("holds"))
    tally.lengths.append(int(item["length"]))
    if "exact" in item:
        tally.spans += 1
        tally.em += float(item["em"])
        tally.f1 += float(item["f1"])
