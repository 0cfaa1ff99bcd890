"""Keyword search stays bounded at scale: common words only add to the rank of chunks
that hold a rarer word, and a question of common words alone wants all of them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from footnoted import Settings
from footnoted.models import Chunk, Document
from footnoted.stores import keywords
from footnoted.stores.base import Store
from footnoted.stores.factory import open_store
from footnoted.stores.keywords import KeywordQuery, fts5_match, plan
from footnoted.stores.sqlite import SQLiteStore
from pghelpers import Postgres

DIM = 384
BUDGET = 60  # the stores' budget, scaled down so both backends fill quickly
COMMON = BUDGET + 100  # chunks holding each common word: past the budget


def save(store: Store, name: str, texts: list[str]) -> None:
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


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keywords, "BUDGET", BUDGET)


@contextmanager
def filled(settings: Settings) -> Iterator[Store]:
    """A store over the test texts."""
    store = open_store(settings, DIM)
    try:
        fill(store)
        yield store
    finally:
        store.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def any_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    home = tmp_path_factory.mktemp("keywords")
    if request.param == "sqlite":
        with filled(Settings(home=home)) as store:
            yield store
        return
    pg: Postgres = request.getfixturevalue("postgres")
    with pg.temporary() as url, filled(Settings(home=home, database_url=url)) as store:
        yield store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    """SQLite alone, for the FTS5 expressions and the capped term counts."""
    with filled(Settings(home=tmp_path_factory.mktemp("fts5"))) as store:
        assert isinstance(store, SQLiteStore)
        yield store


def fill(store: Store) -> None:
    save(store, "harbour", [f"The harbour was busy on day {i}." for i in range(COMMON)])
    save(store, "committee", [f"The committee sat on day {i}." for i in range(COMMON)])
    save(store, "filler", [f"Nothing happened on day {i}." for i in range(2 * COMMON)])
    save(store, "both", [
        "The lighthouse keeper told the whole committee about the harbour.",
        "The lighthouse keeper told the retired crew about the weather.",
        "The harbour committee met twice.",
    ])  # fmt: skip


def test_rare_terms_gate_and_every_term_ranks(any_store: Store) -> None:
    hits = any_store.keyword_search("default", ["harbour", "lighthouse", "committee"], 10)
    # only chunks with the rare word; of two as long, the one with the common words first
    assert hits == ["both-0", "both-1"]


def test_few_matching_rows_rank_every_term(any_store: Store) -> None:
    assert any_store.keyword_search("default", ["keeper", "retired"], 10) == ["both-1", "both-0"]


def test_only_common_words_want_all_of_them(any_store: Store) -> None:
    hits = any_store.keyword_search("default", ["harbour", "committee"], 10)
    assert sorted(hits) == ["both-0", "both-2"]


def test_sqlite_plans_and_match_expressions(store: SQLiteStore) -> None:
    query = plan(["harbour", "lighthouse", "committee"], store._term_rows)
    assert query == KeywordQuery(("harbour", "lighthouse", "committee"), ("lighthouse",))
    assert fts5_match(query) == '("lighthouse") AND ("harbour" OR "lighthouse" OR "committee")'
    query = plan(["lighthouse", "keeper", "retired"], store._term_rows)
    assert query.exact and fts5_match(query) == '"lighthouse" OR "keeper" OR "retired"'
    query = plan(["harbour", "committee"], store._term_rows)
    assert query.gate == () and fts5_match(query) == '"harbour" AND "committee"'


def test_term_counts_stop_at_the_cap(store: SQLiteStore) -> None:
    assert store._term_rows("harbour", 50) == 50
    assert store._term_rows("lighthouse", 50) == 2
    assert store._term_rows("absent", 50) == 0
