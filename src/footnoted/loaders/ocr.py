"""OCR for PDF pages without a text layer (scans): Tesseract where it is installed, else
RapidOCR (PP-OCR models run by ONNX Runtime, installed with footnoted's ``ocr`` extra).

Only a page that has no text and shows an image is read this way: the page is rendered
by PDFium and the engine's lines come back as :class:`~.pdflayout.Line` objects in page
units, so layout, headings and page numbers work as for any other page. Measured side
by side on pages of the shared PDFs rendered to images (``footnoted bench ocr``),
Tesseract gets more of the characters right, in about the same time, so it is chosen
first; RapidOCR needs nothing from the system's packages, so a scanned PDF is read
after a plain install too. ``FOOTNOTED_OCR_ENGINE`` picks one (``auto``, ``tesseract``,
``rapidocr``, ``off``). Without an engine such a page yields no text, and a PDF of scans
only fails with a message that says how to get one.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import io
import os
import shutil
import statistics
import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pypdfium2.raw as pdfium_c

from .pdflayout import Line

DPI = 300  # Tesseract's rendering
# RapidOCR's: about as many words right at 150 dpi as at 200 or 300 (``bench ocr``, 8
# pages: 0.79, 0.81, 0.78), in the least time
RAPID_DPI = 150
# address space RapidOCR's ONNX runtime takes in a parse worker on top of its limit: a page
# read at RAPID_DPI ran out under 1,024 MB in all, and reads under 1,536
RAPIDOCR_MB = 1024
TIMEOUT_S = 60  # for one page
ENGINES = ("auto", "tesseract", "rapidocr", "off")
INSTALL_HINT = (
    "install footnoted's OCR extra (pip install 'footnoted[ocr]') or Tesseract "
    "(Debian/Ubuntu: apt install tesseract-ocr)"
)

Reader = Callable[[Any], list[Line]]  # a PDFium page -> its lines


def tesseract() -> str | None:
    """The Tesseract program on the ``PATH``, or None where it is not installed."""
    return shutil.which("tesseract")


def rapidocr_installed() -> bool:
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def chosen() -> str:
    """``FOOTNOTED_OCR_ENGINE``, as the parse worker sees it (``auto`` when unset)."""
    return (os.environ.get("FOOTNOTED_OCR_ENGINE") or "auto").lower()


def turned_off() -> bool:
    return chosen() == "off"


def engine(choice: str | None = None) -> tuple[str, Reader] | None:
    """The OCR engine to read scanned pages with, by name, or None where there is none:
    ``choice`` (else ``FOOTNOTED_OCR_ENGINE``, else ``auto``: Tesseract when installed,
    then RapidOCR)."""
    name = engine_name(choice)
    program = tesseract()
    if name == "tesseract" and program is not None:
        return name, functools.partial(read_page, program=program)
    if name == "rapidocr":
        return name, read_page_rapidocr
    return None


def engine_name(
    choice: str | None = None, installed: Callable[[], bool] | None = None
) -> str | None:
    """The name of the engine :func:`engine` picks, RapidOCR's being ``installed``
    (``rapidocr_installed``, which imports it, by default; the server sizes its parse
    workers by ``rapidocr_found``, which does not load ONNX Runtime into it)."""
    choice = (choice or chosen()).lower()
    if choice in ("auto", "tesseract") and tesseract() is not None:
        return "tesseract"
    if choice in ("auto", "rapidocr") and (installed or rapidocr_installed)():
        return "rapidocr"
    return None


def rapidocr_found() -> bool:
    """Whether RapidOCR is installed, found without importing it."""
    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


def scanned(page: Any) -> bool:
    """Does the page show an image (a page without text that is worth reading)?"""
    count = int(pdfium_c.FPDFPage_CountObjects(page))
    return any(
        int(pdfium_c.FPDFPageObj_GetType(pdfium_c.FPDFPage_GetObject(page, i)))
        == pdfium_c.FPDF_PAGEOBJ_IMAGE
        for i in range(count)
    )


def _gray(page: Any, scale: float) -> Any:
    """The page rendered in grey at ``scale``, as a 2-D array of bytes."""
    bitmap = page.render(scale=scale, grayscale=True, rev_byteorder=True)
    try:
        pixels = bitmap.to_numpy()
        return np.array(pixels if pixels.ndim == 2 else pixels[:, :, 0], dtype=np.uint8)
    finally:
        bitmap.close()


def read_page(page: Any, program: str) -> list[Line]:
    """The page's text lines as Tesseract reads them from a rendering of the page."""
    scale = DPI / 72
    gray = _gray(page, scale)
    height, width = gray.shape
    image = f"P5\n{width} {height}\n255\n".encode() + gray.tobytes()
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


@functools.cache
def _rapidocr() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR()


def read_page_rapidocr(page: Any) -> list[Line]:
    """The page's text lines as RapidOCR reads them (each box it finds is a line)."""
    scale = RAPID_DPI / 72
    gray = _gray(page, scale)
    found, _ = _rapidocr()(np.stack([gray] * 3, axis=-1))
    page_height = page.get_height()
    lines = []
    for box, text, _score in found or []:
        xs, ys = [float(p[0]) for p in box], [float(p[1]) for p in box]
        if not str(text).strip():
            continue
        lines.append(
            Line(
                str(text).strip(),
                left=min(xs) / scale,
                right=max(xs) / scale,
                top=page_height - min(ys) / scale,
                bottom=page_height - max(ys) / scale,
                size=(max(ys) - min(ys)) / scale * 0.8,  # a box is a little taller than its text
            )
        )
    return lines
