"""The bounded parse worker: real worker processes, real loaders, real tokenizer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bombs import deep_html, inflating_pdf, large_text, single_line, zip_bomb_docx
from conftest import SAMPLES
from footnoted import Footnoted, Settings
from footnoted.errors import Cancelled, DocumentError, TooLarge
from footnoted.inference.embedding import get_embedder
from footnoted.ingest.chunking import Chunker
from footnoted.ingest.parsing import ChunkSpec, Parser
from footnoted.models import FileBytes

MAX_BYTES = 50 * 1024 * 1024


def make_parser(timeout_s: float = 60, memory_mb: int = 1024, max_chunks: int = 20_000) -> Parser:
    embedder = get_embedder(Settings())
    spec = ChunkSpec.for_model(embedder.path, 112, max_chunks)
    return Parser(spec, timeout_s=timeout_s, memory_mb=memory_mb)


@pytest.fixture
def parser() -> Iterator[Parser]:
    p = make_parser()
    yield p
    p.close()


def test_the_worker_chunks_as_the_embedder_counts(parser: Parser) -> None:
    embedder = get_embedder(Settings())
    local = Chunker(embedder.count_tokens, embedder.token_offsets, max_tokens=112)
    path = SAMPLES / "handbook.md"
    parsed = parser.parse(FileBytes.of_bytes(path.read_bytes()), path.name, "doc")
    assert parsed.chunks == local.chunk("doc", parsed.document)
    assert parsed.chunks and parsed.document.text


def test_errors_keep_their_class_code_and_message(parser: Parser) -> None:
    with pytest.raises(DocumentError, match="nests HTML elements") as info:
        parser.parse(FileBytes.of_bytes(deep_html()), "deep.html", "d")
    assert info.value.code == "document_unreadable"
    with pytest.raises(DocumentError, match="zip bomb"):
        parser.parse(FileBytes.of_bytes(zip_bomb_docx(250)), "bomb.docx", "d")
    with pytest.raises(DocumentError, match="20,000,000 limit") as info:
        parser.parse(FileBytes.of_bytes(single_line(21)), "line.txt", "d", MAX_BYTES)
    assert info.value.code == "text_too_long"
    assert parser.parse(
        FileBytes.of_bytes(b"Still working."), "ok.txt", "d"
    ).chunks  # the same worker


def test_a_pdf_bomb_stops_at_the_memory_limit_and_the_worker_is_replaced() -> None:
    parser = make_parser(memory_mb=512)
    try:
        with pytest.raises(DocumentError, match="512 MB of memory") as info:
            parser.parse(FileBytes.of_bytes(inflating_pdf(512)), "bomb.pdf", "d")
        assert info.value.code == "parse_memory_limit"
        assert parser.parse(FileBytes.of_bytes(b"After the bomb."), "ok.txt", "d").chunks
    finally:
        parser.close()


def test_a_parse_past_the_time_limit_is_killed() -> None:
    parser = make_parser(timeout_s=0.5)
    try:
        with pytest.raises(DocumentError, match=r"took longer than 0\.5 s") as info:
            parser.parse(FileBytes.of_bytes(large_text(4)), "slow.txt", "d")
        assert info.value.code == "parse_timeout"
        assert parser.parse(
            FileBytes.of_bytes(b"The next file gets a fresh worker."), "ok.txt", "d"
        ).chunks
    finally:
        parser.close()


def test_the_time_limit_counts_from_when_the_worker_is_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker slow to start (here: a second's sleep as its interpreter starts, as a
    cold disk or a busy machine gives) takes longer than the limit; its first file is
    still parsed, and a slow one is still stopped."""
    (tmp_path / "sitecustomize.py").write_text("import time\ntime.sleep(1.0)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the worker's interpreter runs it
    parser = make_parser(timeout_s=0.3)
    try:
        began = time.monotonic()
        assert parser.parse(FileBytes.of_bytes(b"A first file."), "ok.txt", "d").chunks
        assert time.monotonic() - began > 1.0  # the worker's start alone took longer
        with pytest.raises(DocumentError, match=r"took longer than 0\.3 s"):
            parser.parse(FileBytes.of_bytes(large_text(4)), "slow.txt", "d")
    finally:
        parser.close()


def test_a_kept_worker_gives_each_file_the_whole_limit() -> None:
    """A worker kept between files, ready longer ago than the limit, still gives the next
    file the whole limit (it is not stopped at its first check as if its time were spent):
    a long ingest's files past the limit's first minutes are parsed."""
    data = FileBytes.of_bytes(large_text(2))
    parser = make_parser(timeout_s=60)
    try:
        parser.parse(FileBytes.of_bytes(b"A first file."), "ok.txt", "d")
        began = time.monotonic()
        parser.parse(data, "long.txt", "d")
        took = time.monotonic() - began
    finally:
        parser.close()
    assert took > 0.25  # past the first check of whether the parse is still within limits
    parser = make_parser(timeout_s=round(3 * took, 2))
    try:
        assert parser.parse(FileBytes.of_bytes(b"A first file."), "ok.txt", "d").chunks
        time.sleep(parser.timeout_s + 0.5)  # the worker now was ready longer ago than that
        assert parser.parse(data, "long.txt", "d").chunks
    finally:
        parser.close()


def test_a_document_past_the_chunk_cap_is_too_large() -> None:
    parser = make_parser(max_chunks=5)
    try:
        with pytest.raises(TooLarge, match="FOOTNOTED_MAX_DOCUMENT_CHUNKS") as info:
            parser.parse(FileBytes.of_bytes(large_text(1)[:50_000]), "long.txt", "d")
        assert info.value.code == "too_large" and info.value.status == 413
        assert parser.parse(FileBytes.of_bytes(b"Short is fine."), "ok.txt", "d").chunks
    finally:
        parser.close()


def test_a_parse_no_longer_wanted_stops_within_a_second() -> None:
    parser = make_parser(timeout_s=60)
    began = time.monotonic()
    try:
        with pytest.raises(Cancelled):
            parser.parse(FileBytes.of_bytes(large_text(4)), "slow.txt", "d",
                         cancelled=lambda: time.monotonic() - began > 0.5)  # fmt: skip
        assert time.monotonic() - began < 1.5
        assert parser.parse(FileBytes.of_bytes(b"A fresh worker."), "ok.txt", "d").chunks
    finally:
        parser.close()


def test_cli_ingest_goes_through_the_worker(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "deep.html").write_bytes(deep_html())
    (files / "line.txt").write_bytes(single_line(2))
    (files / "ok.md").write_text("# Note\n\nThe office opens at nine.\n")
    with Footnoted(Settings(home=tmp_path / "home", parse_memory_mb=512)) as fn:
        report = fn.ingest([files])
        assert fn.ingestor.parser.memory_mb == 512
        docs = {d.title: d for d in fn.store.list_documents()}
    failed = {Path(r.source).name: r for r in report.failed}
    assert set(failed) == {"deep.html"} and "nests HTML" in (failed["deep.html"].error or "")
    line = next(r for r in report.results if r.source.endswith("line.txt"))
    assert line.outcome == "added" and line.chunks > 1000  # 2 MiB in chunks of <= 1,792 chars
    assert docs["Note"].chunk_count == 1
