"""The ``footnoted`` command line: ingest, ask, docs, reindex, eval."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..bench.cli import bench_app
from ..errors import FootnotedError
from ..evaluation.cli import eval_app
from ..ingest.ingest import FileResult, walk
from ..service.facade import Footnoted
from ..settings import Settings
from . import help as cli_help
from .ask import ask
from .db import db_app
from .errors import failure
from .feedback import feedback_app
from .mcp import mcp
from .server import refusals, serve
from .users import user_app

app = typer.Typer(
    help="Answers questions over your documents and footnotes every claim.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
docs_app = typer.Typer(help="List, enable, disable and remove documents.", no_args_is_help=True)
app.add_typer(docs_app, name="docs")
app.add_typer(eval_app, name="eval")
app.add_typer(bench_app, name="bench")
app.add_typer(user_app, name="user")
app.add_typer(db_app, name="db")
app.add_typer(feedback_app, name="feedback")
app.command()(ask)
app.command()(serve)
app.command()(refusals)
app.command()(mcp)
cli_help.install()

out = Console()
err = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        out.print(f"footnoted {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Answers questions over your documents and footnotes every claim."""


CollectionOpt = Annotated[
    str | None,
    typer.Option("--collection", "-c", metavar="NAME", help="Collection (knowledge base)."),
]
DocumentId = Annotated[
    str, typer.Argument(metavar="ID", help="The document's id, or its first characters.")
]


@contextmanager
def service() -> Iterator[Footnoted]:
    """Open the service; turn our errors into one readable line and exit code 1."""
    try:
        with Footnoted(Settings()) as fn:
            yield fn
    except FootnotedError as exc:
        raise failure(err, exc) from exc


@app.command()
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="PATH", help="Files or folders (walked recursively)."),
    ],
    collection: CollectionOpt = None,
) -> None:
    """Ingest documents: PDF, Word, PowerPoint, Excel, CSV, email, HTML, Markdown and text.

    Prints one line for each file that failed and a summary; exits 1 when any did.
    """
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        err.print(f"[red]missing[/red] {escape(str(p))}: no such file or directory", soft_wrap=True)
    files = list(walk([p for p in paths if p.exists()]))
    with service() as fn:
        progress = Progress(
            TextColumn("[bold]ingesting"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files · {task.fields[rate]} files/s · {task.fields[chunks]} chunks"),
            TimeElapsedColumn(),
            TextColumn("· {task.fields[left]} left"),
            console=err,
            transient=False,
        )
        with progress:
            task = progress.add_task("ingest", total=len(files), chunks=0, rate="–", left="–")
            started, chunks = time.perf_counter(), 0

            def step(result: FileResult) -> None:
                nonlocal chunks
                chunks += result.chunks
                done = progress.tasks[task].completed + 1
                rate = done / max(time.perf_counter() - started, 1e-3)
                left = str(timedelta(seconds=round((len(files) - done) / rate)))
                progress.update(task, advance=1, chunks=chunks, rate=f"{rate:.1f}", left=left)
                if result.outcome == "failed":
                    line = f"{result.source}: {result.error} [{result.code}]"
                    progress.console.print(f"[red]failed[/red] {escape(line)}", soft_wrap=True)

            try:
                report = fn.ingest(files, collection, step)
            except KeyboardInterrupt:
                progress.stop()
                sources = {str(f.resolve()) for f in files}
                stored = sum(
                    d.source in sources
                    for d in fn.store.list_documents(collection or fn.settings.collection)
                )
                err.print(
                    f"Interrupted: {stored} of {len(files)} files are stored. Run the same "
                    "command again to go on; stored files are skipped as unchanged."
                )
                raise typer.Exit(130) from None
    out.print(
        f"{report.count('added')} added, {report.count('replaced')} replaced, "
        f"{report.count('unchanged')} unchanged, {len(report.failed) + len(missing)} failed; "
        f"{report.chunks} chunks"
    )
    if report.failed or missing:
        raise typer.Exit(1)


@app.command()
def reindex(collection: CollectionOpt = None) -> None:
    """Re-embed documents whose vectors came from another embedding model, or that were
    stored without sentence vectors."""
    with service() as fn:
        n = fn.reindex(
            collection, lambda r: err.print(f"re-embedded {r.source} ({r.chunks} chunks)")
        )
    out.print(f"{n} documents re-embedded")


@app.command()
def sync(
    target: Annotated[
        str,
        typer.Argument(
            metavar="DIR|URL",
            help="The folder the collection follows, or a sitemap's URL (XML, a sitemap "
            "index, or one URL a line).",
        ),
    ],
    collection: CollectionOpt = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep following it: a pass every --interval.")
    ] = False,
    interval: Annotated[
        float, typer.Option(metavar="SECONDS", help="Between passes with --watch.", min=0.2)
    ] = 5.0,
    delay: Annotated[
        float,
        typer.Option(
            metavar="SECONDS",
            help="A site: the least time between two requests to one host (robots.txt's "
            "Crawl-delay when it asks for more).",
            min=0.0,
        ),
    ] = 1.0,
) -> None:
    """Keep a collection in step with a folder or a website: add new files or pages,
    re-ingest changed ones (by content hash; a site's pages by conditional request),
    retire those that are gone.

    A site is fetched politely: robots.txt obeyed, one request at a time, --delay apart.
    Prints what each pass did (with --watch, only passes that changed something); exits
    1 when a file or page failed (with --watch it goes on; Ctrl-C stops it).
    """
    from ..service.site_sync import sync_site
    from ..service.sync import SyncReport, sync_folder

    def failed(result: FileResult) -> None:
        if result.outcome == "failed":
            line = f"{result.source}: {result.error} [{result.code}]"
            err.print(f"[red]failed[/red] {escape(line)}", soft_wrap=True)

    site = target.lower().startswith(("http://", "https://"))

    def one_pass(fn: Footnoted) -> SyncReport:
        if site:
            return sync_site(fn, target, collection, failed, delay=delay)
        return sync_folder(fn, Path(target), collection, failed)

    with service() as fn:
        first, failures = True, 0
        try:
            while True:
                report = one_pass(fn)
                failures += len(report.ingest.failed)
                if first or report.changed or report.ingest.failed:
                    for doc in report.retired:
                        out.print(f"retired {escape(doc.title)} ({escape(doc.source)})")
                    for url in report.blocked:
                        out.print(f"skipped {escape(url)} (robots.txt)")
                    out.print(f"{escape(report.target)} → {escape(report.collection)}: "
                              f"{report.summary()}")  # fmt: skip
                first = False
                if not watch:
                    break
                time.sleep(interval)
        except KeyboardInterrupt:
            err.print("Stopped. Run it again to go on: unchanged files are skipped.")
    if failures:
        raise typer.Exit(1)


@docs_app.command("list")
def docs_list(
    collection: CollectionOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List documents."""
    with service() as fn:
        docs = fn.store.list_documents(collection)
    if as_json:
        out.print_json(json.dumps([d.to_dict() for d in docs]))
        return
    table = Table(
        "id", "collection", "title", "kind", "status", "enabled", "chunks", "pages", "version"
    )  # fmt: skip
    for d in docs:
        table.add_row(
            d.id[:12], d.collection, d.title, d.kind, d.status,
            "yes" if d.enabled else "no", str(d.chunk_count), str(d.page_count or ""),
            str(d.version),
        )  # fmt: skip
    out.print(table)


def _resolve(fn: Footnoted, prefix: str) -> str:
    matches = [d.id for d in fn.store.list_documents() if d.id.startswith(prefix)]
    if len(matches) != 1:
        err.print(
            f"[red]error[/red] {prefix!r} matches {len(matches)} documents; give more of the id."
        )
        raise typer.Exit(1)
    return matches[0]


@docs_app.command("enable")
def docs_enable(document_id: DocumentId) -> None:
    """Let a document be used for answers again."""
    with service() as fn:
        doc = fn.set_enabled(_resolve(fn, document_id), True)
    out.print(f"enabled {doc.title}")


@docs_app.command("disable")
def docs_disable(document_id: DocumentId) -> None:
    """Hide a document from retrieval at once (it stays stored)."""
    with service() as fn:
        doc = fn.set_enabled(_resolve(fn, document_id), False)
    out.print(f"disabled {doc.title}")


@docs_app.command("rm")
def docs_rm(
    document_id: DocumentId,
    purge: Annotated[
        bool,
        typer.Option(
            "--purge",
            help="Also remove its kept versions: answers that quoted it no longer open its text.",
        ),
    ] = False,
) -> None:
    """Delete a document with its chunks and vectors (its last version is kept for the
    answers that quoted it, unless --purge)."""
    with service() as fn:
        full = _resolve(fn, document_id)
        title = fn.store.get_document(full).title
        fn.delete(full, purge=purge)
    out.print(f"removed {title}" + (" and its versions" if purge else ""))


def main() -> None:  # pragma: no cover - console entry point
    app()
