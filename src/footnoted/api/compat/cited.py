"""What an OpenAI client shows of a cited answer: its text, Sources block and annotations.

The content a client gets is the answer text, then (unless the request says
``"sources_block": false``) ``\\n\\nSources:\\n1. Title — Page 3`` for the cited sources,
as in the non-streamed and the streamed reply alike. Every ``[N]`` marker of the answer
becomes an annotation whose ``start_index``/``end_index`` cover the marker in that
content: a ``url_citation`` pointing at the document's link (the collection's download
link, else the URL given at upload), or, in the Responses API, a ``file_citation`` when
the document has no link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from ...answering.citations import marker_numbers, sources_block
from ...lexical import MARKER
from ...models import Citation

CITATION_KEYS = ("citations", "referenced_indices", "spans", "grounding")
SOURCES_HEAD = "\n\nSources:\n"


def without_sources(text: str) -> str:
    """An earlier reply of footnoted's without the Sources block it ended with: what a
    follow-up reads of it is the answer, not the list of titles."""
    head, found, block = text.rpartition(SOURCES_HEAD)
    if found and all(re.match(r"\d+\. ", line) for line in block.strip().splitlines()):
        return head
    return text


@dataclass(frozen=True, slots=True)
class Mark:
    """One ``[N]`` marker in the content, and the citation it names."""

    start: int
    end: int
    citation: Citation


@dataclass(frozen=True, slots=True)
class Cited:
    """An answer's text with its citations (none when citations are off)."""

    text: str
    citations: tuple[Citation, ...] = ()
    referenced: tuple[int, ...] = ()

    @classmethod
    def build(cls, text: str, sources: dict[str, Any] | None) -> Cited:
        """From the answer text and the ``sources`` data (``/api/chat``'s keys), if any."""
        if not sources or "citations" not in sources:
            return cls(text)
        citations = tuple(Citation.from_dict(c) for c in sources["citations"])
        return cls(text, citations, tuple(sources["referenced_indices"]))

    def suffix(self, sources_block_on: bool) -> str:
        """The Sources block that ends the content (empty when nothing is cited or off)."""
        if not sources_block_on or not self.referenced:
            return ""
        return f"{SOURCES_HEAD}{sources_block(self.citations, self.referenced)}"

    def marks(self) -> list[Mark]:
        """The markers of the answer text that name one of its cited sources."""
        by_index = {c.index: c for c in self.citations if c.index in self.referenced}
        return [
            Mark(m.start(), m.end(), by_index[n])
            for m in MARKER.finditer(self.text)
            for n in marker_numbers(m.group(1))
            if n in by_index
        ]


def link(citation: Citation, base_url: str) -> str | None:
    """The document's link: footnoted's download link when the collection gives one."""
    if citation.download_url:
        return urljoin(base_url, citation.download_url)
    return citation.url or None


def chat_annotations(cited: Cited, base_url: str) -> list[dict[str, Any]]:
    """Chat Completions ``message.annotations``: one ``url_citation`` per linked marker."""
    out = []
    for mark in cited.marks():
        url = link(mark.citation, base_url)
        if url is not None:
            span = {"start_index": mark.start, "end_index": mark.end}
            cite = {**span, "title": mark.citation.document_title, "url": url}
            out.append({"type": "url_citation", "url_citation": cite})
    return out


def output_text_annotations(cited: Cited, base_url: str) -> list[dict[str, Any]]:
    """Responses ``output_text`` annotations: ``url_citation``, else ``file_citation``."""
    out: list[dict[str, Any]] = []
    for mark in cited.marks():
        c = mark.citation
        url = link(c, base_url)
        if url is None:
            out.append(
                {
                    "type": "file_citation",
                    "file_id": c.document_id,
                    "filename": c.document_title,
                    "index": mark.start,
                }
            )
            continue
        out.append(
            {
                "type": "url_citation",
                "start_index": mark.start,
                "end_index": mark.end,
                "title": c.document_title,
                "url": url,
            }
        )
    return out


def citations_field(sources: dict[str, Any] | None) -> dict[str, Any] | None:
    """footnoted's own top-level ``citations``: sources, referenced indices, spans, grounding.

    ``spans`` tie answer text to the exact source text (the leading one may carry the
    reader's exact answer, ``exact_start``…); ``grounding`` holds the reader's
    ``confidence`` and, in LLM mode, the support check.
    """
    if not sources or "citations" not in sources:
        return None
    out = {"sources": sources["citations"], "referenced_indices": sources["referenced_indices"]}
    for key in CITATION_KEYS[2:]:
        if sources.get(key) is not None:
            out[key] = sources[key]
    return out
