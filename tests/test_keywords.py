"""Keyword search stays bounded at scale: common words only add to the rank of chunks
that hold a rarer word, and a question of common words alone wants all of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from footnoted.models import Chunk, Document
from footnoted.stores.keywords import BUDGET, KeywordQuery, fts5_match, plan
from footnoted.stores.sqlite import SQLiteStore

DIM = 8
COMMON = BUDGET + 100  # chunks holding each common word: past the budget


def save(store: SQLiteStore, name: str, texts: list[str]) -> None:
    chunks, at = [], 0
    for i, text in enumerate(texts):
        chunks.append(Chunk(f"{name}-{i}", name, i, text, at, at + len(text), None, None, 5))
        at += len(text) + 1
    body = "\n".join(texts)
    doc = Document(
        id=name, collection="default", title=name, source=f"{name}.txt", kind="txt",
        content_hash=name, size=len(body), embedding_model="m",
    )  # fmt: skip
    vectors = np.random.default_rng(0).standard_normal((len(texts), DIM)).astype(np.float32)
    store.save_document(doc, body, chunks, vectors / np.linalg.norm(vectors, axis=1)[:, None])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    home: Path = tmp_path_factory.mktemp("keywords")
    store = SQLiteStore(home / "footnoted.db", DIM)
    save(store, "harbour", [f"The harbour was busy on day {i}." for i in range(COMMON)])
    save(store, "committee", [f"The committee sat on day {i}." for i in range(COMMON)])
    save(store, "filler", [f"Nothing happened on day {i}." for i in range(2 * COMMON)])
    save(store, "both", [
        "The lighthouse keeper told the whole committee about the harbour.",
        "The lighthouse keeper told the retired crew about the weather.",
        "The harbour committee met twice.",
    ])  # fmt: skip
    yield store
    store.close()


def test_rare_terms_gate_and_every_term_ranks(store: SQLiteStore) -> None:
    query = plan(["harbour", "lighthouse", "committee"], store._term_rows)
    assert query == KeywordQuery(("harbour", "lighthouse", "committee"), ("lighthouse",))
    assert fts5_match(query) == '("lighthouse") AND ("harbour" OR "lighthouse" OR "committee")'
    hits = store.keyword_search("default", ["harbour", "lighthouse", "committee"], 10)
    # only chunks with the rare word; of two as long, the one with the common words first
    assert hits == ["both-0", "both-1"]


def test_few_matching_rows_rank_every_term_exactly(store: SQLiteStore) -> None:
    query = plan(["lighthouse", "keeper", "retired"], store._term_rows)
    assert query.exact and fts5_match(query) == '"lighthouse" OR "keeper" OR "retired"'
    assert store.keyword_search("default", ["keeper", "retired"], 10) == ["both-1", "both-0"]


def test_only_common_words_want_all_of_them(store: SQLiteStore) -> None:
    query = plan(["harbour", "committee"], store._term_rows)
    assert query.gate == () and fts5_match(query) == '"harbour" AND "committee"'
    hits = store.keyword_search("default", ["harbour", "committee"], 10)
    assert sorted(hits) == ["both-0", "both-2"]


def test_term_counts_stop_at_the_cap(store: SQLiteStore) -> None:
    assert store._term_rows("harbour", 50) == 50
    assert store._term_rows("lighthouse", 50) == 2
    assert store._term_rows("absent", 50) == 0
