"""The schema's steps, named once for every dialect.

Each dialect (``migrations.py`` for SQLite, ``postgres_migrations.py``) registers one
function per name of :data:`STEPS`, or says why the step has nothing to do there
(:meth:`Migrations.nothing`); ``tests/test_layers.py`` checks that both register every
step, so a third dialect knows exactly what to write. A step is recorded in the
database's ``_migrations`` table by its name; names recorded before the steps were
shared carry their dialect's number (``m005_message_grounding``) and count as the same
step.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

STEPS = (
    "documents_and_chunks",
    "users_tokens_rate_limits",
    "sessions_messages_chat_requests",
    "files_settings_refusals_secrets",
    "message_grounding",
    "message_refusal",
    "row_level_security",
    "documents_revision",
    "chunk_sentence_embeddings",
    "token_ids_and_audit_log",
    "session_origin",
    "denser_vector_index",
    "document_progress",
    "token_parents_owner_and_audit_targets",
    "chunk_table_headers",
    "rate_limit_buckets",
    "feedback",
    "oidc_sign_in",
    "document_versions",
    "site_pages",
    "chunk_rows",
    "message_read_as",
)
_NUMBERED = re.compile(r"^m\d{3}_")

Step = Callable[..., None]


def _nothing(*args: Any) -> None:
    return None


class Migrations:
    """One dialect's function for every step of :data:`STEPS`."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self._steps: dict[str, Step] = {}
        self.why_nothing: dict[str, str] = {}

    def step(self, fn: Step) -> Step:
        """Register ``fn`` as the step of its own name."""
        self._add(fn.__name__, fn)
        return fn

    def nothing(self, name: str, why: str) -> None:
        """The step ``name`` has nothing to do in this dialect, for the reason given."""
        self._add(name, _nothing)
        self.why_nothing[name] = why

    def _add(self, name: str, fn: Step) -> None:
        if name not in STEPS or name in self._steps:
            raise ValueError(f"{self.dialect}: {name!r} is not a step, or is registered twice")
        self._steps[name] = fn

    def names(self) -> list[str]:
        return [name for name in STEPS if name in self._steps]

    def ordered(self, until: str | None = None) -> list[tuple[str, Step]]:
        """Every step in order (those before ``until`` only); a missing one is an error."""
        missing = [name for name in STEPS if name not in self._steps]
        if missing:
            raise ValueError(f"{self.dialect} has no migration for {', '.join(missing)}")
        end = STEPS.index(until) if until is not None else len(STEPS)
        return [(name, self._steps[name]) for name in STEPS[:end]]


def done(recorded: Iterable[str]) -> set[str]:
    """The steps a database has applied, from the names it recorded."""
    return {_NUMBERED.sub("", name) for name in recorded}
