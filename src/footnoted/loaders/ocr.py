"""OCR for PDF pages without a text layer (scans), with Tesseract when it is installed.

Optional: ``apt install tesseract-ocr`` puts ``tesseract`` on the ``PATH``. Only a page
that has no text and shows an image is read this way: the page is rendered by PDFium at
``DPI`` and Tesseract's words come back as :class:`~.pdflayout.Line` objects in page
units, so layout, headings and page numbers work as for any other page. Without
Tesseract such a page yields no text, and a PDF of scans only fails with a message that
says how to install it.
"""

from __future__ import annotations

import csv
import io
import shutil
import statistics
import subprocess
from typing import Any

import pypdfium2.raw as pdfium_c

from .pdflayout import Line

DPI = 300
TIMEOUT_S = 60  # for one page
INSTALL_HINT = "install Tesseract for OCR (Debian/Ubuntu: apt install tesseract-ocr)"


def tesseract() -> str | None:
    """The Tesseract program on the ``PATH``, or None where it is not installed."""
    return shutil.which("tesseract")


def scanned(page: Any) -> bool:
    """Does the page show an image (a page without text that is worth reading)?"""
    count = int(pdfium_c.FPDFPage_CountObjects(page))
    return any(
        int(pdfium_c.FPDFPageObj_GetType(pdfium_c.FPDFPage_GetObject(page, i)))
        == pdfium_c.FPDF_PAGEOBJ_IMAGE
        for i in range(count)
    )


def read_page(page: Any, program: str) -> list[Line]:
    """The page's text lines as Tesseract reads them from a rendering of the page."""
    scale = DPI / 72
    bitmap = page.render(scale=scale, grayscale=True, rev_byteorder=True)
    try:
        pixels = bitmap.to_numpy()
        height, width = pixels.shape[:2]
        gray = pixels if pixels.ndim == 2 else pixels[:, :, 0]
        image = f"P5\n{width} {height}\n255\n".encode() + gray.astype("uint8").tobytes()
    finally:
        bitmap.close()
    result = subprocess.run(
        [program, "stdin", "stdout", "--dpi", str(DPI), "tsv"],
        input=image,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0:
        return []
    return _lines(result.stdout.decode("utf-8", "replace"), scale, page.get_height())


def _lines(tsv: str, scale: float, page_height: float) -> list[Line]:
    """Tesseract's words grouped into its lines, in page units (y grows upwards)."""
    words: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        if row.get("level") == "5" and (row.get("text") or "").strip():
            key = (row["block_num"], row["par_num"], row["line_num"])
            words.setdefault(key, []).append(row)
    lines = []
    for line in words.values():
        left = min(int(w["left"]) for w in line)
        right = max(int(w["left"]) + int(w["width"]) for w in line)
        top = min(int(w["top"]) for w in line)
        bottom = max(int(w["top"]) + int(w["height"]) for w in line)
        size = statistics.median(int(w["height"]) for w in line) / scale
        lines.append(
            Line(
                " ".join(w["text"].strip() for w in line),
                left=left / scale,
                right=right / scale,
                top=page_height - top / scale,
                bottom=page_height - bottom / scale,
                size=size,
            )
        )
    return lines
