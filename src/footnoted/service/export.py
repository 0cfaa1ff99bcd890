"""A conversation exported: Markdown with real footnotes, or JSON.

Each ``[N]`` marker of an answer becomes a Markdown footnote reference (``[^N]``) whose
note names the source's title, page and section and quotes the text the answer rests
on (its spans, else the passage's excerpt). Footnotes are numbered through the whole
conversation, so the second answer's first source is not another ``[^1]``. A marker that
names no source of its answer (a document's own "[2]" quoted verbatim) stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urljoin

from ..answering.citations import escape_markdown_html, marker_numbers
from ..lexical import MARKER
from ..records import ChatSession, Message

ExportFormat = Literal["markdown", "json"]
JSON_FORMAT = "footnoted.conversation/1"
QUOTE_SEPARATOR = " … "


@dataclass
class Footnotes:
    """The notes written so far; ``next`` is the number the next new source gets. Links
    to the server (downloads) are made absolute against ``base``: an export leaves it."""

    base: str = ""
    lines: list[str] = field(default_factory=list)
    next: int = 1

    def text(self) -> str:
        return "\n\n".join(self.lines)


def quote(citation: dict[str, Any], spans: Sequence[dict[str, Any]]) -> str:
    """The text of ``citation`` that the answer quotes: its spans' text, else the excerpt."""
    text, start = str(citation.get("text") or ""), int(citation.get("char_start") or 0)
    pieces = [
        text[s["doc_start"] - start : s["doc_end"] - start]
        for s in spans
        if s.get("index") == citation.get("index")
    ]
    found = [" ".join(p.split()) for p in pieces if p.strip()]
    unique = list(dict.fromkeys(found))
    return QUOTE_SEPARATOR.join(unique) or " ".join(str(citation.get("excerpt") or "").split())


def note(
    number: int, citation: dict[str, Any], spans: Sequence[dict[str, Any]], base: str = ""
) -> str:
    """``[^N]: **Title**, version 2, page 3, section Refunds > Annual plans: "the quoted
    text"``: the version the answer quoted (a document's file may have changed since)."""
    parts = [f"**{escape_markdown_html(str(citation.get('document_title') or 'Untitled'))}**"]
    if isinstance(citation.get("version"), int):
        parts.append(f"version {citation['version']}")
    if citation.get("page") is not None:
        parts.append(f"page {citation['page']}")
    if citation.get("section"):
        parts.append(f"section {escape_markdown_html(str(citation['section']))}")
    if isinstance(citation.get("row"), int):
        parts.append(f"row {citation['row']}")
    if citation.get("cell"):
        parts.append(f"cell {escape_markdown_html(str(citation['cell']))}")
    link = citation.get("url") or citation.get("download_url")
    link = urljoin(base, str(link)) if link else None
    where = ", ".join(parts) + (f" (<{link}>)" if link else "")
    said = quote(citation, spans)
    return f"[^{number}]: {where}" + (f': "{escape_markdown_html(said)}"' if said else "")


def footnoted_answer(message: Message, notes: Footnotes) -> str:
    """The answer's text with each marker made footnote references (notes added to ``notes``)."""
    citations = {int(c["index"]): c for c in message.citations or []}
    spans = message.spans or []
    numbers: dict[int, int] = {}

    def reference(match: re.Match[str]) -> str:
        cited = marker_numbers(match.group(1))
        if not cited or any(n not in citations for n in cited):
            return match.group(0)
        for n in cited:
            if n not in numbers:
                numbers[n] = notes.next
                notes.lines.append(note(notes.next, citations[n], spans, notes.base))
                notes.next += 1
        return "".join(f"[^{numbers[n]}]" for n in cited)

    return _with_footnotes(escape_markdown_html(message.content), reference)


def _with_footnotes(text: str, reference: Callable[[re.Match[str]], str]) -> str:
    """Markers replaced; a space before a marker goes ("ten days [1]." -> "ten days[^1].")."""
    return re.sub(r"[ \t]*" + MARKER.pattern, reference, text)


def answer_markdown(message: Message, base: str = "") -> str:
    """One answer alone, with its own footnotes (what "Copy" puts on the clipboard)."""
    notes = Footnotes(base)
    body = footnoted_answer(message, notes)
    return f"{body}\n\n{notes.text()}\n" if notes.lines else f"{body}\n"


def conversation_markdown(session: ChatSession, messages: Sequence[Message], base: str = "") -> str:
    """The whole conversation: title, date, each question and its reply, then the notes."""
    notes = Footnotes(base)
    out = [f"# {escape_markdown_html(session.title)}", f"*{_dates(session)}*"]
    for m in messages:
        if m.role == "user":
            out.append(f"**Question:** {escape_markdown_html(m.content)}")
        elif m.type == "refusal":
            out.append(f"> **Not in the documents.** {escape_markdown_html(m.content)}")
        else:
            answer = footnoted_answer(m, notes)
            out.append(answer + ("\n\n*(incomplete: the answer stopped part-way)*"
                                 if m.incomplete else ""))  # fmt: skip
    if notes.lines:
        out.append(notes.text())
    return "\n\n".join(out) + "\n"


def _dates(session: ChatSession) -> str:
    started = session.created_at[:16].replace("T", " ")
    last = session.updated_at[:16].replace("T", " ")
    when = f"Started {started} UTC" + (f", last answer {last} UTC" if last != started else "")
    return f"{when} · exported from footnoted"


def conversation_json(session: ChatSession, messages: Sequence[Message]) -> dict[str, Any]:
    """The session and its messages exactly as the history API gives them."""
    return {
        "format": JSON_FORMAT,
        "session": session.to_dict(),
        "messages": [m.to_dict() for m in messages],
    }


def file_name(session: ChatSession, export: ExportFormat) -> str:
    """A safe file name from the title: ``what-is-the-refund-policy.md``."""
    slug = re.sub(r"[^a-z0-9]+", "-", session.title.lower()).strip("-")[:60].strip("-")
    return f"{slug or 'conversation'}.{'md' if export == 'markdown' else 'json'}"
