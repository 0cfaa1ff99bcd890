"""Real texts for benchmarks, read from the shared evaluation data (never copied)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..evaluation.datasets import read_beir_corpus, safe_stem
from ..ingest import embedding_text
from ..service import Footnoted

DATA = Path("../shared/data")
# what the benchmarks read from it
FILES = (
    "squad2/dev-16-articles.json",
    "hotpotqa/dev-53.json",
    "scifact/corpus.jsonl",
    "scifact/queries.jsonl",
)


def missing_files(data: Path) -> list[str]:
    return [name for name in FILES if not (data / name).is_file()]


def scifact_files(data: Path, limit: int | None = None) -> dict[str, str]:
    """SciFact abstracts as ``{file name: text}`` (title as the first line)."""
    corpus = read_beir_corpus(data / "scifact")[:limit]
    return {f"{safe_stem(d.id)}{d.suffix}": d.file_text() for d in corpus}


def squad_paragraphs(data: Path) -> Iterator[tuple[str, str]]:
    raw = json.loads((data / "squad2" / "dev-16-articles.json").read_text(encoding="utf-8"))
    for article in raw["data"]:
        for i, paragraph in enumerate(article["paragraphs"]):
            yield f"{article['title']} ({i + 1})", paragraph["context"]


def hotpot_paragraphs(data: Path) -> Iterator[tuple[str, str]]:
    seen: set[str] = set()
    for item in json.loads((data / "hotpotqa" / "dev-53.json").read_text(encoding="utf-8")):
        for title, sentences in item["context"]:
            if title not in seen:
                seen.add(title)
                yield title, "".join(sentences)


def questions(data: Path) -> list[str]:
    """Questions that the real texts can answer: SQuAD, HotpotQA and SciFact claims."""
    raw = json.loads((data / "squad2" / "dev-16-articles.json").read_text(encoding="utf-8"))
    squad = [
        qa["question"]
        for article in raw["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
        if not qa.get("is_impossible")
    ]
    hotpot = [q["question"] for q in json.loads((data / "hotpotqa" / "dev-53.json").read_text())]
    claims = [
        json.loads(line)["text"]
        for line in (data / "scifact" / "queries.jsonl").read_text().splitlines()
    ]
    mixed = [q for group in zip(squad, claims, strict=False) for q in group]
    return list(dict.fromkeys(mixed + hotpot))


def chunk_texts(fn: Footnoted, files: dict[str, str], limit: int) -> list[str]:
    """What ingestion would embed for these files: chunk text with title and section."""
    texts: list[str] = []
    for name, text in files.items():
        pending = fn.ingestor.prepare(text.encode(), name, name, "bench")
        chunks = getattr(pending, "chunks", [])
        texts.extend(embedding_text(pending.document.title, c) for c in chunks)  # type: ignore[union-attr]
        if len(texts) >= limit:
            break
    return texts[:limit]
