"""PowerPoint decks (.pptx): each slide a page, its title the section.

A slide's text is read shape by shape in reading order (top to bottom, then left to
right; groups opened), a table row by row with its cells joined by ``CELLS``. The
speaker notes follow the slide's text, on its page, marked "Notes:". A slide without a
title placeholder takes its first short line as its title. A slide's number is not read,
and a footer or date printed on slide after slide is read once, on the first slide that
shows it: the talk's event and date stay, but are not the text of every slide.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from footnoted.lexical import CELLS, EMPTY_CELL, LABEL_WORDS
from footnoted.models import ParsedDocument

from .blocks import Block, assemble, clean, clean_title
from .sizes import check_archive

NOTES = "Notes:"
SLIDE_NUMBER, FOOTER, DATE = 13, 15, 16  # python-pptx's PP_PLACEHOLDER members
BAND = 228_600  # EMU (a quarter inch): shapes whose tops are this close read left to right


def load_pptx(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    check_archive(data, name, ".pptx")
    import pptx  # here: a worker that never reads a deck never pays its import

    deck = pptx.Presentation(io.BytesIO(data))
    blocks: list[Block] = []
    first_title: str | None = None
    count = 0
    running: set[str] = set()  # the footers and dates read so far
    for number, slide in enumerate(deck.slides, 1):
        count = number
        texts = [
            t
            for shape in _in_reading_order(slide.shapes)
            if _reads(shape, running)
            for t in _texts(shape)
        ]
        title = _title(slide, texts)
        first_title = first_title or title
        section = (title,) if title else ()
        blocks += [Block(text, section, number) for text in texts]
        if slide.has_notes_slide:
            notes = clean(slide.notes_slide.notes_text_frame.text or "")
            if notes:
                blocks.append(Block(f"{NOTES} {notes}", section, number))
    title = clean_title(deck.core_properties.title) or clean_title(first_title)
    return assemble(blocks, kind="pptx", title=title, page_count=count)


def _reads(shape: Any, running: set[str]) -> bool:
    """Whether a slide's shape is read: not its number, and a footer or date only the first
    time the deck shows it (``running`` records the ones shown)."""
    if not shape.is_placeholder:
        return True
    kind = shape.placeholder_format.type
    if kind == SLIDE_NUMBER:
        return False
    if kind not in (FOOTER, DATE) or not shape.has_text_frame:
        return True
    text = clean(shape.text_frame.text)
    seen = text in running
    running.add(text)
    return not seen


def _title(slide: Any, texts: list[str]) -> str | None:
    placeholder = slide.shapes.title
    if placeholder is not None and placeholder.has_text_frame:
        own = clean(placeholder.text_frame.text)
        if own:
            return own
    first = texts[0] if texts else ""
    return first if first and len(first.split()) <= LABEL_WORDS and CELLS not in first else None


def _in_reading_order(shapes: Any) -> list[Any]:
    return sorted(shapes, key=lambda s: ((s.top or 0) // BAND, s.left or 0))


def _texts(shape: Any) -> Iterator[str]:
    """A shape's paragraphs (a table's rows), each cleaned and non-empty."""
    inside = getattr(shape, "shapes", None)  # a group shape holds shapes of its own
    if inside is not None:
        for inner in _in_reading_order(inside):
            yield from _texts(inner)
        return
    if getattr(shape, "has_table", False) and shape.has_table:
        for row in shape.table.rows:
            cells = [clean(cell.text) for cell in row.cells]
            if any(cells):
                yield CELLS.join(c or EMPTY_CELL for c in cells)
        return
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        for paragraph in shape.text_frame.paragraphs:
            text = clean(paragraph.text)
            if text:
                yield text
