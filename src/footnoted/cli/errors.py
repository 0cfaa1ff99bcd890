"""How every command reports one of our errors: one readable line, exit code 1; and
the home's store, opened for a command that reads or changes it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import FootnotedError
from ..settings import Settings

if TYPE_CHECKING:
    from ..stores.base import Store


def failure(console: Console, exc: FootnotedError) -> typer.Exit:
    """Print ``error [code] message`` (brackets shown as written) and return the exit."""
    console.print(f"[red]error[/red] {escape(f'[{exc.code}] {exc.message}')}", soft_wrap=True)
    return typer.Exit(1)


@contextmanager
def home_store(console: Console) -> Iterator[Store]:
    """The store of the home the environment names, closed when the block ends; one of
    our errors, in opening it or in the block, prints as ``failure`` does."""
    from ..inference.embedding import get_embedder
    from ..stores.factory import open_store

    settings = Settings()
    try:
        store = open_store(settings, get_embedder(settings).dim)
    except FootnotedError as exc:
        raise failure(console, exc) from exc
    try:
        yield store
    except FootnotedError as exc:
        raise failure(console, exc) from exc
    finally:
        store.close()
