"""Pages inside extracted text: where each quoted sentence is printed.

A PDF's extracted text marks every page break with a form feed (``"\\f"``, as pdftotext
does): blocks on the same page are separated by a blank line (``"\\n\\n"``), blocks on the
next page by ``"\\n\\f"``, and one more ``"\\f"`` for each page without text in between (the
text of a document whose first page has no text starts with one ``"\\f"`` per such page).
So the page of any offset follows from the stored text alone: a chunk's page is the page
its first character is on, and the page of an offset inside it is that page plus the page
breaks before the offset. A paragraph that goes on over a page break holds a bare
``"\\f"`` where the page turns, so one sentence may start on one page and end on the
next; a quote is cited at the page it starts on. Documents without pages (DOCX, HTML,
Markdown, text) hold no form feed and have no page.
"""

from __future__ import annotations

from typing import Protocol

from .models import Chunk

PAGE_BREAK = "\f"


def separator(previous: int | None, page: int | None) -> str:
    """What goes between a block on page ``previous`` and the next one on ``page``."""
    if previous is None or page is None or page <= previous:
        return "\n\n"
    return "\n" + PAGE_BREAK * (page - previous)


def page_after(page: int | None, text: str, start: int, offset: int) -> int | None:
    """The page of ``text[offset]`` where ``text[start]`` is on ``page`` (None: no pages)."""
    if page is None:
        return None
    return page + text.count(PAGE_BREAK, start, max(offset, start))


class Paged(Protocol):
    """A piece of a document's text that knows its first page: a chunk or a citation."""

    @property
    def text(self) -> str: ...
    @property
    def char_start(self) -> int: ...
    @property
    def page(self) -> int | None: ...


def page_at(piece: Paged, offset: int) -> int | None:
    """The page of document offset ``offset`` inside ``piece`` (clamped to it), or None
    where the document has no pages."""
    inside = min(max(offset - piece.char_start, 0), len(piece.text))
    return page_after(piece.page, piece.text, 0, inside)


def page_in_text(text: str, offset: int) -> int:
    """The page of offset ``offset`` in a paged document's whole text."""
    return 1 + text.count(PAGE_BREAK, 0, max(offset, 0))


def page_bounds(text: str, page: int) -> tuple[int, int]:
    """Offsets ``[start, end)`` of page ``page``'s text in a paged document's whole text
    (empty at the end of the text for a page past the last)."""
    start = 0
    for _ in range(page - 1):
        found = text.find(PAGE_BREAK, start)
        if found < 0:
            return len(text), len(text)
        start = found + 1
    end = text.find(PAGE_BREAK, start)
    return start, len(text) if end < 0 else end


def page_range(chunk: Chunk) -> tuple[int, int] | None:
    """The first and last page a chunk covers, or None where the document has no pages."""
    if chunk.page is None:
        return None
    return chunk.page, chunk.page + chunk.text.count(PAGE_BREAK)
