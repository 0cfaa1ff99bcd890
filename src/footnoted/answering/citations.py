"""Citations: building them from retrieved chunks, reading ``[N]`` markers, Markdown."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..lexical import CELLS, MARKER
from ..models import SECTION_JOIN, Citation, Grounding, RetrievedChunk, Span
from ..pages import page_at

MAX_RANGE = 50
EXCERPT_CHARS = 200


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer with its citations; ``referenced`` lists the indices used in ``text``.

    ``grounding`` says how well the documents back it: the reader's ``confidence`` (a
    calibrated probability) and ``answer_score``; LLM answers add the support check's
    ``cited_sentences``, ``supported``, ``unsupported`` and ``added``."""

    text: str
    citations: tuple[Citation, ...]
    referenced: tuple[int, ...]
    spans: tuple[Span, ...]
    grounding: Grounding | None = None


def marker_numbers(inner: str) -> list[int]:
    """The numbers one marker names: ``1, 3`` -> [1, 3]; ``1-3`` -> [1, 2, 3]."""
    numbers: list[int] = []
    for part in re.split(r"\s*,\s*", inner.strip()):
        low, _, high = (p.strip() for p in part.replace("–", "-").partition("-"))
        if high and 0 <= int(high) - int(low) <= MAX_RANGE:
            numbers.extend(range(int(low), int(high) + 1))
        else:
            numbers.append(int(low))
    return numbers


def excerpt(text: str, section: str | None = None, limit: int = EXCERPT_CHARS) -> str:
    """The passage's opening words, on one line. A first line that is the heading the
    section path ends with is left out: the citation shows its section already, and
    "Annual plans Annual plans are refunded…" reads as a stutter."""
    first, newline, rest = text.strip().partition("\n")
    heading = (section or "").rsplit(SECTION_JOIN, 1)[-1].strip()
    if newline and heading and " ".join(first.split()) == " ".join(heading.split()):
        text = rest
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut + "…"


def make_citation(index: int, hit: RetrievedChunk) -> Citation:
    chunk = hit.chunk
    return Citation(
        index=index,
        chunk_id=chunk.id,
        document_id=chunk.document_id,
        document_title=hit.document_title,
        chunk_index=chunk.index,
        page=chunk.page,
        section=chunk.section,
        url=hit.document_url,
        excerpt=excerpt(chunk.text, chunk.section),
        text=chunk.text,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        score=round(hit.score, 4),
        version=hit.document_version,
        row=chunk.rows[0][1] if chunk.rows else None,
        rows=chunk.rows,
    )


def pin_pages(answer: Answer) -> Answer:
    """Each span's page is the page its quoted text starts on (and in a spreadsheet its
    row, the row it quotes), and each quoted citation's page and row those of its first
    quote: a sentence on page 39 of a chunk that starts on page 38 is cited "Page 39", a
    row 212 of a passage from row 205 "row 212". Citations nothing quotes keep their
    chunk's first page and row."""
    by_index = {c.index: c for c in answer.citations}
    spans = tuple(
        replace(
            s,
            page=page_at(by_index[s.index], s.doc_start),
            row=row_at(by_index[s.index].rows, s.doc_start),
            cell=exact_cell(by_index[s.index], s),
        )
        if s.index in by_index
        else s
        for s in answer.spans
    )
    first: dict[int, Span] = {}
    for span in spans:
        first.setdefault(span.index, span)
    row = {c.index: quoted_row(c.index, spans) for c in answer.citations}
    citations = tuple(
        replace(
            c,
            page=c.page if first[c.index].page is None else first[c.index].page,
            row=c.row if row[c.index] is None else row[c.index],
            cell=next((s.cell for s in spans if s.index == c.index and s.cell), None),
        )
        if c.index in first
        else c
        for c in answer.citations
    )
    return replace(answer, citations=citations, spans=spans)


def quoted_row(index: int, spans: Sequence[Span]) -> int | None:
    """The spreadsheet row citation ``index`` quotes: the one holding the exact answer,
    else the last one (a row is quoted under its header row, which comes first)."""
    rows = [s for s in spans if s.index == index and s.row is not None]
    exact = [s.row for s in rows if s.exact_doc_start is not None]
    return exact[0] if exact else max((s.row for s in rows if s.row is not None), default=None)


def exact_cell(citation: Citation, span: Span) -> str | None:
    """The cell of a spreadsheet row that holds the span's exact answer, as the sheet
    names it ("C3": its column letters, then its row number); None elsewhere."""
    if span.exact_doc_start is None or not citation.rows:
        return None
    starts = [(start, n) for start, n in citation.rows if start <= span.exact_doc_start]
    if not starts:
        return None
    start, number = starts[-1]
    before = citation.text[start - citation.char_start : span.exact_doc_start - citation.char_start]
    if "\n" in before:
        return None
    column, letters = before.count(CELLS) + 1, ""
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{number}"


def row_at(rows: Sequence[tuple[int, int]], offset: int) -> int | None:
    """The number of the spreadsheet row at document ``offset`` (None: not a sheet)."""
    found = None
    for start, number in rows:
        if start > offset:
            break
        found = number
    return found


def referenced_indices(text: str) -> list[int]:
    """Citation numbers in order of first use."""
    seen: dict[int, None] = {}
    for match in MARKER.finditer(text):
        for n in marker_numbers(match.group(1)):
            seen.setdefault(n, None)
    return list(seen)


def location(citation: Citation) -> str:
    parts = []
    if citation.page is not None:
        parts.append(f"Page {citation.page}")
    if citation.section:
        parts.append(f"Section {citation.section}")
    if citation.row is not None:
        parts.append(f"Row {citation.row}")
    if citation.cell:
        parts.append(f"Cell {citation.cell}")
    return ", ".join(parts)


def escape_markdown_html(text: str) -> str:
    """Neutralise raw HTML in text destined for a Markdown renderer.

    Escaping ``&`` and ``<`` is enough: no tag or entity can start without them, and
    ``>`` stays readable in section paths such as ``Refunds > Annual plans``.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;")


def sources_block(citations: Sequence[Citation], referenced: Sequence[int]) -> str:
    """``1. Title — Page X, Section Y`` for each referenced citation."""
    by_index = {c.index: c for c in citations}
    lines = []
    for n in referenced:
        c = by_index[n]
        where = location(c)
        title = escape_markdown_html(c.document_title)
        lines.append(f"{n}. {title}" + (f" — {escape_markdown_html(where)}" if where else ""))
    return "\n".join(lines)


def answer_markdown(answer: Answer) -> str:
    body = escape_markdown_html(answer.text)
    if not answer.referenced:
        return body
    return f"{body}\n\n**Sources**\n\n{sources_block(answer.citations, answer.referenced)}"
