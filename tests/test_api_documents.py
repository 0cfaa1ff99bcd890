"""Documents over HTTP: upload limits, content sniffing, failures, enable/disable,
delete, reprocess, download and the viewer routes."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest

from apihelpers import Api, api
from conftest import shared
from footnoted import loaders


def plain_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("data.bin", bytes(range(256)))
    return buffer.getvalue()


NOTE = b"# Parking Rules\n\nVisitors park in the east lot after 6 pm. Permits are free.\n"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    home = tmp_path_factory.mktemp("docs") / "home"
    with api(home, rate_limit=0, max_file_mb=1.0) as a:
        yield a


def upload(app: Api, name: str, data: bytes, **form: str) -> dict[str, object]:
    r = app.client.post(
        "/api/documents", files={"file": (name, data)}, data=form, headers=app.admin
    )
    assert r.status_code in (200, 201), r.text
    body: dict[str, object] = r.json()
    return body


def test_upload_is_ready_and_answerable(app: Api) -> None:
    doc = upload(app, "parking.md", NOTE, collection="campus")
    assert doc["status"] == "ready" and doc["title"] == "Parking Rules"
    assert doc["chunk_count"] == 1 and doc["collection"] == "campus"
    body = app.chat("Where do visitors park?", collection="campus").json()
    assert body["type"] == "answer" and "east lot" in body["answer"]
    again = app.client.post(
        "/api/documents",
        files={"file": ("copy.md", NOTE)},
        data={"collection": "campus"},
        headers=app.admin,
    )
    assert again.status_code == 200 and again.json()["id"] == doc["id"]


def test_title_given_beats_the_documents_own_and_the_file_name(app: Api) -> None:
    given = upload(app, "a.md", b"# Own Title\n\nSome text about lamps.\n", title="Given")
    assert given["title"] == "Given"
    plain = upload(app, "lamp-care.txt", b"Lamps need new bulbs every year.\n")
    assert plain["title"] == "lamp-care"


def test_only_admins_change_documents(app: Api) -> None:
    r = app.client.post("/api/documents", files={"file": ("x.md", NOTE)}, headers=app.alice)
    assert r.status_code == 403 and r.json()["error"]["code"] == "admin_only"
    doc_id = app.client.get("/api/documents", headers=app.alice).json()[0]["id"]
    assert (
        app.client.patch(
            f"/api/documents/{doc_id}", json={"enabled": False}, headers=app.alice
        ).status_code
        == 403
    )
    assert app.client.delete(f"/api/documents/{doc_id}", headers=app.alice).status_code == 403


def test_too_large_is_413(app: Api) -> None:
    big = b"word " * 300_000  # 1.5 MB, over the 1 MB limit of this app
    r = app.client.post("/api/documents", files={"file": ("big.txt", big)}, headers=app.admin)
    assert r.status_code == 413
    assert r.json()["error"]["code"] in {"file_too_large", "request_too_large"}


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("report.pdf", b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4),
        ("photo.txt", b"GIF89a" + bytes(range(256)) * 4),
        ("archive.docx", plain_zip()),
    ],
)
def test_type_is_judged_by_content_not_name(app: Api, name: str, data: bytes) -> None:
    r = app.client.post("/api/documents", files={"file": (name, data)}, headers=app.admin)
    assert r.status_code == 415, r.text
    assert r.json()["error"]["code"] == "unsupported_type"


def test_unreadable_file_fails_with_a_readable_error(app: Api) -> None:
    doc = upload(app, "broken.pdf", b"%PDF-1.7\n" + b"\x00garbage" * 100)
    assert doc["status"] == "failed"
    assert isinstance(doc["error"], str) and "broken.pdf" in doc["error"]
    listed = app.client.get(f"/api/documents/{doc['id']}", headers=app.alice).json()
    assert listed["status"] == "failed"


def test_docx_zip_bomb_fails_without_harm(app: Api) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        z.writestr("word/document.xml", b"<w:document>" + b" " * (5 * 1024 * 1024))
    r = app.client.post(
        "/api/documents", files={"file": ("bomb.docx", buffer.getvalue())}, headers=app.admin
    )
    assert r.status_code in (201, 413, 415, 422), r.text
    if r.status_code == 201:
        assert r.json()["status"] == "failed" and r.json()["error"]
    assert loaders.MAX_ZIP_RATIO == 100
    assert app.client.get("/api/health").status_code == 200


def test_parsing_has_a_time_limit(tmp_path: Path) -> None:
    # ~3 MB of prose: splitting and tokenising it takes seconds, far past 50 ms.
    big = b"\n\n".join(
        b"Paragraph %d says that the quiet river bends north past the old mill." % i
        for i in range(40_000)
    )
    with api(tmp_path / "home", ingest=False, parse_timeout_s=0.05) as a:
        doc = upload(a, "slow.md", big)
        assert doc["status"] == "failed"
        assert "took longer than" in str(doc["error"])


def test_disable_takes_effect_on_the_next_question(app: Api) -> None:
    docs = app.client.get("/api/documents", headers=app.alice).json()
    handbook = next(d for d in docs if d["title"] == "Northwind Cloud Customer Handbook")
    question = "How are annual plans refunded?"
    assert app.chat(question).json()["type"] == "answer"
    r = app.client.patch(
        f"/api/documents/{handbook['id']}", json={"enabled": False}, headers=app.admin
    )
    assert r.status_code == 200 and r.json()["enabled"] is False
    body = app.chat(question).json()
    cited = {c["document_id"] for c in body.get("citations", [])}
    assert handbook["id"] not in cited
    app.client.patch(f"/api/documents/{handbook['id']}", json={"enabled": True}, headers=app.admin)
    body = app.chat(question).json()
    assert handbook["id"] in {c["document_id"] for c in body["citations"]}
    bad = app.client.patch(
        f"/api/documents/{handbook['id']}", json={"enabled": "maybe"}, headers=app.admin
    )
    assert bad.status_code == 422


def test_download_viewer_delete_and_reprocess(app: Api) -> None:
    data = b"# Bike Storage\n\nBikes go in the basement room B2. It opens at 7 am.\n"
    doc = upload(app, "bikes.md", data, collection="campus")
    path = f"/api/documents/{doc['id']}"
    assert app.client.get(path + "/download").status_code == 401
    r = app.client.get(path + "/download", headers=app.alice)
    assert r.status_code == 200 and r.content == data
    assert r.headers["content-disposition"].startswith("attachment;")
    assert r.headers["x-content-type-options"] == "nosniff"
    text = app.client.get(path + "/text", headers=app.alice).json()["text"]
    chunks = app.client.get(path + "/chunks", headers=app.alice).json()
    assert chunks and all(text[c["char_start"] : c["char_end"]] == c["text"] for c in chunks)
    again = app.client.post(path + "/reprocess", headers=app.admin)
    assert again.status_code == 201 and again.json()["status"] == "ready"
    assert app.client.get(path + "/chunks", headers=app.alice).json() == chunks
    assert app.client.delete(path, headers=app.admin).status_code == 204
    for sub in ("", "/chunks", "/text", "/download"):
        assert app.client.get(path + sub, headers=app.alice).status_code == 404
    body = app.chat("Where do bikes go?", collection="campus").json()
    assert doc["id"] not in {c["document_id"] for c in body.get("citations", [])}
    assert app.client.post(path + "/reprocess", headers=app.admin).status_code == 404


def _docx(paragraphs: list[tuple[str, str]]) -> bytes:
    document = docx.Document()
    for style, text in paragraphs:
        document.add_paragraph(text, style=style)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_document_text_names_its_headings_for_the_viewer(app: Api) -> None:
    """Markdown, Word and HTML keep their structure: ``/text`` says where each heading is
    and at what level, in the offsets citations use."""
    outline = [("Title", 1), ("Rooms", 2), ("Booking", 3), ("Keys", 2)]
    body = "Rooms are booked a week ahead and held for ten minutes past the hour."
    files = {
        "rooms.md": f"# Title\n\n## Rooms\n\n### Booking\n\n{body}\n\n## Keys\n\nAt the desk.\n",
        "rooms.html": (
            "<html><body><h1>Title</h1><h2>Rooms</h2><h3>Booking</h3>"
            f"<p>{body}</p><h2>Keys</h2><p>At the desk.</p></body></html>"
        ),
    }
    uploads = {
        name: upload(app, name, text.encode(), collection="rooms") for name, text in files.items()
    }
    word = [("Heading 1", "Title"), ("Heading 2", "Rooms"), ("Heading 3", "Booking"),
            ("Normal", body), ("Heading 2", "Keys"), ("Normal", "At the desk.")]  # fmt: skip
    uploads["rooms.docx"] = upload(app, "rooms.docx", _docx(word), collection="rooms")
    for name, doc in uploads.items():
        got = app.client.get(f"/api/documents/{doc['id']}/text", headers=app.alice).json()
        found = [(got["text"][h["start"] : h["end"]], h["level"]) for h in got["headings"]]
        assert found == outline, name
    plain = upload(app, "rooms.txt", body.encode(), collection="rooms")
    got = app.client.get(f"/api/documents/{plain['id']}/text", headers=app.alice).json()
    assert got["headings"] == []


def test_ingested_files_download_from_their_source_whose_path_only_admins_see(app: Api) -> None:
    docs = app.client.get("/api/documents", headers=app.admin).json()
    retention = next(d for d in docs if d["title"] == "Data Retention Policy")
    path = Path(retention["source"])
    assert path.is_absolute() and path.is_file()
    listed = app.client.get("/api/documents", headers=app.alice).json()
    one = app.client.get(f"/api/documents/{retention['id']}", headers=app.alice).json()
    assert {d["source"] for d in listed if d["id"] == retention["id"]} == {path.name}
    assert one["source"] == path.name == "data-retention.html"
    assert all("/" not in d["source"] for d in listed)
    r = app.client.get(f"/api/documents/{retention['id']}/download", headers=app.alice)
    assert r.status_code == 200 and r.content == path.read_bytes()


STAGES = ["queued", "parsing", "embedding", "saving"]


def test_an_upload_answered_at_once_shows_its_stages_until_ready(app: Api) -> None:
    data = shared("pdfs", "haystack__react_paper.pdf").read_bytes()
    prefer = {**app.admin, "Prefer": "respond-async"}
    r = app.client.post("/api/documents", files={"file": ("react.pdf", data)}, headers=prefer)
    assert r.status_code == 202 and r.headers["Preference-Applied"] == "respond-async"
    doc = r.json()
    assert doc["status"] == "processing" and doc["progress"]["stage"] in ("queued", "parsing")
    seen = [doc["progress"]]
    while doc["status"] == "processing":
        time.sleep(0.02)
        doc = app.client.get(f"/api/documents/{doc['id']}", headers=app.alice).json()
        listed = app.client.get("/api/documents", headers=app.admin).json()
        if doc["status"] == "processing":
            seen.append(doc["progress"])
        row = next(d for d in listed if d["id"] == doc["id"])  # fetched a moment later
        assert (row["progress"] is not None) == (row["status"] == "processing"), row
    assert doc["status"] == "ready" and doc["progress"] is None and doc["source"] == "react.pdf"
    order = [STAGES.index(p["stage"]) for p in seen]
    assert order == sorted(order) and STAGES.index("embedding") in order, seen
    embedding = [p for p in seen if p["stage"] == "embedding"]
    assert all(p["total"] == doc["chunk_count"] > 64 for p in embedding)
    done = [p["done"] for p in embedding]
    assert done == sorted(done) and all(0 <= d <= doc["chunk_count"] for d in done)
    again = app.client.post(f"/api/documents/{doc['id']}/reprocess", headers=prefer)
    assert again.status_code == 202 and again.json()["progress"]["stage"] in ("queued", "parsing")
    while again.json()["status"] == "processing":
        time.sleep(0.05)
        again = app.client.get(f"/api/documents/{doc['id']}", headers=app.admin)
    assert again.json()["status"] == "ready" and again.json()["chunk_count"] == doc["chunk_count"]


def test_an_upload_without_the_preference_waits_for_the_document(app: Api) -> None:
    r = app.client.post(
        "/api/documents", files={"file": ("rules.md", NOTE + b"Bikes go in racks.\n")},
        headers=app.admin,
    )  # fmt: skip
    assert r.status_code == 201 and "Preference-Applied" not in r.headers
    assert r.json()["status"] == "ready" and r.json()["progress"] is None
