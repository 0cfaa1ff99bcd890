"""``footnoted eval financebench``: questions over SEC filings no part of footnoted was
built or tuned on.

FinanceBench's open sample (150 questions over 84 filings of 32 companies: 10-Ks,
10-Qs, 8-Ks, earnings releases) ships the filings' pages that hold its answers, not the
filings. So each filing is written as a document of those pages (a cover naming the
company, the form and the period; each page under a heading ``Page N``), and the filings
of every company but a held-out third (:func:`held_out`, by a hash of the name) are
ingested as one knowledge base, as a user with a folder of filings would. Each question
about a company in it should be answered from its gold page; each question about a
held-out company should be refused (another company's report: the documents do not hold
the answer, though they hold the same metrics for other companies).

Its answers are free text and mostly computed ("0.83", "Yes, …"), so an answer is graded
by the page it cites; where the gold answer is one figure that its page prints ("$1577.00"
and "1,577"), by whether the answer holds it too. Non-commercial data (CC BY-NC 4.0):
evaluation only.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..lexical import MARKER
from ..models import SECTION_JOIN
from ..service.facade import AskResult
from . import metrics as m
from .realdocs import documents_base, referenced, shown_grounded
from .runners import Metric, ProgressFn, RunInfo, _ask

HELD_OUT = 3  # one company in this many is left out of the knowledge base
UNANSWERABLE = "another company"  # the kind of a question about a held-out company
_FORMS = {"10k": "Form 10-K", "10q": "Form 10-Q", "8k": "Form 8-K", "earnings": "earnings release"}
# an answer that is a figure and nothing more: "$1577.00", "0.83", "4.2%", "11588"
_FIGURE = re.compile(r"\s*\$?\s?-?[\d,]+(?:\.\d+)?\s?%?\.?\s*")
_NUMBER = re.compile(r"(?<![\w.])-?\(?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")


@dataclass(frozen=True, slots=True)
class FilingQuestion:
    id: str
    question: str
    company: str
    doc: str  # the filing's name: "3M_2018_10K"
    pages: tuple[int, ...]  # the gold pages, as FinanceBench numbers them
    kind: str  # FinanceBench's question type, or UNANSWERABLE
    figure: float | None  # the gold answer's one figure, where its page prints it

    @property
    def answerable(self) -> bool:
        return self.kind != UNANSWERABLE


def held_out(company: str) -> bool:
    """Whether a company's filings are left out of the knowledge base (a fixed third)."""
    return zlib.crc32(company.encode()) % HELD_OUT == 0


def numbers(text: str) -> list[float]:
    """The figures a text prints, as values: "1,577" and "1577.00" alike."""
    return [float(whole.replace(",", "") + (frac or "")) for whole, frac in _NUMBER.findall(text)]


def read_filings(path: Path) -> tuple[dict[str, dict[str, Any]], list[FilingQuestion]]:
    """The filings (name -> company, form, period and pages) and the questions of
    FinanceBench's JSONL; ``InvalidInput`` naming the line that is wrong."""
    info_path = path.with_name("financebench_document_information.jsonl")
    forms: dict[str, dict[str, Any]] = {}
    if info_path.exists():
        for line in info_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                forms[row["doc_name"]] = row
    filings: dict[str, dict[str, Any]] = {}
    questions: list[FilingQuestion] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            name, company = str(row["doc_name"]), str(row["company"])
            filing = filings.setdefault(
                name, {"company": company, "form": forms.get(name, {}), "pages": {}}
            )
            pages = []
            for evidence in row["evidence"]:
                page = int(evidence["evidence_page_num"])
                filing["pages"][page] = str(evidence["evidence_text_full_page"])
                pages.append(page)
            gold = numbers(str(row["answer"])) if _FIGURE.fullmatch(str(row["answer"])) else []
            printed = [v for p in pages for v in numbers(filing["pages"][p])]
            figure = gold[0] if gold and gold[0] in printed else None
            kind = UNANSWERABLE if held_out(company) else str(row["question_type"])
            gold_pages = tuple(sorted(set(pages)))
            questions.append(
                FilingQuestion(
                    str(row["financebench_id"]),
                    str(row["question"]),
                    company,
                    name,
                    gold_pages,
                    kind,
                    figure,
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path}:{n}: not a FinanceBench question ({exc}).") from exc
    return filings, questions


def filing_markdown(name: str, filing: dict[str, Any]) -> str:
    """A filing as a document: its cover (company, form, period), then each page it has
    under a heading ``Page N``."""
    form = filing["form"]
    kind = _FORMS.get(str(form.get("doc_type", "")).lower(), "filing")
    parts = name.split("_")
    period = form.get("doc_period") or (parts[1] if len(parts) > 1 else "an unnamed period")
    lines = [f"# {filing['company']}: {kind} for {period}", ""]
    for page, text in sorted(filing["pages"].items()):
        body = "\n".join(line.strip() for line in text.splitlines() if line.strip())
        lines += [f"## Page {page}", "", body, ""]
    return "\n".join(lines)


# -- grading ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    refused: bool
    right_page: bool  # answerable: an answer's citation is on a gold page
    found: bool  # answerable: a passage read is on a gold page
    graded: bool  # the gold answer is one figure its page prints
    right_figure: bool  # graded: the answer holds it
    grounded: bool  # shown as grounded
    wrong_grounded: bool  # shown as grounded, and on no gold page (or not to be answered)


def _on_page(q: FilingQuestion, doc: str | None, section: str | None) -> bool:
    last = (section or "").split(SECTION_JOIN)[-1]
    return doc == q.doc and any(last == f"Page {p}" for p in q.pages)


def judge(q: FilingQuestion, result: AskResult | None, doc_of: dict[str, str]) -> Verdict:
    refused = result is None or result.refused or result.answer is None
    answer = None if result is None or refused else result.answer
    cited = [] if answer is None else referenced(answer.citations, answer.referenced)
    read = [] if result is None else [r.hit.chunk for r in result.read]
    right_page = q.answerable and any(
        _on_page(q, _name(doc_of, c.document_id), c.section) for c in cited
    )
    found = q.answerable and any(_on_page(q, _name(doc_of, c.document_id), c.section) for c in read)
    graded = q.answerable and q.figure is not None
    text = "" if answer is None else MARKER.sub(" ", answer.text)
    right_figure = graded and q.figure in numbers(text)
    grounded = not refused and shown_grounded(result)
    wrong = grounded and not right_page
    return Verdict(refused, right_page, found, graded, right_figure, grounded, wrong)


def _name(doc_of: dict[str, str], document_id: str) -> str | None:
    path = doc_of.get(document_id)
    return None if path is None else Path(path).stem


@dataclass(slots=True)
class Tally:
    answerable: int = 0
    unanswerable: int = 0
    right_page: int = 0
    found: int = 0
    refused_answerable: int = 0
    refused_unanswerable: int = 0
    graded: int = 0
    right_figure: int = 0
    grounded: int = 0
    wrong_grounded: int = 0

    def add(self, q: FilingQuestion, v: Verdict) -> None:
        if q.answerable:
            self.answerable += 1
            self.right_page += v.right_page
            self.found += v.found
            self.refused_answerable += v.refused
            self.graded += v.graded
            self.right_figure += v.right_figure
        else:
            self.unanswerable += 1
            self.refused_unanswerable += v.refused
        self.grounded += v.grounded
        self.wrong_grounded += v.wrong_grounded

    @property
    def questions(self) -> int:
        return self.answerable + self.unanswerable

    def row(self) -> dict[str, float | int | None]:
        return {
            "n": self.questions,
            "page": m.rate(self.right_page, self.answerable),
            "found": m.rate(self.found, self.answerable),
            "figure": m.rate(self.right_figure, self.graded),
            "refused": m.rate(self.refused_answerable + self.refused_unanswerable, self.questions),
            "wrong+grounded": m.rate(self.wrong_grounded, self.questions),
        }


@dataclass(slots=True)
class FilingsResult:
    info: RunInfo
    filings: int  # in the knowledge base
    companies: int  # in the knowledge base
    errors: int
    overall: Tally
    by_kind: dict[str, Tally]
    items: list[dict[str, Any]] = field(default_factory=list)

    def metrics(self) -> list[Metric]:
        t = self.overall
        rows = [
            ("answerable: answer cites a gold page", t.right_page, t.answerable),
            ("answerable: found (a gold page among the passages read)", t.found, t.answerable),
            ("answerable: refused", t.refused_answerable, t.answerable),
            ("gold is one figure its page prints: answer holds it", t.right_figure, t.graded),
            ("a held-out company's question: refused", t.refused_unanswerable, t.unanswerable),
            ("wrong but shown as grounded (of all questions)", t.wrong_grounded, t.questions),
            ("shown as grounded: cites a gold page", t.grounded - t.wrong_grounded, t.grounded),
        ]
        return [Metric(name, m.rate(hits, n), n) for name, hits, n in rows]

    def breakdowns(self) -> dict[str, dict[str, dict[str, float | int | None]]]:
        return {"kind": {k: v.row() for k, v in sorted(self.by_kind.items())}}


def run_financebench(path: Path, progress: ProgressFn | None = None) -> FilingsResult:
    """Ingest the filings of every company but the held-out third, then ask every
    question (see the module's docstring)."""
    filings, questions = read_filings(path)
    if not questions:
        raise InvalidInput(f"{path} holds no FinanceBench questions.")
    overall, by_kind = Tally(), dict[str, Tally]()
    items: list[dict[str, Any]] = []
    errors = 0
    with tempfile.TemporaryDirectory(prefix="footnoted-eval-") as tmp:
        folder = Path(tmp) / "filings"
        folder.mkdir()
        kept = {n: f for n, f in filings.items() if not held_out(str(f["company"]))}
        for name, filing in kept.items():
            (folder / f"{name}.md").write_text(filing_markdown(name, filing), encoding="utf-8")
        with documents_base(folder, Path(tmp) / "home", progress) as (kb, doc_of):
            started = time.perf_counter()
            kb.prime([q.question for q in questions])
            for i, q in enumerate(questions):
                result = _ask(kb, q.question)
                errors += result is None
                verdict = judge(q, result, doc_of)
                overall.add(q, verdict)
                by_kind.setdefault(q.kind, Tally()).add(q, verdict)
                items.append(_item(q, result, verdict, doc_of))
                if progress is not None:
                    progress("questions", i + 1, len(questions))
            info = kb.info(time.perf_counter() - started)
    companies = len({f["company"] for f in kept.values()})
    return FilingsResult(info, len(kept), companies, errors, overall, by_kind, items)


def _item(
    q: FilingQuestion, result: AskResult | None, v: Verdict, doc_of: dict[str, str]
) -> dict[str, Any]:
    answer = None if v.refused or result is None else result.answer
    cited = [] if answer is None else referenced(answer.citations, answer.referenced)
    return {
        "id": q.id,
        "question": q.question,
        "company": q.company,
        "doc": q.doc,
        "pages": list(q.pages),
        "kind": q.kind,
        "figure": q.figure,
        "refused": v.refused,
        "right_page": v.right_page,
        "found": v.found,
        "right_figure": v.right_figure if v.graded else None,
        "grounded": v.grounded,
        "wrong_grounded": v.wrong_grounded,
        "answer": None if answer is None else answer.text,
        "cited": [{"doc": _name(doc_of, c.document_id), "section": c.section} for c in cited],
        "read": [
            {"doc": _name(doc_of, r.hit.chunk.document_id), "section": r.hit.chunk.section}
            for r in (result.read if result else ())
        ],
        "refusal": None if result is None or result.refusal is None else result.refusal.message,
    }
