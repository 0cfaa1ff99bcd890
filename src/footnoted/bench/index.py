"""``bench index``: the dense index on real text, against exact search.

The knowledge base is real text ingested for real (embedded once, then kept under the
bench folder): SQuAD 1.1 train's 442 articles, then SciFact's 5,183 abstracts, then the
shared PDFs. The questions are SQuAD 1.1 train questions (a seeded sample), embedded as
retrieval embeds them; a question's gold chunks are the chunks of its article that hold
a gold answer and a sentence of the paragraph it was written on.

Each size is a prefix of the chunks in ingest order; sizes beyond the real chunks are
filled with the stored sentence vectors of the same documents (real text too, shorter,
labelled ``padded``), and a size beyond those is measured at every vector there is. At
each size every index setting is built over the same vectors and searched as retrieval
searches it (the top 10 of ``2 × 50 + 32`` asked for), against an
exact cosine search over all of them: recall@10, the share of questions whose gold chunk
is in the top 10 (index and exact), the median search time and the build time. With a
PostgreSQL URL the same vectors are loaded into pgvector and searched at several
``hnsw.ef_search`` values.
"""

from __future__ import annotations

import random
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInput
from ..evaluation.datasets import read_squad, safe_stem
from ..retrieval import DEPTH
from ..service.facade import Footnoted
from ..settings import Settings
from ..stores.vectors import EXACT_UNTIL, GRAPH, DenseIndex, IndexParams, exact_top, fetch_depth
from .report import Row, median
from .texts import scifact_files

Progress = Callable[[str, int, int], None]
Matrix = npt.NDArray[np.float32]
SQUAD_TRAIN = "squad1.1-train/train-v1.1.json"
PDF_FOLDERS = ("pdfs", "pdfs-more")
K = 10
FETCH = fetch_depth(DEPTH)  # what retrieval asks the SQLite store's index for
SIZES = (10_000, 25_000, 50_000, 100_000, 200_000, 250_000)
SETTINGS = (IndexParams(16, 64, 64), IndexParams(16, 128, 256), IndexParams(32, 200, 256),
            GRAPH)  # fmt: skip


@dataclass(frozen=True)
class Question:
    text: str
    article: str  # the document title
    answers: tuple[str, ...]
    sentences: tuple[str, ...]  # the gold paragraph's longer sentences


@dataclass(frozen=True)
class Corpus:
    """The stored chunk vectors in ingest order, which of them answer each question,
    and the sentence vectors that pad sizes beyond the chunks."""

    vectors: Matrix
    gold: list[frozenset[int]]  # per question: positions in ``vectors``
    padding: Matrix


def _files(data: Path, articles: int | None) -> Iterator[tuple[str, bytes]]:
    for article in read_squad(data / SQUAD_TRAIN, articles):
        yield f"{safe_stem(article.name)}.txt", article.text.encode()
    if articles is not None:
        return  # a small run: a few articles only
    for name, text in scifact_files(data).items():
        yield name, text.encode()
    for folder in PDF_FOLDERS:
        for pdf in sorted((data / folder).glob("*.pdf")):
            yield pdf.name, pdf.read_bytes()


def build(home: Path, data: Path, articles: int | None, progress: Progress) -> Footnoted:
    """Ingest what is not in the knowledge base yet (a stopped build resumes)."""
    fn = Footnoted(Settings(home=home, database_url=None))
    files = list(_files(data, articles))
    with tempfile.TemporaryDirectory(prefix="footnoted-bench-") as tmp:
        for start in range(0, len(files), 100):
            folder = Path(tmp) / str(start)
            folder.mkdir()
            for name, body in files[start : start + 100]:
                (folder / name).write_bytes(body)
            fn.ingest([folder])
            progress("ingest", min(start + 100, len(files)), len(files))
    return fn


def _sentences(paragraph: str) -> tuple[str, ...]:
    return tuple(s for s in re.split(r"(?<=[.!?])\s+", paragraph) if len(s) >= 40)


def sample_questions(data: Path, n: int, articles: int | None, seed: int = 7) -> list[Question]:
    read = read_squad(data / SQUAD_TRAIN, articles)
    every = [(a.name, q) for a in read for q in a.questions if _sentences(q.paragraph)]
    picked = random.Random(seed).sample(every, n)
    return [Question(q.question, name, q.answers, _sentences(q.paragraph)) for name, q in picked]


def _holds(text: str, q: Question) -> bool:
    flat = " ".join(text.split())
    has_answer = any(a in flat for a in q.answers)
    return has_answer and any(" ".join(s.split()) in flat for s in q.sentences)


def load(fn: Footnoted, home: Path, questions: list[Question]) -> Corpus:
    """Chunk vectors in row order; each question's gold positions; sentence vectors."""
    db = sqlite3.connect(home / "footnoted.db")
    try:
        rows = db.execute(
            "SELECT c.embedding, c.text, d.title, c.sentence_embeddings FROM chunks c "
            "JOIN documents d ON d.id = c.document_id ORDER BY c.rowid"
        ).fetchall()
    finally:
        db.close()
    vectors = np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])
    by_title: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_title.setdefault(row[2], []).append(i)
    gold = [
        frozenset(i for i in by_title.get(q.article, []) if _holds(rows[i][1], q))
        for q in questions
    ]
    dim = vectors.shape[1]
    padding = [np.frombuffer(r[3], dtype=np.float16).reshape(-1, dim) for r in rows if r[3]]
    sentences = np.concatenate(padding).astype(np.float32) if padding else vectors[:0]
    sentences /= np.maximum(np.linalg.norm(sentences, axis=1, keepdims=True), 1e-12)
    return Corpus(vectors, gold, sentences)


def matrix_of(corpus: Corpus, size: int) -> Matrix:
    """The first ``size`` vectors: the real chunks, then sentence vectors as padding."""
    chunks = corpus.vectors[:size]
    extra = size - len(chunks)
    return np.concatenate([chunks, corpus.padding[:extra]]) if extra > 0 else chunks


def share(flags: Sequence[bool]) -> float:
    return round(sum(flags) / len(flags), 4) if flags else 0.0


def measure_size(
    corpus: Corpus, queries: Matrix, size: int, settings: Sequence[IndexParams],
    progress: Progress,
) -> list[Row]:  # fmt: skip
    """Exact search and each index setting at one size, over the same vectors."""
    matrix = matrix_of(corpus, size)
    asked = [i for i, g in enumerate(corpus.gold) if g and max(g) < min(size, len(corpus.vectors))]
    timings: list[float] = []
    exact: list[list[int]] = []
    for i in asked:
        started = time.perf_counter()
        exact.append([key for key, _ in exact_top(matrix, queries[i], FETCH)][:K])
        timings.append(time.perf_counter() - started)
    exact_gold = [bool(corpus.gold[i] & set(top)) for i, top in zip(asked, exact, strict=True)]
    base: Row = {"size": size, "chunks": min(size, len(corpus.vectors)),
                 "padded": max(0, size - len(corpus.vectors)), "questions": len(asked),
                 "exact_gold_at_10": share(exact_gold)}  # fmt: skip
    rows: list[Row] = [{**base, "index": "exact", "recall_at_10": 1.0,
                        "gold_at_10": share(exact_gold), "build_s": 0.0,
                        "search_p50_ms": round(median(timings) * 1000, 2)}]  # fmt: skip
    for n, params in enumerate(settings):
        progress(f"{size:,} vectors", n, len(settings))
        rows.append({**base, **_graph_row(matrix, queries, asked, exact, corpus, params)})
    progress(f"{size:,} vectors", len(settings), len(settings))
    return rows


def _graph_row(
    matrix: Matrix, queries: Matrix, asked: list[int], exact: list[list[int]], corpus: Corpus,
    params: IndexParams,
) -> Row:  # fmt: skip
    index = DenseIndex(matrix.shape[1], params, graph=True)
    started = time.perf_counter()
    index.add_vectors(np.arange(len(matrix), dtype=np.uint64), matrix)
    build_s = round(time.perf_counter() - started, 2)
    scores = compare(
        asked, exact, corpus, lambda i: [k for k, _ in index.search(queries[i], FETCH)]
    )
    return {"index": params.label, **scores, "build_s": build_s}


def compare(
    asked: list[int], exact: list[list[int]], corpus: Corpus, search: Callable[[int], list[int]]
) -> Row:
    """Recall@10 against ``exact``, the share of questions whose gold chunk is in the top
    10, and the median time of ``search`` (question position -> keys, best first)."""
    found, gold, timings = 0, [], []
    for i, truth in zip(asked, exact, strict=True):
        started = time.perf_counter()
        top = set(search(i)[:K])
        timings.append(time.perf_counter() - started)
        found += len(set(truth) & top)
        gold.append(bool(corpus.gold[i] & top))
    return {"recall_at_10": round(found / max(1, K * len(asked)), 4), "gold_at_10": share(gold),
            "search_p50_ms": round(median(timings) * 1000, 2)}  # fmt: skip


def run_index(
    root: Path, data: Path, sizes: list[int], n_questions: int, progress: Progress,
    database_url: str | None = None, articles: int | None = None,
) -> dict[str, object]:  # fmt: skip
    """Every size and index setting; ``articles`` limits the knowledge base to the first
    SQuAD articles (a small run)."""
    if not (data / SQUAD_TRAIN).is_file():
        raise InvalidInput(f"{data / SQUAD_TRAIN} is missing", code="bench_data_missing")
    home = root / ("index-real" if articles is None else f"index-real-{articles}")
    questions = sample_questions(data, n_questions, articles)
    with build(home, data, articles, progress) as fn:
        corpus = load(fn, home, questions)
        queries = np.stack([fn.embedder.embed([q.text])[0] for q in questions]).astype(np.float32)
    rows: list[Row] = []
    available = len(corpus.vectors) + len(corpus.padding)
    sizes = sorted({min(size, available) for size in sizes})  # the largest: all there is
    for size in sizes:
        rows.extend(measure_size(corpus, queries, size, SETTINGS, progress))
    result: dict[str, object] = {
        "real_chunks": len(corpus.vectors), "sentence_vectors": len(corpus.padding),
        "questions": n_questions, "with_gold": sum(1 for g in corpus.gold if g),
        "exact_until": EXACT_UNTIL, "rows": rows,
    }  # fmt: skip
    if database_url:
        from .pgindex import pgvector_rows

        result["postgres"] = pgvector_rows(database_url, corpus, queries, sizes[-1], progress)
    return result
