"""``footnoted user …``: users and their API tokens, every change in the audit log.

A command that makes a token prints it as the last line of stdout (shown once).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..records import CLI_ACTOR, TokenInfo
from ..service.accounts import Accounts, Issued
from .errors import home_store

user_app = typer.Typer(
    help="Users and their API tokens: add, list, revoke, rotate, promote, demote, delete.",
    no_args_is_help=True,
)
out = Console()
err = Console(stderr=True)
T = TypeVar("T")

Name = Annotated[str, typer.Argument(help="User name.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@contextmanager
def _accounts() -> Iterator[Accounts]:
    """The home's store, acting as the command line; errors print as ``error [code] …``."""
    with home_store(err) as store:
        yield Accounts(store, CLI_ACTOR)


def _run(work: Callable[[Accounts], T]) -> T:
    with _accounts() as accounts:
        return work(accounts)


def _print_token(issued: Issued) -> None:
    out.print(f"token {issued.info.id} (shown once; send it as Authorization: Bearer <token>):")
    print(issued.token)


def _json(rows: list[dict[str, Any]]) -> None:
    out.print_json(json.dumps(rows, ensure_ascii=False))


@user_app.command("add")
def user_add(
    name: Name,
    admin: Annotated[
        bool, typer.Option("--admin", help="May manage documents, settings and users.")
    ] = False,
) -> None:
    """Create a user (or give an existing one another token); prints the token last."""

    def add(a: Accounts) -> Issued:
        user = a.store.find_user(name.strip())
        if user is None:
            user, issued = a.add(name, admin)
            out.print(f"created user {escape(user.name)}" + (" (admin)" if admin else ""))
            return issued
        if admin and not user.is_admin:
            user = a.set_admin(user, True)
        out.print(
            f"user {escape(user.name)} exists; issued another token (the earlier ones still "
            "work: footnoted user tokens / revoke)"
        )
        return a.issue(user)

    _print_token(_run(add))


@user_app.command("list")
def user_list(as_json: AsJson = False) -> None:
    """Users with their token count and last use."""

    def rows(a: Accounts) -> list[dict[str, Any]]:
        tokens = a.tokens()
        return [
            {**u.to_dict(), **_token_summary([t for t in tokens if t.user_id == u.id])}
            for u in a.store.list_users()
        ]

    users = _run(rows)
    if as_json:
        _json(users)
        return
    table = Table("name", "admin", "created", "tokens", "last used")
    for u in users:
        table.add_row(
            escape(u["name"]),
            "yes" if u["is_admin"] else "no",
            u["created_at"][:19],
            str(u["tokens"]),
            (u["last_used_at"] or "never")[:19],
        )
    out.print(table)


def _token_summary(tokens: list[TokenInfo]) -> dict[str, Any]:
    used = [t.last_used_at for t in tokens if t.last_used_at]
    return {"tokens": len(tokens), "last_used_at": max(used) if used else None}


@user_app.command("tokens")
def user_tokens(name: Name, as_json: AsJson = False) -> None:
    """The user's tokens (API tokens and web sessions): id, created, last used."""
    tokens = _run(lambda a: a.tokens(a.user(name)))
    if as_json:
        _json([t.to_dict() for t in tokens])
        return
    table = Table("id", "kind", "created", "last used")
    for t in tokens:
        table.add_row(t.id, t.kind, t.created_at[:19], (t.last_used_at or "never")[:19])
    out.print(table)


@user_app.command("revoke")
def user_revoke(
    name: Name,
    token_id: Annotated[
        str | None, typer.Argument(help="The token's id (footnoted user tokens).")
    ] = None,
    all_tokens: Annotated[
        bool, typer.Option("--all", help="Every token of the user, web sessions too.")
    ] = False,
) -> None:
    """Revoke a token (or all of them): it stops working at once."""
    if (token_id is None) == (not all_tokens):
        err.print("[red]error[/red] name a token id or --all")
        raise typer.Exit(2)

    def revoke(a: Accounts) -> list[str]:
        user = a.user(name)
        if token_id is None:
            return a.revoke_all(user)
        a.revoke(user, token_id)
        return [token_id]

    revoked = _run(revoke)
    out.print(f"revoked {len(revoked)} token(s) of {escape(name)}: {', '.join(revoked)}")


@user_app.command("rotate")
def user_rotate(
    name: Name,
    token_id: Annotated[
        str | None, typer.Argument(help="The API token to replace; all of them when left out.")
    ] = None,
) -> None:
    """Replace a token (or all API tokens) by one new token; prints it last."""

    def rotate(a: Accounts) -> tuple[list[str], Issued]:
        user = a.user(name)
        if token_id is None:
            return a.rotate_all(user)
        return [token_id], a.rotate(user, token_id)

    old, issued = _run(rotate)
    out.print(f"revoked {', '.join(old) or 'no tokens'}")
    _print_token(issued)


@user_app.command("promote")
def user_promote(name: Name) -> None:
    """Make the user an admin."""
    _run(lambda a: a.set_admin(a.user(name), True))
    out.print(f"{escape(name)} is an admin")


@user_app.command("demote")
def user_demote(name: Name) -> None:
    """Take admin rights away (not from the only admin); effective on the next request."""
    _run(lambda a: a.set_admin(a.user(name), False))
    out.print(f"{escape(name)} is no longer an admin")


@user_app.command("delete")
def user_delete(
    name: Name, yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False
) -> None:
    """Delete the user with their tokens, chat history and logged refusals."""
    if not yes:
        typer.confirm(f"Delete {name} and all their chats?", abort=True)
    gone = _run(lambda a: a.delete(a.user(name)))
    out.print(
        f"deleted {escape(name)}: {gone['sessions']} session(s), {gone['messages']} "
        f"message(s), {gone['tokens']} token(s), {gone['refusals']} refusal(s)"
    )


@user_app.command("audit")
def user_audit(
    limit: Annotated[int, typer.Option(metavar="N", help="How many, newest first.", min=1)] = 50,
    as_json: AsJson = False,
) -> None:
    """The audit log: every change an admin made (users, tokens, collection settings,
    documents, the LLM connection), who made it and how."""
    entries = _run(lambda a: a.audit(limit))
    if as_json:
        _json([e.to_dict() for e in entries])
        return
    table = Table("when", "by", "action", "on", "detail")
    for e in entries:
        by = "cli" if e.via == "cli" else f"{e.actor} (api)"
        on = e.user_name if e.user_name is not None else e.target or ""
        detail = " ".join(f"{k}={v}" for k, v in e.detail.items())
        table.add_row(e.at[:19], escape(by), e.action, escape(on), escape(detail))
    out.print(table)
    if not entries:
        out.print("no changes logged")
