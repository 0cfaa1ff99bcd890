"""Images (PNG, JPEG, TIFF): a scanned page, a photo of one or a screenshot, read by OCR.

Each frame (a TIFF may hold many) becomes a page: it is put on a PDF page of its own size
(at the resolution the file states, 300 dpi where it states none) and read by the OCR
engine as a scanned PDF page is (:mod:`.ocr`), so its lines are laid out into headings
and paragraphs as any page's are. Without an OCR engine an image fails with a message
saying how to get one. An image of more than ``MAX_PIXELS`` pixels, or a frame count
past the PDF page limit, is refused before it is decoded.
"""

from __future__ import annotations

import io
import warnings

import pypdfium2 as pdfium
from PIL import Image, ImageSequence, UnidentifiedImageError

from footnoted import loaders
from footnoted.errors import DocumentError
from footnoted.models import ParsedDocument

from . import ocr
from .blocks import assemble
from .pdf import PDFIUM_LOCK
from .pdflayout import Line, lay_out

MAX_PIXELS = 60_000_000  # a page scanned at 600 dpi is 35 million
DEFAULT_DPI = 300.0
_KIND_OF_FORMAT = {"PNG": "png", "JPEG": "jpeg", "MPO": "jpeg", "TIFF": "tiff"}


def load_image(data: bytes, _text: str | None, name: str) -> ParsedDocument:
    found = ocr.engine()
    if found is None:
        how = "turn OCR on (FOOTNOTED_OCR_ENGINE=auto)" if ocr.turned_off() else ocr.INSTALL_HINT
        raise DocumentError(f"{name} is an image: reading its text needs OCR; {how}.")
    read = found[1]
    try:
        with warnings.catch_warnings():  # the size is checked below, against a lower limit
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise DocumentError(f"{name} is larger than {MAX_PIXELS:,} pixels a page.") from exc
    except (UnidentifiedImageError, OSError) as exc:
        raise DocumentError(f"{name} is not a readable image (damaged or truncated).") from exc
    with image:
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise DocumentError(
                f"{name} is {width:,} × {height:,} pixels; the limit is "
                f"{MAX_PIXELS:,} pixels a page."
            )
        frames = getattr(image, "n_frames", 1)
        if frames > loaders.MAX_PDF_PAGES:
            raise DocumentError(
                f"{name} has {frames:,} pages; the limit is {loaders.MAX_PDF_PAGES:,}."
            )
        pages = [_read_frame(frame, read) for frame in ImageSequence.Iterator(image)]
        kind = _KIND_OF_FORMAT.get(str(image.format), "png")
    blocks, title = lay_out(pages, [], None)
    return assemble(blocks, kind=kind, title=title, page_count=len(pages))


def _read_frame(frame: Image.Image, read: ocr.Reader) -> list[Line]:
    """One frame's lines: put on a PDF page of its size and read as a scanned page."""
    gray = frame.convert("L")
    dpi = frame.info.get("dpi", (DEFAULT_DPI, DEFAULT_DPI))
    x_dpi = float(dpi[0]) if dpi and float(dpi[0]) > 1 else DEFAULT_DPI
    y_dpi = float(dpi[1]) if len(dpi) > 1 and float(dpi[1]) > 1 else x_dpi
    width, height = gray.width * 72 / x_dpi, gray.height * 72 / y_dpi
    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument.new()
        try:
            picture = pdfium.PdfImage.new(pdf)
            picture.set_bitmap(pdfium.PdfBitmap.from_pil(gray))
            picture.set_matrix(pdfium.PdfMatrix().scale(width, height))
            page = pdf.new_page(width, height)
            page.insert_obj(picture)
            page.gen_content()
            return read(page)
        finally:
            pdf.close()
