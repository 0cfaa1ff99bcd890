"""Knowledge bases for ``bench query`` and ``bench load``, built once and kept.

Real text comes first: SQuAD and HotpotQA paragraphs and SciFact abstracts, ingested
and embedded for real up to ``real`` chunks. Larger scales are filled with generated
chunks, labelled as such: text made of real sentences drawn at random, vectors a real
chunk's vector plus Gaussian noise (cosine about 0.7 to it), so the index sees vectors
shaped like real ones without embedding a million texts. Their sentence vectors are the
chunk's vector plus noise again, one per sentence, so every chunk is stored and fetched
like a real one.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..evaluation.datasets import safe_stem
from ..lexical import chunk_sentences
from ..models import Chunk, Document
from ..service.facade import Footnoted
from ..settings import Settings
from .texts import real_passages, scifact_files

Progress = Callable[[str, int, int], None]
Vectors = npt.NDArray[np.float32]
PER_DOCUMENT = 25
NOISE = 0.05


@dataclass(frozen=True)
class SeedDocument:
    document: Document
    text: str
    chunks: list[Chunk]
    vectors: Vectors
    sentences: list[Vectors]  # per chunk, one row per sentence; empty where not stored


Seed = list[SeedDocument]


@dataclass(frozen=True)
class BenchStore:
    chunks: int
    real_chunks: int
    generated_chunks: int
    build_seconds: float
    index_seconds: float


def real_files(data: Path) -> Iterator[tuple[str, str]]:
    for title, text in real_passages(data):
        yield f"{safe_stem(title)}.md", f"# {title}\n\n{text}\n"
    yield from scifact_files(data).items()


def ingest_real(fn: Footnoted, data: Path, real: int, progress: Progress) -> None:
    """Ingest real documents in batches until the knowledge base holds ``real`` chunks."""
    files = real_files(data)
    with tempfile.TemporaryDirectory(prefix="footnoted-bench-") as tmp:
        count = 0
        while count < real:
            batch = [next(files, None) for _ in range(50)]
            present = [f for f in batch if f is not None]
            if not present:
                return
            folder = Path(tmp) / str(count)
            folder.mkdir()
            for name, text in present:
                (folder / name).write_text(text, encoding="utf-8")
            count += fn.ingest([folder]).chunks
            progress("real text", min(count, real), real)


def seed(home: Path, data: Path, real: int, progress: Progress) -> Seed:
    """The real documents with their chunks and vectors (embedded once, then cached)."""
    with Footnoted(Settings(home=home, database_url=None)) as fn:
        if fn.store.count_chunks(fn.settings.collection) < real:
            ingest_real(fn, data, real, progress)
        out: Seed = []
        for doc in fn.store.list_documents():
            chunks = fn.store.document_chunks(doc.id)
            stored = fn.store.fetch_chunks([c.id for c in chunks])
            vectors = np.stack([s.vector for s in stored]).astype(np.float32)
            kept = [s.sentences for s in stored]
            sentences = [] if any(k is None for k in kept) else [k for k in kept if k is not None]
            out.append(
                SeedDocument(doc, fn.store.document_text(doc.id), chunks, vectors, sentences)
            )
        return out


def _noisy(base: Vectors, rng: np.random.Generator) -> Vectors:
    """``base`` rows plus Gaussian noise, normalised again."""
    vectors = base + rng.normal(0, NOISE, base.shape)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def generated(
    seed_docs: Seed, n: int, model: str, collection: str, rng: np.random.Generator
) -> Iterator[SeedDocument]:
    sentences = [s for d in seed_docs for s in re.split(r"(?<=[.!?])\s+", d.text)]
    sentences = [s for s in sentences if 20 <= len(s) <= 400]
    base = np.concatenate([d.vectors for d in seed_docs])
    for d in range(0, n, PER_DOCUMENT):
        size = min(PER_DOCUMENT, n - d)
        picks = rng.integers(0, len(sentences), (size, 3))
        texts = [" ".join(sentences[i] for i in row) for row in picks]
        vectors = _noisy(base[rng.integers(0, len(base), size)], rng)
        per_sentence = [
            _noisy(np.repeat(v[None, :], len(chunk_sentences(t)), axis=0), rng)
            for v, t in zip(vectors, texts, strict=True)
        ]
        yield SeedDocument(
            _document(d // PER_DOCUMENT, texts, model, collection),
            "\n".join(texts),
            _chunks(d // PER_DOCUMENT, texts),
            vectors,
            per_sentence,
        )


def _document(i: int, texts: list[str], model: str, collection: str) -> Document:
    body = "\n".join(texts)
    return Document(
        id=f"generated-{i:07d}", collection=collection, title=f"Generated document {i}",
        source=f"generated/{i:07d}.txt", kind="txt",
        content_hash=hashlib.sha256(body.encode()).hexdigest(), size=len(body),
        chunk_count=len(texts), embedding_model=model,
    )  # fmt: skip


def _chunks(i: int, texts: list[str]) -> list[Chunk]:
    chunks, start = [], 0
    for j, text in enumerate(texts):
        chunks.append(Chunk(f"generated-{i:07d}-{j:02d}", f"generated-{i:07d}", j, text, start,
                            start + len(text), token_count=len(text.split())))  # fmt: skip
        start += len(text) + 1
    return chunks


def _save(fn: Footnoted, d: SeedDocument) -> None:
    fn.store.save_document(d.document, d.text, d.chunks, d.vectors, d.sentences)


def build(
    home: Path, settings: Settings, seed_docs: Seed, scale: int, progress: Progress
) -> BenchStore:
    """Fill the store ``settings`` point at to ``scale`` chunks, unless it was built before."""
    marker = home / "bench-store.json"
    if marker.exists():
        return BenchStore(**json.loads(marker.read_text()))
    started = time.perf_counter()
    with Footnoted(settings) as fn:
        collection, model = settings.collection, fn.embedder.name
        real = 0
        for seed_doc in seed_docs:
            if real + len(seed_doc.chunks) > scale:
                break
            _save(fn, seed_doc)
            real += len(seed_doc.chunks)
        rng = np.random.default_rng(scale)
        made = 0
        for made_doc in generated(seed_docs, scale - real, model, collection, rng):
            _save(fn, made_doc)
            made += len(made_doc.chunks)
            progress("generated", made, scale - real)
        built = time.perf_counter() - started
        started = time.perf_counter()
        fn.store.refresh_index(collection)
        indexed = round(time.perf_counter() - started, 1)
    result = BenchStore(real + made, real, made, round(built, 1), indexed)
    marker.write_text(json.dumps(asdict(result)))
    return result
