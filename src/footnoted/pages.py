"""Pages inside extracted text: where each quoted sentence is printed.

A PDF's extracted text marks every page break with a form feed (``"\\f"``, as pdftotext
does): blocks on the same page are separated by a blank line (``"\\n\\n"``), blocks on the
next page by ``"\\n\\f"``, and one more ``"\\f"`` for each page without text in between (the
text of a document whose first page has no text starts with one ``"\\f"`` per such page).
So the page of any offset follows from the stored text alone: a chunk's page is the page
its first character is on, and the page of an offset inside it is that page plus the page
breaks before the offset. Documents without pages (DOCX, HTML, Markdown, text) hold no
form feed and have no page.
"""

from __future__ import annotations

from .models import Chunk

PAGE_BREAK = "\f"


def separator(previous: int | None, page: int | None) -> str:
    """What goes between a block on page ``previous`` and the next one on ``page``."""
    if previous is None or page is None or page <= previous:
        return "\n\n"
    return "\n" + PAGE_BREAK * (page - previous)


def page_at(chunk: Chunk, offset: int) -> int | None:
    """The page of document offset ``offset`` inside ``chunk`` (clamped to the chunk),
    or None where the document has no pages."""
    if chunk.page is None:
        return None
    inside = min(max(offset - chunk.char_start, 0), len(chunk.text))
    return chunk.page + chunk.text.count(PAGE_BREAK, 0, inside)


def page_in_text(text: str, offset: int) -> int:
    """The page of offset ``offset`` in a paged document's whole text."""
    return 1 + text.count(PAGE_BREAK, 0, max(offset, 0))


def page_range(chunk: Chunk) -> tuple[int, int] | None:
    """The first and last page a chunk covers, or None where the document has no pages."""
    if chunk.page is None:
        return None
    return chunk.page, chunk.page + chunk.text.count(PAGE_BREAK)
