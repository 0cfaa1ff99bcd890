"""OCR of scanned pages: a page of a real PDF (Wikipedia's "Wiki", page 4) rendered to an
image and put, as an image only, after a real text page; Tesseract, and RapidOCR (the
``ocr`` extra, no system package), read it and its text keeps its page number. Without
an engine a PDF of scans only says how to get OCR."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from conftest import shared
from footnoted.errors import DocumentError
from footnoted.loaders import load_bytes
from footnoted.loaders.ocr import engine, rapidocr_installed, tesseract
from footnoted.pages import page_in_text
from footnoted.service.facade import Footnoted
from footnoted.settings import Settings

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


def test_rapidocr_reads_a_scanned_page_with_nothing_from_the_system(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if not rapidocr_installed():
        pytest.skip("footnoted's ocr extra is not installed")
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on the PATH
    found = engine()
    assert found is not None and found[0] == "rapidocr"
    doc = load_bytes(scanned_pdf([1], 4), "scan.pdf")
    at = doc.text.find("backlink")  # its neighbours may lose their spaces: PP-OCR's way
    assert at > 0 and page_in_text(doc.text, at) == 2
    assert "hypertext" in doc.text and "categories" in doc.text
    assert doc.segments[0].page == 1
    monkeypatch.setenv("FOOTNOTED_OCR_ENGINE", "tesseract")  # chosen, and not installed
    assert engine() is None


def test_scans_only_without_ocr_say_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOOTNOTED_OCR_ENGINE", "off")
    with pytest.raises(DocumentError, match="FOOTNOTED_OCR_ENGINE=auto"):
        load_bytes(scanned_pdf([], 4), "scan.pdf")
    monkeypatch.setenv("FOOTNOTED_OCR_ENGINE", "rapidocr")
    monkeypatch.setattr("footnoted.loaders.ocr.rapidocr_installed", lambda: False)
    with pytest.raises(DocumentError, match=r"pip install 'footnoted\[ocr\]'"):
        load_bytes(scanned_pdf([], 4), "scan.pdf")


def test_the_setting_reaches_the_parse_workers(settings: Settings, tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf([], 4))
    with Footnoted(settings.model_copy(update={"ocr_engine": "off"})) as fn:
        (failed,) = fn.ingest([scan]).failed
    assert "turn OCR on (FOOTNOTED_OCR_ENGINE=auto)" in str(failed.error)
