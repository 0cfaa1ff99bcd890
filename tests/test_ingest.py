from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import SAMPLES, shared, write
from footnoted import Footnoted
from footnoted.errors import InvalidInput
from footnoted.ingest.ingest import Parts, embedding_texts
from footnoted.pages import page_at, page_in_text


def _chunk_ids(fn: Footnoted) -> set[str]:
    return {c.id for d in fn.store.list_documents() for c in fn.store.document_chunks(d.id)}


def test_ingest_walks_directories_recursively(service: Footnoted, tmp_path: Path) -> None:
    write(tmp_path / "docs" / "a.md", "# Alpha\n\nAlpha is the first letter.")
    write(tmp_path / "docs" / "nested" / "deeper" / "b.txt", "Beta is the second letter.")
    write(tmp_path / "docs" / ".hidden" / "c.txt", "Hidden files are skipped.")
    report = service.ingest([tmp_path / "docs"])
    assert report.count("added") == 2
    assert sorted(d.title for d in service.store.list_documents()) == ["Alpha", "b"]


def test_reingest_is_a_no_op(service: Footnoted) -> None:
    first = service.ingest([SAMPLES])
    ids = _chunk_ids(service)
    docs = {d.id: d.updated_at for d in service.store.list_documents()}
    second = service.ingest([SAMPLES])
    assert first.count("added") == 3
    assert second.count("unchanged") == 3 and second.count("added") == 0
    assert second.chunks == 0
    assert _chunk_ids(service) == ids
    assert {d.id: d.updated_at for d in service.store.list_documents()} == docs


def test_changed_file_is_the_next_version_and_replaces_its_chunks(
    service: Footnoted, tmp_path: Path
) -> None:
    path = write(tmp_path / "policy.txt", "Refunds take 10 days.\n\nShipping is free.")
    service.ingest([path])
    (old,) = service.store.list_documents()
    old_chunks = {c.id for c in service.store.document_chunks(old.id)}
    write(path, "Refunds take 5 days.\n\nShipping costs 3 dollars.")
    report = service.ingest([path])
    assert report.count("replaced") == 1
    (new,) = service.store.list_documents()
    assert (new.id, new.source, new.version) == (old.id, old.source, 2)
    assert new.created_at == old.created_at and new.content_hash != old.content_hash
    kept = service.store.document_version(old.id, 1)
    assert kept.text == "Refunds take 10 days.\n\nShipping is free." and kept.ended_by == "replaced"
    new_chunks = {c.id for c in service.store.document_chunks(new.id)}
    assert not old_chunks & new_chunks
    assert _chunk_ids(service) == new_chunks
    result = service.answer("How many days do refunds take?")
    assert result.answer is not None and "5 days" in result.answer.text


def test_bad_files_fail_one_line_each_and_the_rest_continue(
    service: Footnoted, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    write(docs / "good.md", "# Good\n\nThis file is fine and has text.")
    write(docs / "empty.txt", "")
    (docs / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage")
    (docs / "image.gif").write_bytes(b"GIF89a" + bytes(range(256)) * 4)
    write(docs / "also-good.txt", "Another fine file.")
    report = service.ingest([docs])
    assert report.count("added") == 2
    failed = {Path(r.source).name: r for r in report.failed}
    assert set(failed) == {"empty.txt", "corrupt.pdf", "image.gif"}
    assert all(r.error and r.code for r in failed.values())
    assert failed["image.gif"].code == "unsupported_type"
    assert failed["empty.txt"].code == "document_unreadable"
    titles = sorted(d.title for d in service.store.list_documents())
    assert titles == ["Good", "also-good"]
    assert all(d.status == "ready" and d.chunk_count > 0 for d in service.store.list_documents())


def test_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    from footnoted import Settings

    path = write(tmp_path / "big.txt", "word " * 300_000)
    with Footnoted(Settings(home=tmp_path / "h", max_file_mb=1)) as fn:
        report = fn.ingest([path])
        assert report.failed[0].code == "file_too_large"
        assert "limit" in (report.failed[0].error or "")
        assert fn.store.list_documents() == []


def test_store_is_consistent_after_ingest(samples_service: Footnoted) -> None:
    db = sqlite3.connect(samples_service.settings.home / "footnoted.db")
    chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    fts = db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    declared = db.execute("SELECT sum(chunk_count) FROM documents").fetchone()[0]
    assert chunks == fts == declared > 0
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_chunk_offsets_match_document_text(samples_service: Footnoted) -> None:
    for doc in samples_service.store.list_documents():
        text = samples_service.store.document_text(doc.id)
        for chunk in samples_service.store.document_chunks(doc.id):
            assert text[chunk.char_start : chunk.char_end] == chunk.text


def test_pdf_chunks_carry_pages(service: Footnoted) -> None:
    pdf = shared("pdfs", "pdfplumber__issue-33-lorem-ipsum.pdf")
    report = service.ingest([pdf])
    assert report.count("added") == 1
    (doc,) = service.store.list_documents()
    pages = [c.page for c in service.store.document_chunks(doc.id)]
    assert all(isinstance(p, int) and p >= 1 for p in pages)
    assert len(set(pages)) > 1
    assert pages == sorted(pages)
    # the stored text keeps its page breaks: every offset's page is derived from it
    text = service.store.document_text(doc.id)
    for chunk in service.store.document_chunks(doc.id):
        assert (
            page_at(chunk, chunk.char_start) == chunk.page == page_in_text(text, chunk.char_start)
        )
        assert page_at(chunk, chunk.char_end) == page_in_text(text, chunk.char_end - 1)


def test_disable_enable_and_delete(samples_service: Footnoted) -> None:
    question = "How long do deleted files stay in the trash?"
    assert not samples_service.answer(question).refused
    doc = next(
        d for d in samples_service.store.list_documents() if d.title == "Data Retention Policy"
    )
    samples_service.set_enabled(doc.id, False)
    result = samples_service.answer(question)
    cited = {c.document_id for c in result.answer.citations} if result.answer else set()
    assert doc.id not in cited
    samples_service.set_enabled(doc.id, True)
    result = samples_service.answer(question)
    assert result.answer is not None
    assert result.answer.citations[0].document_id == doc.id
    samples_service.delete(doc.id)
    assert doc.id not in {d.id for d in samples_service.store.list_documents()}
    result = samples_service.answer(question)
    assert doc.id not in {c.document_id for c in (result.answer.citations if result.answer else ())}


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,x", "/docs/a", "ftp://x/y"],
)
def test_a_document_link_must_be_an_absolute_http_url(service: Footnoted, url: str) -> None:
    with pytest.raises(InvalidInput) as info:
        service.ingest_bytes(b"The office opens at nine.", "note.txt", url=url)
    assert info.value.code == "invalid_url"
    assert service.store.list_documents() == []
    ok = service.ingest_bytes(b"The office opens at nine.", "note.txt", url="https://example.org/n")
    assert service.store.get_document(ok.document_id or "").url == "https://example.org/n"


def test_the_same_text_twice_in_one_ingest_is_a_duplicate_not_a_crash(
    service: Footnoted, tmp_path: Path
) -> None:
    write(tmp_path / "docs" / "a.txt", "The office opens at nine.")
    write(tmp_path / "docs" / "b.txt", "The office opens at nine.")
    report = service.ingest([tmp_path / "docs"])
    outcomes = sorted((Path(r.source).name, r.outcome, r.code) for r in report.results)
    assert outcomes == [("a.txt", "added", None), ("b.txt", "failed", "duplicate_document")]
    assert len(service.store.list_documents()) == 1


def test_files_parsed_ahead_are_stored_in_order_and_a_late_twin_is_still_a_duplicate(
    service: Footnoted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files are parsed a few ahead of embedding: with a flush after every file, the twin
    of the first file (parsed before the first was stored) is still caught."""
    from footnoted.ingest import ingest

    monkeypatch.setattr(ingest, "BATCH_CHUNKS", 1)
    for i in range(ingest.AHEAD + 3):
        write(tmp_path / "docs" / f"{i:02}.txt", f"Room {i} opens at {i + 1} o'clock.")
    write(tmp_path / "docs" / "99.txt", "Room 0 opens at 1 o'clock.")
    seen: list[str] = []
    report = service.ingest(
        [tmp_path / "docs"], progress=lambda r: seen.append(Path(r.source).name)
    )
    assert seen == sorted(seen)  # reported (and stored) in the order the files were walked
    outcomes = {Path(r.source).name: (r.outcome, r.code) for r in report.results}
    assert outcomes.pop("99.txt") == ("failed", "duplicate_document")
    assert set(outcomes.values()) == {("added", None)} and len(outcomes) == ingest.AHEAD + 3
    assert len(service.store.list_documents()) == ingest.AHEAD + 3
    again = service.ingest([tmp_path / "docs" / "00.txt", tmp_path / "docs" / "00.txt"])
    assert [r.outcome for r in again.results] == ["unchanged", "unchanged"]


def test_table_rows_are_embedded_with_their_header(service: Footnoted, tmp_path: Path) -> None:
    """A chunk that starts among a table's rows carries the table's first row in what is
    embedded (the title and section first, its own text last); the text stays as is."""
    rows = "\n".join(f"| Region {n} | {n * 7} | {n * 3}% |" for n in range(1, 80))
    table = "| Region | Active riders | Growth |\n|---|---|---|\n" + rows
    service.ingest([write(tmp_path / "riders.md", f"# Riders\n\nBy region.\n\n{table}\n")])
    (doc,) = service.store.list_documents()
    chunks = service.store.document_chunks(doc.id)
    assert len(chunks) > 2
    texts = embedding_texts(Parts(doc.title, service.store.document_text(doc.id), chunks))
    assert texts[0] == f"Riders\n{chunks[0].text}"  # the header row is in its own text
    for chunk, text in zip(chunks[1:], texts[1:], strict=True):
        assert text == f"Riders\nRegion | Active riders | Growth\n{chunk.text}"
        assert "Active riders" not in chunk.text
    (stored,) = service.store.fetch_chunks([chunks[1].id])
    pair = [texts[1], f"Riders\n{chunks[1].text}"]
    (with_header, without), _ = service.embedder.embed_passages(pair, [(), ()])  # as chunks are
    assert float(stored.vector @ with_header) > 0.999 > float(stored.vector @ without)
