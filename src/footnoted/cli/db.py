"""``footnoted db``: database maintenance."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import FootnotedError
from ..settings import Settings

db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
out = Console()
err = Console(stderr=True)


@db_app.command("migrate")
def db_migrate() -> None:
    """Apply pending migrations (the server also applies them when it starts)."""
    from ..inference.embedding import get_embedder
    from ..stores.factory import migrate_database

    settings = Settings()
    where = "PostgreSQL" if settings.database_url else str(settings.home / "footnoted.db")
    try:
        applied = migrate_database(settings, get_embedder(settings).dim)
    except FootnotedError as exc:
        err.print(f"[red]error[/red] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from exc
    for name in applied:
        out.print(f"applied {name}")
    out.print(f"{where}: {len(applied)} migration(s) applied, schema up to date.")
