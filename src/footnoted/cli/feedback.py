"""``footnoted feedback …``: the users' feedback queue, its resolution, and its export as
questions of ``footnoted eval docs``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..records import CLI_ACTOR, FeedbackKind, FeedbackStatus
from ..service import feedback
from ..stores.base import Store
from .errors import home_store

feedback_app = typer.Typer(
    help="What users said of answers and sources: list, resolve, export as eval questions.",
    no_args_is_help=True,
)
out = Console()
err = Console(stderr=True)
T = TypeVar("T")

CollectionOpt = Annotated[
    str | None, typer.Option("--collection", "-c", metavar="NAME", help="Only this collection.")
]
StatusOpt = Annotated[
    FeedbackStatus | None, typer.Option("--status", help="Only open or resolved items.")
]


def _run(work: Callable[[Store], T]) -> T:
    with home_store(err) as store:
        return work(store)


@feedback_app.command("list")
def feedback_list(
    limit: Annotated[
        int, typer.Option(metavar="N", help="How many, newest first.", min=1, max=100000)
    ] = 50,
    collection: CollectionOpt = None,
    kind: Annotated[FeedbackKind | None, typer.Option("--kind", help="Only this kind.")] = None,
    status: StatusOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The feedback queue, newest first."""
    rows = _run(lambda s: s.list_feedback(limit, collection, kind, status))
    if as_json:
        out.print_json(json.dumps([r.to_dict() for r in rows], ensure_ascii=False))
        return
    table = Table("id", "when", "kind", "status", "collection", "user", "question", "note")
    for r in rows:
        kind_shown = r.kind if r.citation is None else f"{r.kind} [{r.citation}]"
        table.add_row(
            r.id[:12], r.created_at[:19], kind_shown, r.status, escape(r.collection or "—"),
            escape(r.user_name), escape(r.question), escape(r.note),
        )  # fmt: skip
    out.print(table)
    if not rows:
        out.print("no feedback")


@feedback_app.command("resolve")
def feedback_resolve(
    feedback_id: Annotated[str, typer.Argument(metavar="ID", help="The item's id.")],
    note: Annotated[str, typer.Option("--note", help="What was done about it.")] = "",
) -> None:
    """Mark an item resolved (in the audit log)."""
    item = _run(lambda s: s.resolve_feedback(feedback_id, CLI_ACTOR, note))
    out.print(f"resolved {item.id}: {escape(item.question)}")


@feedback_app.command("export")
def feedback_export(
    output: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE", help="Write here (default: stdout)."),
    ] = None,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="The documents folder `eval docs` will read: files named relative to it.",
        ),
    ] = None,
    collection: CollectionOpt = None,
    status: StatusOpt = None,
) -> None:
    """The feedback that says what is right (the answer's words and place, or that the
    documents do not answer it) as questions of `footnoted eval docs` (JSONL)."""

    def export(store: Store) -> feedback.Export:
        return feedback.export_questions(
            store, store.list_feedback(10**6, collection, None, status), root
        )

    exported = _run(export)
    text = feedback.as_jsonl(exported.questions)
    if output is None:
        print(text, end="")
    else:
        output.write_text(text, encoding="utf-8")
    err.print(
        f"{len(exported.questions)} questions exported"
        + (f" to {output}" if output else "")
        + f"; {exported.left_out} items left out (no correction to grade an answer by)"
    )
