"""Named, recorded SQLite migrations. Append new ones; never edit an applied one."""

from __future__ import annotations

import sqlite3

from .schema import Migrations, done

MIGRATIONS = Migrations("sqlite")


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated statements inside the caller's transaction.

    (``executescript`` would commit first, breaking the migration's atomicity.)
    """
    for statement in script.split(";\n"):
        if statement.strip():
            db.execute(statement)


@MIGRATIONS.step
def documents_and_chunks(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            collection TEXT NOT NULL,
            title TEXT NOT NULL,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            size INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
            enabled INTEGER NOT NULL DEFAULT 1,
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
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
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
            embedding BLOB NOT NULL
        );
        CREATE INDEX chunks_document ON chunks (document_id, idx);
        CREATE INDEX chunks_collection ON chunks (collection, rowid);

        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            text, title, section, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        """,
    )


@MIGRATIONS.step
def users_tokens_rate_limits(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            is_admin INTEGER NOT NULL DEFAULT 0,
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
            at REAL NOT NULL
        );
        CREATE INDEX rate_events_user ON rate_events (user_id, at);
        """,
    )


@MIGRATIONS.step
def sessions_messages_chat_requests(db: sqlite3.Connection) -> None:
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
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
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
            claimed_at REAL NOT NULL,
            payload TEXT,
            PRIMARY KEY (user_id, message_id)
        );
        CREATE INDEX chat_requests_session ON chat_requests (session_id);
        """,
    )


@MIGRATIONS.step
def files_settings_refusals_secrets(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE document_files (
            document_id TEXT PRIMARY KEY,
            filename TEXT NOT NULL,
            title TEXT,
            media_type TEXT NOT NULL,
            data BLOB NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE collection_settings (
            collection TEXT PRIMARY KEY,
            settings TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE refusals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT,
            question TEXT NOT NULL,
            collection TEXT NOT NULL,
            max_score REAL,
            threshold REAL NOT NULL,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX refusals_collection ON refusals (collection, id);
        CREATE TABLE secrets (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    )


@MIGRATIONS.step
def message_grounding(db: sqlite3.Connection) -> None:
    """LLM answers: the support check's counts, and partial answers kept as incomplete."""
    run_script(
        db,
        """
        ALTER TABLE messages ADD COLUMN grounding TEXT;
        ALTER TABLE messages ADD COLUMN incomplete INTEGER NOT NULL DEFAULT 0;
        """,
    )


@MIGRATIONS.step
def message_refusal(db: sqlite3.Connection) -> None:
    """Refusals: the suggestions and evidence first shown, so history shows them again."""
    run_script(db, "ALTER TABLE messages ADD COLUMN refusal TEXT;")


@MIGRATIONS.step
def documents_revision(db: sqlite3.Connection) -> None:
    """A counter every change to ``documents`` moves (and chunks change only with them).

    Every process reads it to know whether what it worked out about the documents
    (chunk counts, models, the vector index's watermark) still holds.
    """
    run_script(
        db,
        """
        CREATE TABLE documents_revision (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value INTEGER NOT NULL
        );
        INSERT INTO documents_revision (id, value) VALUES (1, 0);
        CREATE TRIGGER documents_revision_insert AFTER INSERT ON documents
            BEGIN UPDATE documents_revision SET value = value + 1; END;
        CREATE TRIGGER documents_revision_update AFTER UPDATE ON documents
            BEGIN UPDATE documents_revision SET value = value + 1; END;
        CREATE TRIGGER documents_revision_delete AFTER DELETE ON documents
            BEGIN UPDATE documents_revision SET value = value + 1; END;
        """,
    )


@MIGRATIONS.step
def chunk_sentence_embeddings(db: sqlite3.Connection) -> None:
    """Each chunk's sentence vectors (float16). Chunks stored before have none: the
    answerer then scores their sentences by the chunk's cosine, until ``footnoted reindex``."""
    db.execute("ALTER TABLE chunks ADD COLUMN sentence_embeddings BLOB")


@MIGRATIONS.step
def token_ids_and_audit_log(db: sqlite3.Connection) -> None:
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
        CREATE UNIQUE INDEX tokens_id ON tokens (id);
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            via TEXT NOT NULL,
            actor TEXT,
            action TEXT NOT NULL,
            user_id TEXT NOT NULL,
            user_name TEXT NOT NULL,
            detail TEXT NOT NULL
        );
        """,
    )


@MIGRATIONS.step
def session_origin(db: sqlite3.Connection) -> None:
    """Where each conversation began (web, api, v1, mcp): the web UI lists its own by
    default. Conversations stored before are called web ones, so none leaves the sidebar."""
    run_script(
        db,
        """
        ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'web'
            CHECK (origin IN ('web', 'api', 'v1', 'mcp'));
        CREATE INDEX sessions_user_origin ON sessions (user_id, origin, updated_at);
        """,
    )


@MIGRATIONS.step
def document_progress(db: sqlite3.Connection) -> None:
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
        );
        """,
    )


@MIGRATIONS.step
def token_parents_owner_and_audit_targets(db: sqlite3.Connection) -> None:
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
        ALTER TABLE users ADD COLUMN is_owner INTEGER NOT NULL DEFAULT 0;
        UPDATE users SET is_owner = 1 WHERE id = (
            SELECT id FROM users WHERE is_admin = 1 ORDER BY created_at, name LIMIT 1
        );
        CREATE TABLE audit_log_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            via TEXT NOT NULL,
            actor TEXT,
            action TEXT NOT NULL,
            user_id TEXT,
            user_name TEXT,
            detail TEXT NOT NULL,
            target TEXT
        );
        INSERT INTO audit_log_new (id, at, via, actor, action, user_id, user_name, detail)
            SELECT id, at, via, actor, action, user_id, user_name, detail FROM audit_log;
        DROP TABLE audit_log;
        ALTER TABLE audit_log_new RENAME TO audit_log;
        ALTER TABLE documents ADD COLUMN job TEXT;
        CREATE TABLE document_file_parts (
            document_id TEXT NOT NULL,
            n INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (document_id, n)
        );
        INSERT INTO document_file_parts (document_id, n, data)
            SELECT document_id, 0, data FROM document_files;
        ALTER TABLE document_files DROP COLUMN data;
        """,
    )


MIGRATIONS.nothing(
    "row_level_security", "SQLite has no roles: the service is the database file's one user."
)
MIGRATIONS.nothing(
    "denser_vector_index", "SQLite's vector index is usearch's, rebuilt by the store."
)


def _done(db: sqlite3.Connection) -> set[str]:
    return done(row[0] for row in db.execute("SELECT name FROM _migrations"))


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply pending migrations in order, each in its own transaction; return their names."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied: list[str] = []
    for name, migration in MIGRATIONS.ordered():
        if name in _done(db):
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if name in _done(db):
                db.execute("ROLLBACK")
                continue  # another process applied it meanwhile
            migration(db)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))", (name,)
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


@MIGRATIONS.step
def chunk_table_headers(db: sqlite3.Connection) -> None:
    """Each chunk keeps the header row of the table it starts among, however far above
    it the header is printed (a quote of a row shows it; a table row's keywords are found
    with it). Chunks stored before have none (NULL): their header is looked for in the
    text above them, until the document is reprocessed."""
    db.execute("ALTER TABLE chunks ADD COLUMN header TEXT")


@MIGRATIONS.step
def rate_limit_buckets(db: sqlite3.Connection) -> None:
    """The chat rate limit counts per user and client (the web UI, each API token), so a
    script cannot use up its owner's allowance in the web UI. Counts made before were
    the user's one bucket (``''``); they expire within the minute."""
    run_script(
        db,
        """
        ALTER TABLE rate_events ADD COLUMN bucket TEXT NOT NULL DEFAULT '';
        DROP INDEX rate_events_user;
        CREATE INDEX rate_events_user ON rate_events (user_id, bucket, at);
        """,
    )


@MIGRATIONS.step
def feedback(db: sqlite3.Connection) -> None:
    """What users say of answers and cited sources, for the admins' queue (one row per
    user, answer and target: ``answer`` or ``source:N``), and the collection each chat
    request asked (NULL for requests made before)."""
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
        ALTER TABLE chat_requests ADD COLUMN collection TEXT;
        """,
    )


@MIGRATIONS.step
def oidc_sign_in(db: sqlite3.Connection) -> None:
    """Sign-in through an OpenID Connect provider: a user's subject there and email, a
    web session's refresh token and when the provider last vouched for it, and the
    sign-ins under way (state, nonce and PKCE verifier, each used once)."""
    run_script(
        db,
        """
        ALTER TABLE users ADD COLUMN email TEXT;
        ALTER TABLE users ADD COLUMN oidc_subject TEXT;
        CREATE UNIQUE INDEX users_oidc_subject ON users (oidc_subject);
        ALTER TABLE tokens ADD COLUMN oidc_refresh TEXT;
        ALTER TABLE tokens ADD COLUMN oidc_checked_at REAL;
        CREATE TABLE oidc_logins (
            state TEXT PRIMARY KEY,
            nonce TEXT NOT NULL,
            verifier TEXT NOT NULL,
            next TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        """,
    )


@MIGRATIONS.step
def document_versions(db: sqlite3.Connection) -> None:
    """Documents have versions: a changed file from the same source is the next version
    of the same document, and the version it replaces (or a deleted document's last one)
    is kept with its text and its chunks' places (``layout``: JSON ``[start, end, page,
    section]`` each), so an old answer's citation still opens the text it quoted. Kept
    versions are pruned by the retention settings. Documents are found by content too
    (an upload of content already here, a duplicate under another name)."""
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
        CREATE INDEX document_versions_ended ON document_versions (ended_at);
        """,
    )


@MIGRATIONS.step
def site_pages(db: sqlite3.Connection) -> None:
    """The web pages a collection follows from a sitemap (``footnoted sync URL``): the
    sitemap that listed each, and the validators its server sent (``ETag``,
    ``Last-Modified``) for the next pass's conditional request."""
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
        CREATE INDEX site_pages_sitemap ON site_pages (collection, sitemap);
        """,
    )


@MIGRATIONS.step
def chunk_rows(db: sqlite3.Connection) -> None:
    """A spreadsheet chunk's rows: JSON ``[[offset, number in the sheet], …]``, so a
    citation names the row it quotes. Chunks stored before have none (NULL)."""
    db.execute("ALTER TABLE chunks ADD COLUMN rows TEXT")


@MIGRATIONS.step
def message_read_as(db: sqlite3.Connection) -> None:
    """An answer's question as it was searched and read, where that differs from as it
    was asked (a follow-up read with the conversation): shown again with the answer.
    Messages stored before have none (NULL)."""
    db.execute("ALTER TABLE messages ADD COLUMN read_as TEXT")
