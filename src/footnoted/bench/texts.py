"""Real texts for benchmarks, read from the shared evaluation data (never copied)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..evaluation.datasets import (
    hotpot_paragraphs,
    read_beir_corpus,
    read_beir_queries,
    read_hotpot,
    read_squad,
    safe_stem,
)
from ..ingest.ingest import FileResult, embedding_texts
from ..models import FileBytes
from ..service.facade import Footnoted

DATA = Path("../shared/data")
# what the benchmarks read from it
SQUAD = "squad2/dev-16-articles.json"
HOTPOT = "hotpotqa/dev-53.json"
FILES = (SQUAD, HOTPOT, "scifact/corpus.jsonl", "scifact/queries.jsonl")


def missing_files(data: Path) -> list[str]:
    return [name for name in FILES if not (data / name).is_file()]


def scifact_files(data: Path, limit: int | None = None) -> dict[str, str]:
    """SciFact abstracts as ``{file name: text}`` (title as the first line)."""
    corpus = read_beir_corpus(data / "scifact")[:limit]
    return {f"{safe_stem(d.id)}{d.suffix}": d.file_text() for d in corpus}


def real_passages(data: Path) -> Iterator[tuple[str, str]]:
    """``(title, text)``: SQuAD's paragraphs (titled "<article> (n)"), then HotpotQA's."""
    for article in read_squad(data / SQUAD):
        for i, paragraph in enumerate(article.paragraphs):
            yield f"{article.title} ({i + 1})", paragraph
    yield from hotpot_paragraphs(read_hotpot(data / HOTPOT))[0].items()


def questions(data: Path) -> list[str]:
    """Questions that the real texts can answer: SQuAD, HotpotQA and SciFact claims."""
    squad = [
        q.question for a in read_squad(data / SQUAD) for q in a.questions if not q.is_impossible
    ]
    hotpot = [q.question for q in read_hotpot(data / HOTPOT)]
    claims = list(read_beir_queries(data / "scifact").values())
    mixed = [q for group in zip(squad, claims, strict=False) for q in group]
    return list(dict.fromkeys(mixed + hotpot))


def chunk_texts(fn: Footnoted, files: dict[str, str], limit: int) -> list[str]:
    """What ingestion would embed for these files (``ingest.embedding_texts``)."""
    texts: list[str] = []
    for name, text in files.items():
        pending = fn.ingestor.prepare(FileBytes.of_bytes(text.encode()), name, name, "bench")
        if not isinstance(pending, FileResult):
            texts.extend(embedding_texts(pending.parts))
        if len(texts) >= limit:
            break
    return texts[:limit]
