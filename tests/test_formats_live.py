"""Every kind added for documents as they live, end to end on a real ``footnoted serve``
on SQLite and on PostgreSQL: uploaded over HTTP as a user's browser sends it, processed,
then a question answered from it and cited where it is (the sheet, the slide and its
title, the message, the attachment, the scanned page)."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import httpx
import openpyxl
import pypdfium2 as pdfium
import pytest

from apihelpers import Server, bearer, cli, mid, start_server
from conftest import shared
from footnoted.loaders.ocr import engine
from webhelpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ask,
    last_answer,
    require_browser,
    screenshot,
    sign_in,
)

pytestmark = pytest.mark.slow


def workbook() -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Regions"
    for row in (("Region", "Revenue 2025 (USD)", "Staff"), ("North", 1200, 40), (),
                ("South", 950, 31), ("West", 1710, 52)):  # fmt: skip
        sheet.append(row)
    book.create_sheet("Notes").append(("Figures are unaudited and rounded to thousands.",))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def message_with_a_pdf() -> bytes:
    m = EmailMessage()
    m["From"] = "Ada Lovelace <ada@example.org>"
    m["To"] = "Team <team@example.org>"
    m["Date"] = "Tue, 03 Mar 2026 09:15:00 +0000"
    m["Subject"] = "The PDF history notes"
    m.set_content("The notes on the PDF format are attached.\n")
    pdf = shared("pdfs", "haystack__sample_pdf_1.pdf").read_bytes()
    m.add_attachment(pdf, maintype="application", subtype="pdf", filename="history.pdf")
    return m.as_bytes()


def scan() -> bytes:
    page = pdfium.PdfDocument(shared("pdfs", "haystack__sample_pdf_2.pdf"))[3]
    out = io.BytesIO()
    page.render(scale=200 / 72, grayscale=True).to_pil().save(out, "PNG", dpi=(200, 200))
    return out.getvalue()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[tuple[Server, str]]:
    home = tmp_path_factory.mktemp("formats") / "home"
    admin = cli(home, "user", "add", "root", "--admin").stdout.strip().splitlines()[-1]
    server = start_server(home, FOOTNOTED_RATE_LIMIT="0")
    try:
        yield server, admin
    finally:
        server.stop()


def upload(api: httpx.Client, name: str, data: bytes) -> dict[str, Any]:
    sent = api.post("/api/documents", files={"file": (name, data)})
    assert sent.status_code in (200, 201, 202), sent.text  # 200: that content is here already
    doc: dict[str, Any] = sent.json()
    deadline = time.monotonic() + 240
    while doc["status"] == "processing" and time.monotonic() < deadline:
        time.sleep(0.5)
        doc = api.get(f"/api/documents/{doc['id']}").json()
    assert doc["status"] == "ready", doc
    return doc


def asked(api: httpx.Client, question: str) -> tuple[str, dict[str, Any]]:
    reply = api.post("/api/chat", json={"message": question, "message_id": mid()}).json()
    assert reply["type"] == "answer", (question, reply)
    cited = [c for c in reply["citations"] if c["index"] in reply["referenced_indices"]]
    return reply["answer"], cited[0]


CASES = [  # West is the sheet's row 5: its header is row 1, and the empty row 3 counts
    ("regions.xlsx", workbook, "Which region had 1710 in revenue in 2025?", "West",
     "xlsx", None, "Regions", 5),
    ("constituents.csv", lambda: shared("docs-more", "sp500__constituents-financials.csv")
     .read_bytes(), "Which sector is A. O. Smith in?", "Building Products", "csv", None, None,
     3),
    ("top10.pptx", lambda: shared("docs-more", "owasp-top10__OWASP_Top_10_-_2013_Final_-_"
     "English.pptx").read_bytes(), "Since when has Aspect Security led the OWASP Top 10?",
     "2003", "pptx", 3, "Introduction", None),
    ("esl.mbox", lambda: shared("docs-more", "perceval__mbox_multipart.mbox").read_bytes(),
     "Which project is Chuwei Huang becoming a committer on?", "technology.esl", "mbox", None,
     "[esl-dev] Committer vote for Chuwei Huang has concluded successfully", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "make", "question", "expected", "kind", "page", "section", "row"), CASES
)
def test_each_kind_is_uploaded_answered_and_cited_where_it_is(
    site: tuple[Server, str], name: str, make: Any, question: str, expected: str, kind: str,
    page: int | None, section: str | None, row: int | None,
) -> None:  # fmt: skip
    server, admin = site
    with httpx.Client(base_url=server.url, headers=bearer(admin), timeout=120) as api:
        doc = upload(api, name, make())
        assert doc["kind"] == kind
        answer, cited = asked(api, question)
    assert expected in answer
    assert cited["document_id"] == doc["id"]
    assert (cited["page"], cited["section"], cited["row"]) == (page, section, row)
    if kind == "csv":  # the exact answer's cell: the Sector column of A. O. Smith's row
        assert cited["cell"] == "C3"


def test_a_message_brings_its_attachment_and_a_scan_is_read(site: tuple[Server, str]) -> None:
    server, admin = site
    with httpx.Client(base_url=server.url, headers=bearer(admin), timeout=120) as api:
        message = upload(api, "notes.eml", message_with_a_pdf())
        docs = {d["title"]: d for d in api.get("/api/documents").json()}
        attached = docs["history.pdf (attached to “The PDF history notes”)"]
        assert attached["kind"] == "pdf" and attached["source"].endswith(
            "#attachment/1/history.pdf"
        )
        answer, cited = asked(
            api, "When did Adobe make the PDF specification available free of charge?"
        )
        assert "1993" in answer and cited["document_id"] == attached["id"]
        assert cited["page"] == 1 and message["kind"] == "eml"
        if engine() is None:
            pytest.skip("no OCR engine is installed")
        scanned = upload(api, "wiki-page.png", scan())
        assert (scanned["kind"], scanned["page_count"]) == ("png", 1)
        answer, cited = asked(api, "Which feature displays all pages that link to a given page?")
        assert "backlink" in answer and cited["document_id"] == scanned["id"]


def test_an_uploaded_workbook_is_kept_for_download(site: tuple[Server, str]) -> None:
    server, admin = site
    with httpx.Client(base_url=server.url, headers=bearer(admin), timeout=120) as api:
        doc = upload(api, "regions-copy.xlsx", workbook())
        got = api.get(f"/api/documents/{doc['id']}/download")
    assert got.status_code == 200
    assert got.headers["content-type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert openpyxl.load_workbook(io.BytesIO(got.content)).sheetnames == ["Regions", "Notes"]


def test_a_cited_row_opens_in_its_table(site: tuple[Server, str], backend: str) -> None:
    sync_api = require_browser()
    server, admin = site
    with httpx.Client(base_url=server.url, headers=bearer(admin), timeout=120) as api:
        upload(api, "regions.xlsx", workbook())
        doc_id = asked(api, "Which region had 1710 in revenue in 2025?")[1]["document_id"]
        at = api.get(f"/api/documents/{doc_id}/text").json()["text"].index("West")
        table = api.get(f"/api/documents/{doc_id}/table", params={"at": at}).json()
        assert (table["sheet"], table["cited"], table["header"]["number"]) == ("Regions", 5, 1)
        assert [r["number"] for r in table["rows"]] == [2, 4, 5]  # row 3 is empty
        assert table["rows"][-1]["cells"] == ["West", "1710", "52"]
        prose = upload(api, "memo.md", b"# Memo\n\nThe office closes at six.\n")
        missing = api.get(f"/api/documents/{prose['id']}/table", params={"at": 3})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_a_sheet"
    pw = sync_api.sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(base_url=server.url).new_page()
        page.goto("/")
        sign_in(page, admin)
        ask(page, "Which region had 1710 in revenue in 2025?")
        answer = last_answer(page)
        answer.locator(".badge").first.click()
        cited = page.locator("#viewer .sheet-table tr.cited")
        cited.wait_for()
        assert cited.inner_text().split() == ["5", "West", "1710", "52"]
        assert "Regions · row 5" in page.inner_text("#viewer-meta")
        assert (
            page.locator("#viewer .sheet-table caption").inner_text().startswith("Regions, row 5")
        )
        screenshot(page, f"40-a-cited-row-in-its-table-{backend}")
        page.context.close()
    finally:
        pw.stop()
