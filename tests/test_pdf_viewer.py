"""A PDF citation opens the real page: a real ``footnoted serve`` over four pages of the
Lyft 10-K (pages 37-40, cut with pypdf), a quote that starts on the third page, its page
in /api/chat, /v1, the CLI and the UI, the page rendered by
PDFium with the quote's boxes on it (checked against the text PDFium finds inside them),
and the viewer in Debian's Chromium."""

from __future__ import annotations

import ctypes
import io
import re
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import httpx
import pypdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from apihelpers import Server, bearer, cli, mid, start_server
from conftest import SAMPLES, shared
from footnoted import Footnoted, Settings
from footnoted.loaders.pdf import load_pdf
from footnoted.service.pdfview import passage_boxes
from webhelpers import CHROMIUM, CHROMIUM_ARGS, require_browser, screenshot

pytestmark = pytest.mark.slow

QUESTION = "What could a prolonged interruption in the availability of our offerings result in?"
QUOTE = "A prolonged interruption in the availability or reduction in the availability"
TITLE = "lyft-2021-excerpt"  # the cut loses the 10-K's title page
PAGE = 3  # page 39 of the 10-K


def excerpt(first: int, last: int) -> bytes:
    reader = pypdf.PdfReader(shared("pdfs-more", "R2R__lyft_2021.pdf"))
    writer = pypdf.PdfWriter()
    for number in range(first, last + 1):
        writer.add_page(reader.pages[number - 1])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


class Site:
    def __init__(self, server: Server, token: str, pdf: bytes) -> None:
        self.server, self.token, self.pdf = server, token, pdf

    def api(self, token: str | None = None) -> httpx.Client:
        headers = bearer(token or self.token) if token != "" else {}
        return httpx.Client(base_url=self.server.url, headers=headers, timeout=120)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("pdfviewer")
    home, pdf = root / "home", excerpt(37, 40)
    path = root / "docs" / f"{TITLE}.pdf"
    path.parent.mkdir()
    path.write_bytes(pdf)
    with Footnoted(Settings(home=home)) as fn:
        assert not fn.ingest([path, SAMPLES / "handbook.md"]).failed
    token = cli(home, "user", "add", "alice").stdout.strip().splitlines()[-1]
    server = start_server(home, FOOTNOTED_RATE_LIMIT="0")
    try:
        yield Site(server, token, pdf)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def answer(site: Site) -> dict[str, Any]:
    with site.api() as api:
        body: dict[str, Any] = api.post(
            "/api/chat", json={"message": QUESTION, "message_id": mid()}
        ).json()
    assert body["type"] == "answer", body
    return body


def test_the_quote_is_cited_at_its_own_page_everywhere(site: Site, answer: dict[str, Any]) -> None:
    lead = answer["spans"][0]
    cited = next(c for c in answer["citations"] if c["index"] == lead["index"])
    assert answer["answer"].startswith(QUOTE)
    # whichever chunk holding the quote the reader chose (one starting on page 2 or 3),
    # the span and the citation carry the quote's own page (test_pdf_pages checks a quote
    # on the next page of its chunk without a reader's choice in between)
    assert lead["page"] == PAGE and cited["page"] == PAGE
    assert answer["citation_map"][str(lead["index"])]["metadata"]["page"] == PAGE
    assert f"{TITLE} — Page {PAGE}" in answer["answer_markdown"]
    with site.api() as api:
        v1 = api.post(
            "/v1/chat/completions",
            json={"model": "default", "messages": [{"role": "user", "content": QUESTION}]},
        ).json()
    assert f"Page {PAGE}" in v1["choices"][0]["message"]["content"]
    assert v1["citations"]["spans"][0]["page"] == PAGE
    asked = cli(
        site.server.home, "ask", "--server", site.server.url, "--token", site.token, QUESTION
    )
    assert f"{TITLE} — Page {PAGE}" in asked.stdout, asked.stdout + asked.stderr


def text_in(pdf: bytes, page: int, boxes: list[dict[str, float]]) -> str:
    """The text PDFium finds inside each box (fractions of the displayed page)."""
    doc = pdfium.PdfDocument(pdf)
    try:
        p = doc[page - 1]
        width, height = p.get_size()
        textpage = p.get_textpage()
        out = []
        for b in boxes:  # unrotated pages: PDF y grows upwards
            left, right = b["left"] * width, (b["left"] + b["width"]) * width
            top, bottom = (1 - b["top"]) * height, (1 - b["top"] - b["height"]) * height
            n = pdfium_c.FPDFText_GetBoundedText(textpage, left, top, right, bottom, None, 0)
            buffer = ctypes.create_string_buffer(2 * (n + 1))
            pdfium_c.FPDFText_GetBoundedText(
                textpage,
                left,
                top,
                right,
                bottom,
                ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)),
                n,
            )
            out.append(buffer.raw[: 2 * n].decode("utf-16-le"))
        textpage.close()
        p.close()
        return " ".join(out)
    finally:
        doc.close()


def test_the_page_and_the_quotes_boxes(site: Site, answer: dict[str, Any]) -> None:
    lead = answer["spans"][0]
    doc_id = answer["citations"][0]["document_id"]
    pages = f"/api/documents/{doc_id}/pages"
    with site.api() as api:
        image = api.get(f"{pages}/{PAGE}/image", params={"width": 800})
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert image.content.startswith(b"\x89PNG") and int.from_bytes(image.content[16:20]) == 800
        found = api.get(
            f"{pages}/{PAGE}/highlights",
            params={"start": [lead["doc_start"]], "end": [lead["doc_end"]]},
        ).json()
        assert found["page_count"] == 4
        boxes = found["highlights"][0]["boxes"]
        assert 1 <= len(boxes) <= 6
        inside = " ".join(text_in(site.pdf, PAGE, boxes).split())
        assert QUOTE in inside and "loss of users" in inside
        before = api.get(
            f"{pages}/{PAGE - 1}/highlights",
            params={"start": [lead["doc_start"]], "end": [lead["doc_end"]]},
        ).json()
        assert before["highlights"][0]["boxes"] == []  # no part of it is on the page before
        assert api.get(f"{pages}/5/image").json()["error"]["code"] == "page_not_found"
        assert (
            api.get(f"{pages}/1/highlights", params={"start": [5], "end": [1]}).status_code == 422
        )
        markdown = next(d for d in api.get("/api/documents").json() if d["kind"] != "pdf")
        missing = api.get(f"/api/documents/{markdown['id']}/pages/1/image")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_pages"
    with site.api("") as anonymous:
        assert anonymous.get(f"{pages}/{PAGE}/image").status_code == 401


def test_the_viewer_opens_the_real_page_with_the_quote_highlighted(site: Site) -> None:
    sync_api = require_browser()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(base_url=site.server.url, viewport={"width": 1360, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto("/")
        page.fill("#token", site.token)
        page.click("#signin-form button[type=submit]")
        page.fill("#question", QUESTION)
        page.press("#question", "Enter")
        page.wait_for_selector(".msg-answer:last-child .copy", timeout=120_000)
        badge = page.locator(".msg-answer").last.locator(".badge").first
        badge.hover()
        assert f"Page {PAGE}" in page.locator("#tooltip").inner_text()
        badge.click()
        page.wait_for_selector("#viewer .pdf-mark-quote")
        assert page.locator("#viewer .page-label").inner_text() == f"Page {PAGE} of 4"
        assert page.evaluate("document.querySelector('#viewer .pdf-image').naturalWidth") >= 600
        image = page.locator("#viewer .pdf-image").bounding_box()
        marks = [m.bounding_box() for m in page.locator("#viewer .pdf-mark-quote").all()]
        assert marks and all(image_holds(image, m) for m in marks)
        assert page.locator("#viewer .pdf-mark-answer").count() >= 1
        screenshot(page, "21-pdf-real-page-highlight")
        page.click("#viewer .view-switch[data-view=text]")
        page.wait_for_selector("#viewer mark.exact")
        assert QUOTE in page.locator("#viewer mark.exact").first.inner_text()
        screenshot(page, "22-pdf-text-view")
        page.click("#viewer .view-switch[data-view=page]")
        page.wait_for_selector("#viewer .pdf-mark-quote")
        page.click("#viewer .page-next")
        page.wait_for_selector("#viewer .pdf-page[data-page='4'] .pdf-image")
        assert page.locator("#viewer .page-label").inner_text() == "Page 4 of 4"
        assert page.locator("#viewer .page-next").is_disabled()
        assert not errors
        browser.close()


def image_holds(image: dict[str, float] | None, mark: dict[str, float] | None) -> bool:
    assert image is not None and mark is not None
    return (
        image["x"] - 1 <= mark["x"] <= mark["x"] + mark["width"] <= image["x"] + image["width"] + 1
        and image["y"] - 1 <= mark["y"] <= image["y"] + image["height"] + 1
    )


def test_a_row_printed_twice_on_a_page_is_highlighted_where_it_was_quoted() -> None:
    """Page 63 of the 10-K prints the revenue row in two tables; the second one's quote is
    highlighted in the second table, not where the same letters are printed first."""
    pdf = excerpt(63, 63)
    text = load_pdf(pdf, None, "lyft-p63.pdf").text
    rows = [m.span() for m in re.finditer(r"Revenue \| \$ \| 3,208,323[^\n]*", text)]
    assert len(rows) == 2
    (_, first_end), (start, end) = rows
    first = passage_boxes(pdf, 1, text[rows[0][0] : first_end], text[: rows[0][0]])
    second = passage_boxes(pdf, 1, text[start:end], text[:start])
    assert first and second
    assert max(b.top for b in first) < min(b.top for b in second)  # lower on the page
    inside = text_in(pdf, 1, [asdict(b) for b in second])
    assert "3,208,323" in inside and "36" in inside
