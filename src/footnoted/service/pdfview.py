"""A PDF's real pages for the viewer: a page rendered to PNG by PDFium, and where on it a
passage of the extracted text is printed (boxes to highlight).

The extracted text is the page's text laid out again (headers dropped, hyphens joined,
table cells joined with " | "), so a passage is found on the page by its letters and
digits alone, in order; a piece the page does not hold where expected (a running header
between two lines) is skipped and the rest found after it. Boxes are fractions of the
page as displayed (rotation applied), so the client scales them with the image.
"""

from __future__ import annotations

import ctypes
import re
import struct
import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ..errors import DocumentError, NotFound
from ..loaders.pdf import PDFIUM_LOCK

ANCHOR = 16  # letters that must match to place (or re-place) a passage on the page
MIN_WIDTH, MAX_WIDTH = 200, 2400  # rendered width in pixels
_ALNUM = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle on the displayed page, each value a fraction of its width or height."""

    left: float
    top: float
    width: float
    height: float


@contextmanager
def _page(data: bytes, number: int) -> Iterator[Any]:
    with PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise DocumentError(f"The PDF cannot be opened: {exc}") from exc
        try:
            if not 1 <= number <= len(pdf):
                raise NotFound(f"The document has no page {number}.", code="page_not_found")
            page = pdf[number - 1]
            try:
                yield page
            finally:
                page.close()
        finally:
            pdf.close()


def render_png(data: bytes, number: int, width: int) -> bytes:
    """Page ``number`` (from 1) as a PNG ``width`` pixels wide (clamped to a sane range)."""
    width = min(max(width, MIN_WIDTH), MAX_WIDTH)
    with _page(data, number) as page:
        scale = width / max(page.get_width(), 1.0)
        bitmap = page.render(scale=scale, rev_byteorder=True, fill_color=(255, 255, 255, 255))
        pixels = np.ascontiguousarray(bitmap.to_numpy()[:, :, :3], dtype=np.uint8)
        bitmap.close()
    return _png(pixels)


def _png(pixels: np.ndarray[Any, Any]) -> bytes:
    """An RGB array (height, width, 3) as PNG bytes: one filter byte (none) per row."""
    height, width = pixels.shape[:2]
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)
    rows[:, 1:] = pixels.reshape(height, width * 3)

    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
            chunk(b"IEND", b""),
        )
    )


def passage_boxes(data: bytes, number: int, passage: str, before: str = "") -> list[Box]:
    """Where on page ``number`` the extracted ``passage`` is printed (empty: not found).
    ``before``: the page's extracted text before the passage, which says which of the
    places that print the same letters is the passage's (a table's "Revenue | 3,208,323"
    printed again in the next table on the page)."""
    wanted = _letters(passage)
    if not wanted:
        return []
    with _page(data, number) as page:
        textpage = page.get_textpage()
        try:
            letters, indices = _page_letters(textpage)
            runs = _match(wanted, letters, len(_letters(before)))
            return _boxes(page, textpage, [(indices[a], indices[b - 1]) for a, b in runs])
        finally:
            textpage.close()


def _letters(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if _ALNUM.match(ch))


def _page_letters(textpage: Any) -> tuple[str, list[int]]:
    """The page's letters and digits (lower case, ligatures expanded), each with the
    PDFium index of the character it came from."""
    letters: list[str] = []
    indices: list[int] = []
    for index in range(int(textpage.count_chars())):
        code = int(pdfium_c.FPDFText_GetUnicode(textpage, index))
        if not code or 0xD800 <= code <= 0xDFFF:
            continue
        for ch in _letters(chr(code)):
            letters.append(ch)
            indices.append(index)
    return "".join(letters), indices


def _match(wanted: str, letters: str, near: int = 0) -> list[tuple[int, int]]:
    """Runs ``[start, end)`` of ``letters`` spelling ``wanted`` in order: each run is
    anchored by ``ANCHOR`` letters and grown while the letters agree; letters of
    ``wanted`` that anchor nowhere are skipped. The first run is anchored where its
    letters are found closest to ``near`` (where the passage is expected on the page),
    the others after the run before them."""
    runs: list[tuple[int, int]] = []
    i, cursor = 0, 0
    while i < len(wanted):
        anchor = wanted[i : i + ANCHOR]
        found = _nearest(letters, anchor, near) if not runs else letters.find(anchor, cursor)
        if found < 0 or (len(anchor) < ANCHOR and i > 0 and not runs):
            i += max(len(anchor) // 2, 1)
            continue
        end = found
        while i < len(wanted) and end < len(letters) and wanted[i] == letters[end]:
            i, end = i + 1, end + 1
        runs.append((found, end))
        cursor = end
    return runs


def _nearest(letters: str, anchor: str, near: int) -> int:
    """Where in ``letters`` ``anchor`` is found closest to ``near`` (-1: nowhere)."""
    best, at = -1, letters.find(anchor)
    while at >= 0:
        if best < 0 or abs(at - near) < abs(best - near):
            best = at
        at = letters.find(anchor, at + 1)
    return best


def _boxes(page: Any, textpage: Any, runs: Sequence[tuple[int, int]]) -> list[Box]:
    width, height = page.get_size()
    boxes: list[Box] = []
    for first, last in runs:
        count = int(pdfium_c.FPDFText_CountRects(textpage, first, last - first + 1))
        for n in range(count):
            left, top, right, bottom = (float(v) for v in textpage.get_rect(n))
            x0, y0 = _to_display(page, width, height, left, top)
            x1, y1 = _to_display(page, width, height, right, bottom)
            x, y = min(x0, x1), min(y0, y1)
            boxes.append(Box(x / width, y / height, abs(x1 - x0) / width, abs(y1 - y0) / height))
    return boxes


def _to_display(page: Any, width: float, height: float, x: float, y: float) -> tuple[float, float]:
    """A point in page space as displayed (origin top left), in points; a large device
    size keeps PDFium's integer rounding small."""
    k = 20
    dx, dy = ctypes.c_int(), ctypes.c_int()
    pdfium_c.FPDF_PageToDevice(
        page, 0, 0, round(width * k), round(height * k), 0, x, y, ctypes.byref(dx), ctypes.byref(dy)
    )
    return dx.value / k, dy.value / k
