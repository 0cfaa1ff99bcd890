"""OCR of scanned pages: a page of a real PDF (Wikipedia's "Wiki", page 4) rendered to an
image and put, as an image only, after a real text page; Tesseract reads it and its text
keeps its page number. Without Tesseract a PDF of scans only says how to get OCR."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from conftest import shared
from footnoted.errors import DocumentError
from footnoted.loaders import load_bytes
from footnoted.loaders.ocr import tesseract
from footnoted.pages import page_in_text

SENTENCE = "Some wikis, including the original, have a backlink feature"


def scanned_pdf(text_pages: list[int], scanned_page: int) -> bytes:
    """The source's ``text_pages`` as they are, then ``scanned_page`` as an image."""
    source = pdfium.PdfDocument(shared("pdfs", "haystack__sample_pdf_2.pdf"))
    out = pdfium.PdfDocument.new()
    if text_pages:
        out.import_pages(source, [n - 1 for n in text_pages])
    page = source[scanned_page - 1]
    width, height = page.get_size()
    image = pdfium.PdfImage.new(out)
    image.set_bitmap(page.render(scale=200 / 72))
    image.set_matrix(pdfium.PdfMatrix().scale(width, height))
    scan = out.new_page(width, height)
    scan.insert_obj(image)
    scan.gen_content()
    buffer = io.BytesIO()
    out.save(buffer)
    return buffer.getvalue()


def test_a_scanned_page_is_read_with_its_page_number() -> None:
    if tesseract() is None:
        pytest.skip("Tesseract is not installed (scripts/setup-ocr)")
    doc = load_bytes(scanned_pdf([1], 4), "scan.pdf")
    at = doc.text.find(SENTENCE)
    assert at > 0 and page_in_text(doc.text, at) == 2
    assert "which displays all pages that link to a given page" in doc.text
    assert doc.segments[0].page == 1  # the text page is read as text


def test_scans_only_without_ocr_say_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on the PATH
    with pytest.raises(DocumentError, match="apt install tesseract-ocr"):
        load_bytes(scanned_pdf([], 4), "scan.pdf")
