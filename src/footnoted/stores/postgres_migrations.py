"""Named, recorded PostgreSQL migrations. Append new ones; never edit an applied one.

They run as the role the database URL names, which owns the tables. Each run also makes
sure the ``footnoted_app`` role exists (NOLOGIN), may use every table, and can be taken
on (``SET ROLE``) by that owner: the service works as ``footnoted_app``, so row-level
security holds even for the owner's connections.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from .schema import Migrations, done

APP_ROLE = "footnoted_app"
APP_TABLES = (
    "documents", "chunks", "users", "tokens", "rate_events", "sessions", "messages",
    "chat_requests", "document_files", "collection_settings", "refusals", "secrets",
    "documents_revision", "audit_log", "document_progress", "document_file_parts", "feedback",
    "oidc_logins", "document_versions", "site_pages",
)  # fmt: skip
USER_SETTING = "current_setting('footnoted.user_id', true)"
MIGRATIONS = Migrations("postgres")
_LOCK = 0x666F6F74  # advisory lock held while migrating: one process at a time


def run_script(db: psycopg.Connection[Any], script: str) -> None:
    for statement in script.split(";\n"):
        if statement.strip():
            db.execute(statement)


@MIGRATIONS.step
def documents_and_chunks(db: psycopg.Connection[Any], dim: int) -> None:
    run_script(
        db,
        f"""
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            collection TEXT NOT NULL,
            title TEXT NOT NULL,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            size BIGINT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
            enabled BOOLEAN NOT NULL DEFAULT TRUE,
            error TEXT,
            url TEXT,
            page_count INTEGER,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            embedding_model TEXT,
            text TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (collection, source)
        );
        CREATE INDEX documents_collection ON documents (collection, status, enabled);
        CREATE TABLE chunks (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            collection TEXT NOT NULL,
            idx INTEGER NOT NULL,
            text TEXT NOT NULL,
            char_start INTEGER NOT NULL,
            char_end INTEGER NOT NULL,
            page INTEGER,
            section TEXT,
            token_count INTEGER NOT NULL,
            embedding vector({int(dim)}) NOT NULL,
            terms tsvector NOT NULL
        );
        CREATE INDEX chunks_document ON chunks (document_id, idx);
        CREATE INDEX chunks_collection ON chunks (collection);
        CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops);
        CREATE INDEX chunks_terms ON chunks USING gin (terms);
        """,
    )


@MIGRATIONS.step
def users_tokens_rate_limits(db: psycopg.Connection[Any], dim: int) -> None:
    run_script(
        db,
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            is_admin BOOLEAN NOT NULL DEFAULT FALSE,
            created_at TEXT NOT NULL
        );
        CREATE TABLE tokens (
            hash TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            created_at TEXT NOT NULL
        );
        CREATE INDEX tokens_user ON tokens (user_id);
        CREATE TABLE rate_events (
            user_id TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX rate_events_user ON rate_events (user_id, at);
        """,
    )


@MIGRATIONS.step
def sessions_messages_chat_requests(db: psycopg.Connection[Any], dim: int) -> None:
    run_script(
        db,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            message_count INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX sessions_user ON sessions (user_id, updated_at);
        CREATE TABLE messages (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            request_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            type TEXT NOT NULL CHECK (type IN ('question', 'answer', 'refusal')),
            content TEXT NOT NULL,
            citations TEXT,
            referenced_indices TEXT,
            spans TEXT,
            created_at TEXT NOT NULL,
            grounding TEXT,
            incomplete BOOLEAN NOT NULL DEFAULT FALSE,
            refusal TEXT,
            UNIQUE (user_id, request_id, role)
        );
        CREATE INDEX messages_session ON messages (session_id, seq);
        CREATE TABLE chat_requests (
            user_id TEXT NOT NULL,
            message_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            message TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('in_progress', 'done', 'abandoned')),
            owner TEXT NOT NULL,
            claimed_at DOUBLE PRECISION NOT NULL,
            payload TEXT,
            PRIMARY KEY (user_id, message_id)
        );
        CREATE INDEX chat_requests_session ON chat_requests (session_id);
        """,
    )


@MIGRATIONS.step
def files_settings_refusals_secrets(db: psycopg.Connection[Any], dim: int) -> None:
    run_script(
        db,
        """
        CREATE TABLE document_files (
            document_id TEXT PRIMARY KEY,
            filename TEXT NOT NULL,
            title TEXT,
            media_type TEXT NOT NULL,
            data BYTEA NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE collection_settings (
            collection TEXT PRIMARY KEY,
            settings TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE refusals (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            user_id TEXT,
            question TEXT NOT NULL,
            collection TEXT NOT NULL,
            max_score DOUBLE PRECISION,
            threshold DOUBLE PRECISION NOT NULL,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX refusals_collection ON refusals (collection, id);
        CREATE TABLE secrets (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )
        """,
    )


@MIGRATIONS.step
def row_level_security(db: psycopg.Connection[Any], dim: int) -> None:
    """Sessions, messages and chat requests: a transaction sees only its user's rows."""
    for table in ("sessions", "messages", "chat_requests"):
        run_script(
            db,
            f"""
            ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
            ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
            CREATE POLICY {table}_own_rows ON {table}
                USING (user_id = {USER_SETTING}) WITH CHECK (user_id = {USER_SETTING})
            """,
        )


@MIGRATIONS.step
def documents_revision(db: psycopg.Connection[Any], dim: int) -> None:
    """A counter every change to ``documents`` moves, visible when the change commits.

    Every process reads it to know whether what it worked out about the documents
    (chunk counts, models, term counts) still holds (``memo.py``).
    """
    run_script(
        db,
        """
        CREATE TABLE documents_revision (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value BIGINT NOT NULL
        );
        INSERT INTO documents_revision (id, value) VALUES (1, 0);
        CREATE FUNCTION documents_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE documents_revision SET value = value + 1; RETURN NULL; END $$;
        CREATE TRIGGER documents_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
            ON documents FOR EACH STATEMENT EXECUTE FUNCTION documents_revision_bump();
        """,
    )


@MIGRATIONS.step
def chunk_sentence_embeddings(db: psycopg.Connection[Any], dim: int) -> None:
    """Each chunk's sentence vectors (float16). Chunks stored before have none: the
    answerer then scores their sentences by the chunk's cosine, until ``footnoted reindex``."""
    db.execute("ALTER TABLE chunks ADD COLUMN sentence_embeddings bytea")


@MIGRATIONS.step
def token_ids_and_audit_log(db: psycopg.Connection[Any], dim: int) -> None:
    """Tokens get an id admins can name, a kind and a last use; account changes are logged.

    Tokens stored before are called API tokens; their id is their hash's first 16 digits.
    """
    run_script(
        db,
        """
        ALTER TABLE tokens ADD COLUMN id TEXT;
        ALTER TABLE tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'api';
        ALTER TABLE tokens ADD COLUMN last_used_at TEXT;
        UPDATE tokens SET id = substr(hash, 1, 16);
        ALTER TABLE tokens ALTER COLUMN id SET NOT NULL;
        CREATE UNIQUE INDEX tokens_id ON tokens (id);
        CREATE TABLE audit_log (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at TEXT NOT NULL,
            via TEXT NOT NULL,
            actor TEXT,
            action TEXT NOT NULL,
            user_id TEXT NOT NULL,
            user_name TEXT NOT NULL,
            detail TEXT NOT NULL
        )
        """,
    )


@MIGRATIONS.step
def session_origin(db: psycopg.Connection[Any], dim: int) -> None:
    """Where each conversation began (web, api, v1, mcp): the web UI lists its own by
    default. Conversations stored before are called web ones, so none leaves the sidebar."""
    run_script(
        db,
        """
        ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'web'
            CHECK (origin IN ('web', 'api', 'v1', 'mcp'));
        CREATE INDEX sessions_user_origin ON sessions (user_id, origin, updated_at)
        """,
    )


@MIGRATIONS.step
def denser_vector_index(db: psycopg.Connection[Any], dim: int) -> None:
    """Rebuild the chunks' HNSW index with 32 links per node and a candidate list of 256
    while building (pgvector's defaults are 16 and 64): measured with ``footnoted bench
    index`` on 58,542 real chunks, searching at ``hnsw.ef_search`` 400 it found 99.96% of
    the exact top 10 and lost 0.2 points of answer chunks from it, where the defaults
    at the 132 searched before lost 2.7 (recall@10 0.978). Building takes about 4.5 times
    as long (33 s instead of 7 s at 58k chunks on 2 cores), once."""
    run_script(
        db,
        """
        DROP INDEX chunks_embedding;
        CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops)
            WITH (m = 32, ef_construction = 256)
        """,
    )


@MIGRATIONS.step
def document_progress(db: psycopg.Connection[Any], dim: int) -> None:
    """Where each ``processing`` document's work stands (stage, chunks embedded), apart
    from ``documents`` so that a progress step does not move its revision."""
    run_script(
        db,
        """
        CREATE TABLE document_progress (
            document_id TEXT PRIMARY KEY,
            stage TEXT NOT NULL CHECK (stage IN ('parsing', 'embedding', 'saving')),
            done INTEGER NOT NULL,
            total INTEGER NOT NULL,
            updated_at TEXT NOT NULL
        )
        """,
    )


@MIGRATIONS.step
def token_parents_owner_and_audit_targets(db: psycopg.Connection[Any], dim: int) -> None:
    """A web session remembers the token it was opened with (revoking that token ends it);
    the first admin is the instance's owner; the audit log records changes to things other
    than users (a collection's settings, a document, the LLM connection) by their target;
    a processing document names the job working on it; original files are kept in parts
    (read and written a part at a time, never whole)."""
    run_script(
        db,
        """
        ALTER TABLE tokens ADD COLUMN parent_id TEXT;
        CREATE INDEX tokens_parent ON tokens (parent_id);
        ALTER TABLE users ADD COLUMN is_owner BOOLEAN NOT NULL DEFAULT false;
        UPDATE users SET is_owner = true WHERE id = (
            SELECT id FROM users WHERE is_admin ORDER BY created_at, name LIMIT 1
        );
        ALTER TABLE audit_log ALTER COLUMN user_id DROP NOT NULL;
        ALTER TABLE audit_log ALTER COLUMN user_name DROP NOT NULL;
        ALTER TABLE audit_log ADD COLUMN target TEXT;
        ALTER TABLE documents ADD COLUMN job TEXT;
        CREATE TABLE document_file_parts (
            document_id TEXT NOT NULL,
            n INTEGER NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY (document_id, n)
        );
        INSERT INTO document_file_parts (document_id, n, data)
            SELECT document_id, 0, data FROM document_files;
        ALTER TABLE document_files DROP COLUMN data
        """,
    )


MIGRATIONS.nothing("message_grounding", "PostgreSQL's messages had these columns from the start.")
MIGRATIONS.nothing("message_refusal", "PostgreSQL's messages had this column from the start.")


def _scalar(db: psycopg.Connection[Any], query: str) -> Any:
    row = db.execute(query).fetchone()
    return None if row is None else row[0]


def ensure_app_role(db: psycopg.Connection[Any]) -> None:
    """Create ``footnoted_app`` if needed, let the owner take it on, and grant it the tables."""
    db.execute(
        f"""
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
                CREATE ROLE {APP_ROLE} NOLOGIN;
            END IF;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END $$
        """
    )
    if not _scalar(db, f"SELECT pg_has_role(current_user, '{APP_ROLE}', 'MEMBER')"):
        db.execute(f"GRANT {APP_ROLE} TO CURRENT_USER")
    tables = sql.SQL(", ").join(sql.Identifier(t) for t in APP_TABLES)
    db.execute(
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
            tables, sql.Identifier(APP_ROLE)
        )
    )


def migrate(url: str, dim: int) -> list[str]:
    """Apply pending migrations in order, one transaction each; return their names."""
    applied: list[str] = []
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS _migrations "
                "(name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            applied_before = done(row[0] for row in db.execute("SELECT name FROM _migrations"))
            for name, migration in MIGRATIONS.ordered():
                if name in applied_before:
                    continue
                with db.transaction():
                    migration(db, dim)
                    db.execute("INSERT INTO _migrations (name) VALUES (%s)", (name,))
                applied.append(name)
            with db.transaction():
                ensure_app_role(db)
        finally:
            db.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return applied


@MIGRATIONS.step
def chunk_table_headers(db: psycopg.Connection[Any], dim: int) -> None:
    """Each chunk keeps the header row of the table it starts among (see SQLite's step)."""
    db.execute("ALTER TABLE chunks ADD COLUMN header TEXT")


@MIGRATIONS.step
def rate_limit_buckets(db: psycopg.Connection[Any], dim: int) -> None:
    """The chat rate limit counts per user and client (see SQLite's step)."""
    run_script(
        db,
        """
        ALTER TABLE rate_events ADD COLUMN bucket TEXT NOT NULL DEFAULT '';
        DROP INDEX rate_events_user;
        CREATE INDEX rate_events_user ON rate_events (user_id, bucket, at)
        """,
    )


@MIGRATIONS.step
def feedback(db: psycopg.Connection[Any], dim: int) -> None:
    """What users say of answers and cited sources (see SQLite's step)."""
    run_script(
        db,
        """
        CREATE TABLE feedback (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL
                CHECK (kind IN ('helpful', 'unhelpful', 'does_not_say', 'wrong_page')),
            user_id TEXT NOT NULL,
            user_name TEXT NOT NULL,
            message_id TEXT NOT NULL,
            target TEXT NOT NULL,
            session_id TEXT NOT NULL,
            collection TEXT,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            answer_type TEXT NOT NULL,
            citation INTEGER,
            passage TEXT,
            note TEXT NOT NULL,
            correction TEXT,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
            resolved_by TEXT,
            resolved_at TEXT,
            resolution TEXT,
            UNIQUE (user_id, message_id, target)
        );
        CREATE INDEX feedback_newest ON feedback (created_at);
        ALTER TABLE chat_requests ADD COLUMN collection TEXT
        """,
    )


@MIGRATIONS.step
def oidc_sign_in(db: psycopg.Connection[Any], dim: int) -> None:
    """Sign-in through an OpenID Connect provider (see SQLite's step)."""
    run_script(
        db,
        """
        ALTER TABLE users ADD COLUMN email TEXT;
        ALTER TABLE users ADD COLUMN oidc_subject TEXT;
        CREATE UNIQUE INDEX users_oidc_subject ON users (oidc_subject);
        ALTER TABLE tokens ADD COLUMN oidc_refresh TEXT;
        ALTER TABLE tokens ADD COLUMN oidc_checked_at DOUBLE PRECISION;
        CREATE TABLE oidc_logins (
            state TEXT PRIMARY KEY,
            nonce TEXT NOT NULL,
            verifier TEXT NOT NULL,
            next TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        )
        """,
    )


@MIGRATIONS.step
def document_versions(db: psycopg.Connection[Any], dim: int) -> None:
    """Documents have versions (see SQLite's step)."""
    run_script(
        db,
        """
        ALTER TABLE documents ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
        CREATE INDEX documents_content ON documents (collection, content_hash);
        CREATE TABLE document_versions (
            document_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            collection TEXT NOT NULL,
            title TEXT NOT NULL,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            page_count INTEGER,
            text TEXT NOT NULL,
            layout TEXT NOT NULL,
            created_at TEXT NOT NULL,
            ended_at TEXT NOT NULL,
            ended_by TEXT NOT NULL CHECK (ended_by IN ('replaced', 'deleted')),
            PRIMARY KEY (document_id, version)
        );
        CREATE INDEX document_versions_ended ON document_versions (ended_at)
        """,
    )


@MIGRATIONS.step
def site_pages(db: psycopg.Connection[Any], dim: int) -> None:
    """The web pages a collection follows from a sitemap (see SQLite's step)."""
    run_script(
        db,
        """
        CREATE TABLE site_pages (
            collection TEXT NOT NULL,
            url TEXT NOT NULL,
            sitemap TEXT NOT NULL,
            etag TEXT,
            last_modified TEXT,
            checked_at TEXT NOT NULL,
            PRIMARY KEY (collection, url)
        );
        CREATE INDEX site_pages_sitemap ON site_pages (collection, sitemap)
        """,
    )


@MIGRATIONS.step
def chunk_rows(db: psycopg.Connection[Any], dim: int) -> None:
    """A spreadsheet chunk's rows (see SQLite's step)."""
    db.execute("ALTER TABLE chunks ADD COLUMN rows TEXT")


@MIGRATIONS.step
def message_read_as(db: psycopg.Connection[Any], dim: int) -> None:
    """An answer's question as it was searched and read (see SQLite's step)."""
    db.execute("ALTER TABLE messages ADD COLUMN read_as TEXT")
