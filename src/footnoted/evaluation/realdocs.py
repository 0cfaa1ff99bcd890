"""``footnoted eval docs``: answers over real documents, as people upload them.

The knowledge base is a folder of real files (reports, papers, manuals, policies,
spreadsheets, slides, mail: ``../shared/data``), ingested through the normal path. The
questions are a JSONL file written by hand by reading those documents (one object a line):

``{"id", "question", "answer", "doc", "pages" | "section", "kind", "split", "note"}``

``answer`` is the string (or a list of alternatives) a right answer must contain, or
null when the documents do not answer the question; ``doc`` the file it is in, relative
to the data folder; ``pages`` its 1-based physical pages (PDF, slides) or ``section`` the
heading (sheet, e-mail subject) it is written under; ``kind`` one of :data:`KINDS`;
``split`` ``tune`` or ``report``: fixed once, before anything was tuned, so that the
``report`` half is evidence.

Per question it records whether the answer holds the right fact, whether an answer's
citation names the right page or section, whether the passages read held the right
place at all (``found``: a wrong answer is then a reading miss, else a retrieval miss),
whether an unanswerable question was refused, and whether a wrong answer was shown as
grounded. Every number is reported overall, per kind, per file format and per split,
with the answers' median length in characters (``chars``; citation markers aside): the
right fact is a gold string the answer contains, which a longer answer contains more
often, so a change that lifts it is read with what it did to the length.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..lexical import MARKER
from ..models import ATTACHMENT_MARK, Citation
from ..service.facade import AskResult, Footnoted
from ..settings import Settings
from . import metrics as m
from .runners import KnowledgeBase, Metric, ProgressFn, RunInfo, _ask

KINDS = ("number", "fact", "definition", "why-how", "unanswerable")
SPLITS = ("tune", "report")
FOLDERS = ("pdfs", "pdfs-more", "html", "docs-more")  # the real documents under the data folder
SKIPPED_NAMES = frozenset({"SOURCES.md", "README.md"})  # a folder's notes about its files
_PLAIN = str.maketrans({"\ufffe": None, "\u00ad": None, "’": "'", "‘": "'", "“": "'", "”": "'",
                        '"': "'", "–": "-", "—": "-"})  # fmt: skip
GROUNDED = 0.5  # confidence at or above which an answer without a label shows as grounded


@dataclass(frozen=True, slots=True)
class DocQuestion:
    id: str
    question: str
    answers: tuple[str, ...]  # empty: the documents do not answer it
    doc: str
    pages: tuple[int, ...]
    section: str | None
    kind: str
    split: str

    @property
    def answerable(self) -> bool:
        return bool(self.answers)

    @property
    def format(self) -> str:
        return Path(self.doc).suffix.lower().lstrip(".") or "text"


def read_questions(path: Path) -> list[DocQuestion]:
    """The questions of a JSONL file; ``InvalidInput`` naming the line that is wrong."""
    out: list[DocQuestion] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(_question(json.loads(line)))
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path}:{n}: not a question of eval docs ({exc}).") from exc
    return out


def _question(row: dict[str, Any]) -> DocQuestion:
    answer = row["answer"]
    answers = tuple(answer) if isinstance(answer, list) else (() if answer is None else (answer,))
    if row["kind"] not in KINDS or row["split"] not in SPLITS:
        raise ValueError(f"kind must be one of {KINDS}, split one of {SPLITS}")
    if (row["kind"] == "unanswerable") == bool(answers):
        raise ValueError("an unanswerable question has a null answer, and only it")
    return DocQuestion(
        str(row["id"]),
        str(row["question"]),
        tuple(str(a) for a in answers),
        str(row["doc"]),
        tuple(int(p) for p in row.get("pages") or ()),
        row.get("section"),
        row["kind"],
        row["split"],
    )


def fold(text: str, markers: bool = False) -> str:
    """Text as compared: Unicode-normalised, hyphenation marks and citation markers gone
    (kept where ``markers``), every quotation mark one, dashes plain, case and
    whitespace folded."""
    plain = unicodedata.normalize("NFKC", text).translate(_PLAIN)
    return m.collapse(plain).lower() if markers else m.normalize(plain)


def holds(text: str, answers: Sequence[str]) -> bool:
    """Whether ``text`` holds one of the ``answers``: past the answer's citation markers,
    or as written where the answer is itself written like one ("[10, 400]")."""
    haystack, written = fold(text), fold(text, markers=True)
    return any(
        (fold(a) and fold(a) in haystack) or (MARKER.search(a) and fold(a, markers=True) in written)
        for a in answers
    )


# -- one question -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one question's answer was, measured."""

    refused: bool
    right_fact: bool  # answerable: the answer's text holds the gold answer
    right_place: bool  # answerable: a citation the answer refers to is on the gold page/section
    found: bool  # answerable: a passage read (from the gold document) holds the gold answer
    grounded: bool  # shown as grounded
    wrong_grounded: bool  # shown as grounded, and wrong (or not to be answered at all)


def judge(q: DocQuestion, result: AskResult | None, doc_of: dict[str, str]) -> Verdict:
    refused = result is None or result.refused
    answer = None if result is None else result.answer
    text = "" if answer is None or refused else answer.text
    cited = [] if answer is None or refused else referenced(answer.citations, answer.referenced)
    read = [] if result is None else [r.hit.chunk for r in result.read]
    right_fact = q.answerable and not refused and holds(text, q.answers)
    right_place = q.answerable and any(_at_place(q, c, doc_of) for c in cited)
    found = q.answerable and any(
        doc_of.get(c.document_id) == q.doc and holds(c.text, q.answers) for c in read
    )
    grounded = not refused and shown_grounded(result)
    wrong = grounded and (not q.answerable or not right_fact)
    return Verdict(refused, right_fact, right_place, found, grounded, wrong)


def shown_grounded(result: AskResult | None) -> bool:
    """Whether the answer is shown as grounded: its ``grounding.label``, else its
    calibrated confidence at or above :data:`GROUNDED`."""
    if result is None or result.answer is None or not result.answer.grounding:
        return False
    grounding = result.answer.grounding
    label = grounding.get("label")
    if isinstance(label, str):
        return label == "grounded"
    return float(grounding.get("confidence", 0.0)) >= GROUNDED


def referenced(citations: Sequence[Citation], used: Sequence[int]) -> list[Citation]:
    """The citations an answer's markers refer to."""
    wanted = set(used)
    return [c for c in citations if c.index in wanted]


def _at_place(q: DocQuestion, c: Citation, doc_of: dict[str, str]) -> bool:
    if doc_of.get(c.document_id) != q.doc:
        return False
    if q.pages:
        return c.page in q.pages
    if q.section:
        return fold(q.section) in fold(c.section or "") or fold(q.section) in fold(c.text)
    return True


# -- the run ------------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """Counts over a group of questions (all, a kind, a format, a split)."""

    answerable: int = 0
    unanswerable: int = 0
    right_fact: int = 0
    right_place: int = 0
    found: int = 0
    refused_unanswerable: int = 0
    refused_answerable: int = 0
    grounded: int = 0
    grounded_right: int = 0
    wrong_grounded: int = 0
    lengths: list[int] = field(default_factory=list)  # the answers', in characters

    def add(self, q: DocQuestion, v: Verdict, length: int | None) -> None:
        """Count one question's verdict; ``length``: its answer's (None: refused)."""
        if length is not None:
            self.lengths.append(length)
        if q.answerable:
            self.answerable += 1
            self.right_fact += v.right_fact
            self.right_place += v.right_place
            self.found += v.found
            self.refused_answerable += v.refused
        else:
            self.unanswerable += 1
            self.refused_unanswerable += v.refused
        self.grounded += v.grounded
        self.grounded_right += v.grounded and not v.wrong_grounded
        self.wrong_grounded += v.wrong_grounded

    @property
    def questions(self) -> int:
        return self.answerable + self.unanswerable

    def row(self) -> dict[str, float | int | None]:
        return {
            "n": self.questions,
            "fact": m.rate(self.right_fact, self.answerable),
            "place": m.rate(self.right_place, self.answerable),
            "found": m.rate(self.found, self.answerable),
            "refused": m.rate(self.refused_unanswerable, self.unanswerable),
            "wrong+grounded": m.rate(self.wrong_grounded, self.questions),
            "chars": self.median_length,
        }

    @property
    def median_length(self) -> int | None:
        """The answers' median length in characters (None: none answered)."""
        return round(statistics.median(self.lengths)) if self.lengths else None


@dataclass(slots=True)
class DocsResult:
    info: RunInfo
    questions: int
    errors: int
    missing: list[str]  # documents the questions name that did not ingest
    overall: Tally
    groups: dict[str, dict[str, Tally]]  # "kind" | "format" | "split" -> name -> tally
    items: list[dict[str, Any]] = field(default_factory=list)

    def metrics(self) -> list[Metric]:
        t = self.overall
        rows = [
            ("answerable: answer holds the right fact", t.right_fact, t.answerable),
            ("answerable: answer cites the right page or section", t.right_place, t.answerable),
            ("answerable: found (the right place among the passages read)", t.found, t.answerable),
            ("answerable: refused", t.refused_answerable, t.answerable),
            ("on-topic unanswerable: refused", t.refused_unanswerable, t.unanswerable),
            ("wrong but shown as grounded (of all questions)", t.wrong_grounded, t.questions),
            ("shown as grounded: right", t.grounded_right, t.grounded),
        ]
        return [Metric(name, m.rate(hits, n), n) for name, hits, n in rows]

    def breakdowns(self) -> dict[str, dict[str, dict[str, float | int | None]]]:
        return {
            by: {name: tally.row() for name, tally in sorted(groups.items())}
            for by, groups in self.groups.items()
        }


def data_files(root: Path) -> list[Path]:
    """The real documents under ``root``: every file in :data:`FOLDERS` (the shared data
    folder), but notes; a folder without them (a team's own documents, for the questions
    ``footnoted feedback export`` writes) is read whole, its subfolders too."""
    if not any((root / folder).is_dir() for folder in FOLDERS):
        files = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InvalidInput(f"{root} holds no documents.")
        return files
    return [
        p
        for folder in FOLDERS
        if (root / folder).is_dir()
        for p in sorted((root / folder).iterdir())
        if p.is_file() and p.name not in SKIPPED_NAMES
    ]


@contextmanager
def _home(home: Path | None) -> Iterator[Path]:
    if home is not None:
        yield home
        return
    with tempfile.TemporaryDirectory(prefix="footnoted-eval-") as tmp:
        yield Path(tmp) / "home"


@contextmanager
def documents_base(
    root: Path, home: Path | None, progress: ProgressFn | None
) -> Iterator[tuple[KnowledgeBase, dict[str, str]]]:
    """The knowledge base of every real document under ``root``, ingested into ``home``
    (a fresh temporary one by default; an existing one is brought up to date, unchanged
    files skipped), with each document's path relative to ``root`` by id (an attachment
    read as a document of its own by its message's file)."""
    files = data_files(root)
    with _home(home) as where:
        fn = Footnoted(Settings(home=where))
        try:
            started = time.perf_counter()
            fn.warm_up(ingest=True)
            loaded = time.perf_counter() - started
            done = 0

            def step(_: object) -> None:
                nonlocal done
                done += 1
                if progress is not None:
                    progress("ingest", done, len(files))

            started = time.perf_counter()
            report = fn.ingest(files, progress=step)
            elapsed = time.perf_counter() - started
            relative = {str(p.resolve()): p.relative_to(root).as_posix() for p in files}
            documents = fn.store.list_documents()
            # a message's attachment read as a document of its own is in the message's file
            filed = {d.id: d.source.split(ATTACHMENT_MARK)[0] for d in documents}
            doc_of = {id_: relative[f] for id_, f in filed.items() if f in relative}
            chunks = sum(d.chunk_count for d in documents)
            yield (
                KnowledgeBase(fn, doc_of, len(doc_of), chunks, len(report.failed), loaded, elapsed),
                doc_of,
            )
        finally:
            fn.close()


def run_docs(
    questions_path: Path,
    root: Path,
    split: str | None = None,
    home: Path | None = None,
    progress: ProgressFn | None = None,
    pick: Callable[[DocQuestion], bool] = lambda q: True,
) -> DocsResult:
    """Ask every question (of ``split``, when given) over the real documents."""
    questions = [
        q for q in read_questions(questions_path) if (split is None or q.split == split) and pick(q)
    ]
    overall = Tally()
    groups: dict[str, dict[str, Tally]] = {"kind": {}, "format": {}, "split": {}}
    items: list[dict[str, Any]] = []
    errors = 0
    with documents_base(root, home, progress) as (kb, doc_of):
        present = set(doc_of.values())
        started = time.perf_counter()
        kb.prime([q.question for q in questions])
        for i, q in enumerate(questions):
            result = _ask(kb, q.question)
            errors += result is None
            verdict = judge(q, result, doc_of)
            item = _item(q, result, verdict, doc_of)
            overall.add(q, verdict, item["length"])
            for by, name in (("kind", q.kind), ("format", q.format), ("split", q.split)):
                groups[by].setdefault(name, Tally()).add(q, verdict, item["length"])
            items.append(item)
            if progress is not None:
                progress("questions", i + 1, len(questions))
        info = kb.info(time.perf_counter() - started)
    missing = sorted({q.doc for q in questions} - present)
    return DocsResult(info, len(questions), errors, missing, overall, groups, items)


def _item(
    q: DocQuestion, result: AskResult | None, v: Verdict, doc_of: dict[str, str]
) -> dict[str, Any]:
    answer = None if result is None or result.refused else result.answer
    cited = [] if answer is None else referenced(answer.citations, answer.referenced)
    exact = None
    if answer is not None:
        span = next((s for s in answer.spans if s.exact_start is not None), None)
        if span is not None and span.exact_end is not None:
            exact = answer.text[span.exact_start : span.exact_end]
    return {
        "id": q.id,
        "question": q.question,
        "kind": q.kind,
        "format": q.format,
        "split": q.split,
        "doc": q.doc,
        "gold": list(q.answers) or None,
        "pages": list(q.pages),
        "section": q.section,
        "refused": v.refused,
        "right_fact": v.right_fact,
        "right_place": v.right_place,
        "found": v.found,
        "grounded": v.grounded,
        "wrong_grounded": v.wrong_grounded,
        "answer": None if answer is None else answer.text,
        "length": None if answer is None else m.answer_length(answer.text),
        "exact": exact,
        "grounding": None if answer is None else answer.grounding,
        "cited": [
            {"doc": doc_of.get(c.document_id), "page": c.page, "section": c.section} for c in cited
        ],
        "read": [
            {
                "doc": doc_of.get(r.hit.chunk.document_id),
                "page": r.hit.chunk.page,
                "score": round(r.score, 3),
                "reader": round(r.reading.score, 3),
            }
            for r in (result.read if result else ())
        ],
        "refusal": None if result is None or result.refusal is None else result.refusal.message,
    }
