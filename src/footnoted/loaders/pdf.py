"""PDF: each page's text lines with their geometry, read with PDFium, then laid out
into blocks by :mod:`.pdflayout`. The bookmarks (outline) become section paths."""

from __future__ import annotations

import itertools
import re
import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from footnoted import loaders
from footnoted.errors import DocumentError
from footnoted.models import ParsedDocument

from .blocks import assemble, clean, describe
from .pdflayout import Bookmark, Line, lay_out

_PDFIUM_LOCK = threading.Lock()  # PDFium is not thread-safe
_BOLD_WEIGHT = 600


@dataclass(slots=True)
class _RawPdf:
    pages: list[list[Line]]
    outline: list[Bookmark]
    meta_title: str | None


def load_pdf(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    with _PDFIUM_LOCK:
        raw = _read_pdf(data, name)
    blocks, title = lay_out(raw.pages, raw.outline, raw.meta_title)
    return assemble(blocks, kind="pdf", title=title, page_count=len(raw.pages))


def _open_pdf(data: bytes, name: str) -> Any:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentError(
                f"{name} is encrypted (password-protected); remove the password and try again."
            ) from exc
        raise DocumentError(
            f"{name} is not a readable PDF (it is damaged or truncated): {describe(exc)}"
        ) from exc


def _read_pdf(data: bytes, name: str) -> _RawPdf:
    """Every page's lines, the outline and the metadata title, within the package's
    limits (read when called, so overriding them on ``footnoted.loaders`` takes effect)."""
    max_pages, max_chars = loaders.MAX_PDF_PAGES, loaders.MAX_TEXT_CHARS
    pdf = _open_pdf(data, name)
    try:
        count = len(pdf)
        if count > max_pages:
            raise DocumentError(f"{name} has {count:,} pages; the limit is {max_pages:,}.")
        pages: list[list[Line]] = []
        total = 0
        for index in range(count):
            pages.append(_read_page(pdf, index))
            total += sum(len(line.text) for line in pages[-1])
            if total > max_chars:
                raise DocumentError(
                    f"{name} holds more than {max_chars:,} characters of text; "
                    "refusing it as too large to index."
                )
        meta_title = str(pdf.get_metadata_value("Title") or "")
        return _RawPdf(pages, _read_outline(pdf, count), meta_title)
    finally:
        pdf.close()


def _read_page(pdf: Any, index: int) -> list[Line]:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            return _page_lines(textpage)
        finally:
            textpage.close()
    finally:
        page.close()


def _page_lines(textpage: Any) -> list[Line]:
    text = str(textpage.get_text_range())
    to_char = _char_indexer(textpage, text)
    lines = []
    for match in re.finditer(r"[^\r\n]+", text):
        raw = match.group()
        positions = [match.start() + i for i, ch in enumerate(raw) if not ch.isspace()]
        if positions:
            lines.append(_measure(textpage, raw, [to_char(p) for p in positions]))
    return [line for line in lines if not line.garbled]


def _char_indexer(textpage: Any, text: str) -> Callable[[int], int]:
    """Map an index into the extracted text to PDFium's character index."""
    if len(text) == int(textpage.count_chars()):
        return lambda index: index
    units = list(itertools.accumulate((2 if ord(ch) > 0xFFFF else 1 for ch in text), initial=0))
    return lambda index: int(pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, units[index]))


def _measure(textpage: Any, raw: str, chars: list[int]) -> Line:
    """Geometry from a few sampled characters: the first four, the middle, the last four."""
    sample = sorted({*chars[:4], chars[len(chars) // 2], *chars[-4:]})
    boxes = {index: box for index in sample if (box := _char_box(textpage, index)) is not None}
    if not boxes:
        return Line(raw)
    head = [boxes[i] for i in chars[:4] if i in boxes] or list(boxes.values())
    tail = [boxes[i] for i in chars[-4:] if i in boxes] or list(boxes.values())
    weights = [int(pdfium_c.FPDFText_GetFontWeight(textpage, i)) for i in sorted(boxes)]
    garbled = sum(int(pdfium_c.FPDFText_HasUnicodeMapError(textpage, i)) == 1 for i in sample)
    return Line(
        raw,
        left=head[0][0],
        right=tail[-1][2],
        top=max(box[3] for box in head),
        bottom=min(box[1] for box in tail),
        size=statistics.median(box[3] - box[1] for box in boxes.values()),
        bold=min(weights) >= _BOLD_WEIGHT,
        garbled=garbled * 2 > len(sample),
    )


def _char_box(textpage: Any, index: int) -> tuple[float, float, float, float] | None:
    try:
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
    except pdfium.PdfiumError:
        return None
    return float(left), float(bottom), float(right), float(top)


def _read_outline(pdf: Any, page_count: int) -> list[Bookmark]:
    marks: list[Bookmark] = []
    for item in itertools.islice(pdf.get_toc(max_depth=10), 10_000):
        dest = item.get_dest()
        title = clean(str(item.get_title() or ""))
        index = dest.get_index() if dest is not None else None
        if not title or index is None or not 0 <= int(index) < page_count:
            continue
        mode, view = dest.get_view()
        marks.append(Bookmark(int(item.level), title, int(index), _dest_top(int(mode), view)))
    return marks


def _dest_top(mode: int, view: Sequence[float]) -> float | None:
    if mode == pdfium_c.PDFDEST_VIEW_XYZ and len(view) >= 2 and view[1]:
        return float(view[1])
    if mode in (pdfium_c.PDFDEST_VIEW_FITH, pdfium_c.PDFDEST_VIEW_FITBH) and view and view[0]:
        return float(view[0])
    return None
