"""Commands for the HTTP service: ``serve`` and ``refusals`` (``user …``: :mod:`.users`)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..settings import Settings
from .errors import home_store
from .remote import advertised, connect_url

out = Console()
err = Console(stderr=True)


def serve(
    host: Annotated[str, typer.Option(metavar="ADDRESS", help="Address to listen on.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    workers: Annotated[int, typer.Option(help="Worker processes.", min=1, max=64)] = 1,
    log_level: Annotated[str, typer.Option(metavar="LEVEL", help="uvicorn log level.")] = "info",
) -> None:
    """Serve the HTTP API and the web UI with uvicorn.

    While it runs, footnoted ask on the same home asks it instead of loading the model.
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from ..api.listener import TcpConfig

    settings = Settings()
    data = "PostgreSQL" if settings.database_url else settings.home
    err.print(f"footnoted serving on http://{host}:{port} (data in {data})")
    config = TcpConfig(
        "footnoted.api.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        timeout_graceful_shutdown=5,
    )
    # ``footnoted ask`` on this home finds the server through the home's server.json.
    with advertised(settings.home, connect_url(host, port)):
        if workers > 1:
            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            uvicorn.Server(config).run()


def refusals(
    limit: Annotated[
        int, typer.Option(metavar="N", help="How many, newest first.", min=1, max=10000)
    ] = 50,
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", metavar="NAME", help="Only this collection."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Questions the documents could not answer: what the knowledge base lacks."""
    with home_store(err) as store:
        rows = store.list_refusals(limit, collection)
    if as_json:
        out.print_json(json.dumps([r.to_dict() for r in rows], ensure_ascii=False))
        return
    table = Table("when", "collection", "best", "threshold", "user", "question")
    for r in rows:
        best = "—" if r.max_score is None else f"{r.max_score:.2f}"
        table.add_row(
            r.created_at[:19], escape(r.collection), best, f"{r.threshold:.2f}",
            escape(r.user_name or "cli"), escape(r.question),
        )  # fmt: skip
    out.print(table)
    if not rows:
        out.print("no refusals logged")
