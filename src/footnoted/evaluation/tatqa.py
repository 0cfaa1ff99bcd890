"""TAT-QA: questions over one annual-report page each, its table and the text around it.

Each context (a page: one table, first rows its headers, and the paragraphs around it)
is written as a Markdown document, the table as a Markdown table, and its questions are
asked of it alone (``owndocs``): picking the table's row and column, quoting a cell
rather than a heading. Only ``span`` and ``multi-span`` questions are graded (arithmetic
and count answers are no span of the page); an answer holds the gold when it holds every
gold span.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .owndocs import OwnDocsResult, OwnDocument, OwnQuestion, run_own_documents
from .runners import ProgressFn

GRADED = ("span", "multi-span")


def read_pages(path: Path, pages: int | None = None) -> list[OwnDocument]:
    """TAT-QA's contexts as pages, each with its graded questions."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: list[OwnDocument] = []
    for i, context in enumerate(raw[:pages] if pages else raw):
        questions = tuple(_question(q) for q in context["questions"] if q["answer_type"] in GRADED)
        out.append(OwnDocument(context["table"]["uid"], page_markdown(i + 1, context), questions))
    return out


def _question(q: dict[str, Any]) -> OwnQuestion:
    answers = tuple(str(a) for a in q["answer"] if str(a).strip())
    # a multi-span answer is graded as its spans together, in the order given
    golds = (" ".join(answers),) if q["answer_type"] == "multi-span" else answers
    groups = {"answer type": q["answer_type"], "answer from": q["answer_from"]}
    return OwnQuestion(q["uid"], q["question"], answers, golds, (), groups)


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


def run_tatqa(
    path: Path, pages: int | None = None, progress: ProgressFn | None = None
) -> OwnDocsResult:
    return run_own_documents("tatqa", "pages", read_pages(path, pages), progress, _plain)


def _plain(text: str) -> str:
    """Money and figures as compared: currency signs aside."""
    return text.replace("$", "").replace("€", "").replace("£", "")
