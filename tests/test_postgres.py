"""What only the PostgreSQL store has: row-level security, the app role, the HNSW index,
``footnoted db migrate``; the shared behaviour is in ``test_store_contract.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

from apihelpers import api
from footnoted import Settings
from footnoted.errors import FootnotedError
from footnoted.records import NewMessage
from footnoted.stores.factory import open_store
from footnoted.stores.postgres import PostgresStore
from footnoted.stores.postgres_migrations import APP_ROLE, MIGRATIONS
from footnoted.stores.postgres_search import dense_search
from pghelpers import Postgres
from test_store_contract import document, unit

DIM = 384


@pytest.fixture
def url(postgres: Postgres) -> Iterator[str]:
    with postgres.temporary() as fresh:
        yield fresh


@pytest.fixture
def store(url: str) -> Iterator[PostgresStore]:
    with_store = PostgresStore(url, DIM)
    yield with_store
    with_store.close()


def chat(store: PostgresStore, user_id: str, message_id: str) -> str:
    claim = store.claim_chat(user_id, message_id, "Q?", None, "Q?", "w", lambda o, t: False)
    question = NewMessage("user", "question", "Q?")
    answer = NewMessage("assistant", "answer", f"secret of {user_id}")
    store.complete_chat(user_id, message_id, claim.session_id, (question, answer), {}, None)
    return claim.session_id


def test_row_level_security_hides_other_users_rows_from_a_query_without_where(
    store: PostgresStore,
) -> None:
    alice = store.create_user("alice").id
    bob = store.create_user("bob").id
    chat(store, alice, "a1")
    with store.transaction(bob) as db:
        assert db.execute("SELECT current_user AS role").fetchone() == {"role": APP_ROLE}
        for table in ("sessions", "messages", "chat_requests"):
            assert db.execute(f"SELECT * FROM {table}").fetchall() == []
    with store.transaction() as db:  # no user named: nothing at all
        assert db.execute("SELECT * FROM messages").fetchall() == []
    with store.transaction(alice) as db:
        contents = [r["content"] for r in db.execute("SELECT content FROM messages ORDER BY seq")]
    assert contents == ["Q?", f"secret of {alice}"]


def test_row_level_security_refuses_writing_another_users_rows(store: PostgresStore) -> None:
    alice = store.create_user("alice").id
    bob = store.create_user("bob").id
    session = chat(store, alice, "a1")
    with store.transaction(bob) as db:
        assert (
            db.execute("UPDATE sessions SET title = 'mine' WHERE id = %s", (session,)).rowcount == 0
        )
        assert db.execute("DELETE FROM messages").rowcount == 0
    with pytest.raises(psycopg.errors.InsufficientPrivilege), store.transaction(bob) as db:
        db.execute(
            "INSERT INTO sessions (id, user_id, title, created_at, updated_at) "
            "VALUES ('x', %s, 't', '', '')",
            (alice,),
        )
    assert store.get_session(alice, session).title == "Q?"


def test_tables_belong_to_the_migrating_role_and_force_row_security(url: str) -> None:
    PostgresStore(url, DIM).close()
    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity, "
            "pg_get_userbyid(relowner) = current_user FROM pg_class "
            "WHERE relname IN ('sessions', 'messages', 'chat_requests', 'documents')"
        ).fetchall()
        names = [r[0] for r in db.execute("SELECT name FROM _migrations ORDER BY name")]
    assert sorted(rows) == [
        ("chat_requests", True, True, True),
        ("documents", False, False, True),
        ("messages", True, True, True),
        ("sessions", True, True, True),
    ]
    assert names == sorted(MIGRATIONS.names())


def test_filtered_hnsw_search_still_returns_k_hits(url: str, store: PostgresStore) -> None:
    """The planner picks the HNSW index; the closest chunks then turn out disabled."""
    query = unit(7)
    crowd = []
    for d in range(14):  # the disabled crowd (650 chunks) outnumbers one pass (ef_search)
        near = d < 13
        doc, text, chunks = document([f"chunk {d} {i}" for i in range(50)], source=f"{d}.md")
        vectors = np.stack([unit(100 * d + i, near=query * 6 if near else None) for i in range(50)])
        store.save_document(doc, text, chunks, vectors)
        if near:
            crowd.append(doc.id)
        else:
            far = {c.id for c in chunks}
    with psycopg.connect(url, autocommit=True) as owner:
        owner.execute("ANALYZE")  # as autovacuum would, before the documents were disabled
    for document_id in crowd:
        store.set_enabled(document_id, False)
    with store.transaction() as db:
        plan = db.execute(
            "EXPLAIN SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE c.collection = 'default' AND d.status = 'ready' AND d.enabled "
            "ORDER BY c.embedding <=> %s LIMIT 10",
            (query,),
        ).fetchall()
        one_pass = dense_search(db, "default", query, 10, store.iterative_scan)
    assert "chunks_embedding" in "\n".join(r["QUERY PLAN"] for r in plan)
    if not store.iterative_scan:
        assert len(one_pass) < 10  # what a single HNSW pass finds
    hits = store.dense_search("default", query, 10)
    assert len(hits) == 10 and {h[0] for h in hits} <= far


def missing_database(url: str) -> str:
    return url.replace("/footnoted_test_", "/no_such_database_")


def migrate_command(home: Path, url: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "200"}
    env.pop("FOOTNOTED_DATABASE_URL", None)
    if url is not None:
        env["FOOTNOTED_DATABASE_URL"] = url
    return subprocess.run(
        [sys.executable, "-m", "footnoted", "db", "migrate"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_db_migrate_command(tmp_path: Path, url: str) -> None:
    first = migrate_command(tmp_path / "home", url)
    assert first.returncode == 0, first.stderr
    assert "applied documents_and_chunks" in first.stdout
    assert f"{len(MIGRATIONS.names())} migration(s) applied" in first.stdout
    again = migrate_command(tmp_path / "home", url)
    assert again.returncode == 0 and "0 migration(s) applied" in again.stdout
    lite = migrate_command(tmp_path / "lite", None)
    assert lite.returncode == 0 and "applied documents_and_chunks" in lite.stdout
    assert (tmp_path / "lite" / "footnoted.db").exists()
    missing = migrate_command(tmp_path / "home", missing_database(url))
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_a_different_embedding_size_is_refused(url: str) -> None:
    PostgresStore(url, DIM).close()
    with pytest.raises(FootnotedError) as refused:
        PostgresStore(url, 768)
    assert refused.value.code == "embedding_dimension_mismatch"


def test_bad_urls_say_what_is_wrong(tmp_path: Path, url: str) -> None:
    with pytest.raises(FootnotedError) as wrong:
        open_store(Settings(home=tmp_path, database_url="mysql://x/y"), DIM)
    assert wrong.value.code == "invalid_setting"
    with pytest.raises(FootnotedError) as missing:
        open_store(Settings(home=tmp_path, database_url=missing_database(url)), DIM)
    assert missing.value.code == "database_unavailable"


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_http_helpers_run_on_the_modules_backend(tmp_path: Path, backend: str) -> None:
    with api(tmp_path / "home", ingest=False) as app:
        assert isinstance(app.service.store, PostgresStore)
