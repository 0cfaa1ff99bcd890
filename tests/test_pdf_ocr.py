"""OCR of scanned pages: a page of a real PDF (Wikipedia's "Wiki", page 4) rendered to an
image and put, as an image only, after a real text page; Tesseract, and RapidOCR (the
``ocr`` extra, no system package), read it and its text keeps its page number. Without
an engine a PDF of scans only says how to get OCR."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

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


def test_rapidocr_reads_in_a_parse_worker_at_the_default_memory_limit(
    settings: Settings, tmp_path: Path
) -> None:
    """RapidOCR's runtime ran out of the worker's 1,024 MB address space, so every PDF
    with a scanned page failed to ingest where Tesseract is not installed."""
    if not rapidocr_installed():
        pytest.skip("footnoted's ocr extra is not installed")
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf([1], 4))
    chosen = settings.model_copy(update={"ocr_engine": "rapidocr"})
    assert chosen.parse_memory_mb == 1024
    with Footnoted(chosen) as fn:
        (added,) = fn.ingest([scan]).results
        assert added.outcome == "added", added.error
        assert added.document_id is not None
        chunks = fn.store.document_chunks(added.document_id)
    assert [c.page for c in chunks if "backlink" in c.text] == [2]  # PP-OCR's spacing aside


def test_a_page_the_ocr_engine_fails_on_leaves_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine failing on a scanned page (RapidOCR out of memory: numpy's error) no
    longer fails the whole file: that page stays empty, the text pages are read, and
    the engine is not tried again on the file's later scans."""
    calls: list[int] = []

    def out_of_memory(page: object) -> list[object]:
        calls.append(1)
        raise MemoryError("Unable to allocate 50.3 MiB for an array")

    monkeypatch.setattr("footnoted.loaders.ocr.engine", lambda: ("rapidocr", out_of_memory))
    source = pdfium.PdfDocument(scanned_pdf([1], 4))
    source.import_pages(pdfium.PdfDocument(scanned_pdf([2], 4)))  # text, scan, text, scan
    buffer = io.BytesIO()
    source.save(buffer)
    doc = load_bytes(buffer.getvalue(), "scans.pdf")
    assert doc.page_count == 4 and calls == [1]
    assert {seg.page for seg in doc.segments} == {1, 3}
    assert SENTENCE not in doc.text


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


def page_image(pdf: str, number: int, dpi: int = 200) -> Image.Image:
    """A page of a shared PDF as a greyscale image, as a scanner or a camera makes it."""
    page = pdfium.PdfDocument(shared("pdfs", pdf))[number - 1]
    return page.render(scale=dpi / 72, grayscale=True).to_pil()


def saved(image: Image.Image, kind: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, kind, dpi=(200, 200), **options)
    return buffer.getvalue()


def test_images_are_documents_read_by_ocr(service: Footnoted, tmp_path: Path) -> None:
    if engine() is None:
        pytest.skip("no OCR engine is installed")
    wiki = page_image("haystack__sample_pdf_2.pdf", 4)
    png = load_bytes(saved(wiki, "PNG"), "scan.png")
    assert (png.kind, png.page_count) == ("png", 1) and "backlink" in png.text
    first = page_image("haystack__sample_pdf_1.pdf", 1)
    pages = saved(first, "TIFF", save_all=True, append_images=[wiki.copy()])  # a fresh copy:
    tiff = load_bytes(pages, "scan.tif")  # saving as PNG left Pillow's encoder settings on it
    assert (tiff.kind, tiff.page_count) == ("tiff", 2)
    assert page_in_text(tiff.text, tiff.text.find("backlink")) == 2
    assert page_in_text(tiff.text, tiff.text.find("standardization")) == 1
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(saved(first.convert("RGB"), "JPEG", quality=85))
    (added,) = service.ingest([photo]).results
    assert added.outcome == "added", added.error
    result = service.answer("When did Adobe make the PDF specification available free of charge?")
    assert result.answer is not None and "1993" in result.answer.text
    assert result.answer.citations[0].document_title == added.title


def test_a_broken_or_oversized_image_is_refused_before_it_is_read() -> None:
    if engine() is None:
        pytest.skip("no OCR engine is installed")
    with pytest.raises(DocumentError, match="not a readable image"):
        load_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "broken.png")
    header = saved(Image.new("L", (8, 8)), "PNG")
    for side, said in ((10_000, "the limit is 60,000,000 pixels"), (100_000, "larger than")):
        ihdr = side.to_bytes(4, "big") * 2 + header[24:29]  # width, height, the rest
        huge = header[:16] + ihdr + zlib.crc32(b"IHDR" + ihdr).to_bytes(4, "big") + header[33:]
        with pytest.raises(DocumentError, match=said):
            load_bytes(huge, "huge.png")
