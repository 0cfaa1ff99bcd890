"""How every command reports one of our errors: one readable line, exit code 1."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import FootnotedError


def failure(console: Console, exc: FootnotedError) -> typer.Exit:
    """Print ``error [code] message`` (brackets shown as written) and return the exit."""
    console.print(f"[red]error[/red] {escape(f'[{exc.code}] {exc.message}')}", soft_wrap=True)
    return typer.Exit(1)
