"""``footnoted eval``: answer quality, citations, refusals and retrieval on public data."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..cli.errors import failure
from ..errors import FootnotedError
from . import realdocs, runners
from .financebench import FilingsResult, run_financebench
from .followups import FollowupResult, run_followups
from .owndocs import OwnDocsResult
from .policies import run_conditionalqa, run_policyqa
from .realdocs import DocsResult
from .runners import ProgressFn, Result
from .tatqa import run_tatqa

Outcome = Result | FollowupResult | DocsResult | OwnDocsResult | FilingsResult

eval_app = typer.Typer(
    help="Measure answers, citations, refusals and retrieval on public datasets.",
    no_args_is_help=True,
)

out = Console()
err = Console(stderr=True)

JsonOpt = Annotated[
    Path | None, typer.Option("--json", help="Write every number (and per-item records) here.")
]
ExistingFile = Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)]


@contextmanager
def progress_bar() -> Iterator[ProgressFn]:
    """A rich progress bar on stderr, one task per stage (ingest, questions...)."""
    bar = Progress(
        TextColumn("[bold]{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )
    tasks: dict[str, TaskID] = {}

    def update(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield update


def _run(name: str, job: Callable[[ProgressFn], Outcome], json_path: Path | None) -> None:
    started = time.perf_counter()
    try:
        with progress_bar() as progress:
            result = job(progress)
    except FootnotedError as exc:
        raise failure(err, exc) from exc
    wall = time.perf_counter() - started
    show(name, result, wall)
    if json_path is not None:
        data = {"eval": name, "wall_seconds": round(wall, 3), **runners.to_dict(result)}
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        out.print(f"[dim]wrote {json_path}[/dim]")


def show(name: str, result: Outcome, wall: float) -> None:
    """The metrics table (and any breakdowns), then the settings and knowledge base the
    run used."""
    table = Table(title=f"footnoted eval {name}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("n", justify="right")
    for metric in result.metrics():
        table.add_row(metric.name, _percent(metric.value), str(metric.n))
    out.print(table)
    if isinstance(result, DocsResult | OwnDocsResult | FilingsResult):
        for by, rows in result.breakdowns().items():
            out.print(_breakdown(by, rows))
    info = result.info
    out.print(
        f"settings: threshold {info.threshold:.2f} · top_k {info.top_k} · model {info.model} "
        f"· chunk_tokens {info.chunk_tokens} · chunks in {info.embedding_precision} "
        f"· reader {info.reader_runtime}, threshold {info.reader_threshold:.2f}",
        highlight=False,
    )
    failed = f" ({info.failed_files} files failed)" if info.failed_files else ""
    out.print(
        f"knowledge base: {info.documents} documents, {info.chunks} chunks{failed} · "
        f"model load {info.model_seconds:.1f}s · ingest {info.ingest_seconds:.1f}s · "
        f"asking {info.ask_seconds:.1f}s · wall {wall:.1f}s",
        highlight=False,
    )
    for line in _notes(result):
        out.print(line, highlight=False)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _breakdown(by: str, rows: dict[str, dict[str, float | int | None]]) -> Table:
    table = Table(title=f"per {by}")
    columns = list(next(iter(rows.values())))
    table.add_column(by)
    for column in columns:
        table.add_column(column, justify="right")
    for name, row in rows.items():
        cells = [str(v) if isinstance(v, int) else _percent(v) for v in row.values()]
        table.add_row(name, *cells)
    return table


def _notes(result: Outcome) -> list[str]:
    if isinstance(result, DocsResult):
        absent = [f"[red]not in the knowledge base (questions count as wrong): "
                  f"{', '.join(result.missing)}[/red]"] if result.missing else []  # fmt: skip
        length = f"answers' median length: {result.overall.median_length} characters"
        return [f"{result.questions} questions", length, *absent, *_errors(result.errors)]
    if isinstance(result, FilingsResult):
        kept = f"{result.filings} filings of {result.companies} companies in the knowledge base"
        return [f"{kept}; a third of the companies held out", *_errors(result.errors)]
    if isinstance(result, OwnDocsResult):
        length = f"answers' median length: {result.median_length} characters"
        each = f"{result.documents} {result.unit}, one collection each"
        return [each, length, *_errors(result.errors)]
    if isinstance(result, FollowupResult):
        how = "with the conversation so far" if result.context else "each turn on its own"
        return [f"{result.conversations} conversations, asked {how}"]
    if isinstance(result, runners.SquadResult):
        return [f"{result.articles} articles", *_errors(result.errors)]
    if isinstance(result, runners.OfftopicResult):
        read = (
            f"{result.questions} questions read; {result.skipped} skipped (a gold answer "
            f"appears in the knowledge base); {result.evaluated} evaluated"
        )
        return [read, *_errors(result.errors)]
    if isinstance(result, runners.BeirResult):
        missing = f"; {result.missing_queries} qrels queries missing" * bool(result.missing_queries)
        return [f"{result.corpus} corpus documents; {result.queries} queries{missing}"]
    lines = [f"{result.yes_no_skipped} yes/no answers skipped for contains-gold"]
    if result.conflicting_titles:
        lines.append(f"{result.conflicting_titles} titles had differing paragraphs (first kept)")
    return lines + _errors(result.errors)


def _errors(n: int) -> list[str]:
    return [f"[red]{n} questions raised errors (counted as refused)[/red]"] if n else []


@eval_app.command()
def squad(
    file: ExistingFile,
    articles: Annotated[int | None, typer.Option(min=1, help="First N articles.")] = None,
    questions: Annotated[
        int | None, typer.Option(min=1, help="First N questions per article.")
    ] = None,
    json_path: JsonOpt = None,
) -> None:
    """SQuAD 2.0: citation hits and answers on answerable questions, refusals otherwise."""
    _run("squad", lambda p: runners.run_squad(file, articles, questions, p), json_path)


@eval_app.command()
def offtopic(
    kb: Annotated[
        Path,
        typer.Option(
            "--kb",
            exists=True,
            dir_okay=False,
            help="The KB: SQuAD 2.0 JSON (its articles) or HotpotQA JSON (its paragraphs).",
        ),
    ],
    questions: Annotated[
        Path, typer.Option("--questions", exists=True, dir_okay=False, help="NQ-open JSONL.")
    ],
    limit: Annotated[int | None, typer.Option(min=1, help="First N questions.")] = None,
    articles: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="First N SQuAD articles, or HotpotQA questions' paragraphs (default all).",
        ),
    ] = None,
    paragraphs: Annotated[
        bool,
        typer.Option(
            "--paragraphs",
            help="Each SQuAD paragraph its own document: a broad KB of short passages.",
        ),
    ] = False,
    json_path: JsonOpt = None,
) -> None:
    """Off-topic questions (NQ-open) against SQuAD or HotpotQA passages: all should refuse."""
    _run(
        "offtopic",
        lambda p: runners.run_offtopic(kb, questions, limit, articles, p, paragraphs),
        json_path,
    )


@eval_app.command()
def beir(
    directory: Annotated[
        Path, typer.Argument(exists=True, file_okay=False, help="corpus.jsonl + queries.jsonl")
    ],
    qrels: Annotated[Path, typer.Option("--qrels", exists=True, dir_okay=False, help="qrels TSV.")],
    queries: Annotated[int | None, typer.Option(min=1, help="First N qrels queries.")] = None,
    distractors: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="A smaller corpus: the judged documents of the chosen queries plus the "
            "first N others (default: the whole corpus).",
        ),
    ] = None,
    json_path: JsonOpt = None,
) -> None:
    """BEIR retrieval: nDCG@10 and recall@100 over the chunks aggregated to documents."""
    _run("beir", lambda p: runners.run_beir(directory, qrels, queries, p, distractors), json_path)


@eval_app.command()
def followups(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)] = Path(
        "tests/data/followups.jsonl"
    ),
    samples: Annotated[
        Path, typer.Option(exists=True, file_okay=False, help="The 'samples' knowledge base.")
    ] = Path("samples"),
    squad: Annotated[
        Path, typer.Option(exists=True, dir_okay=False, help="The 'squad-dev' articles.")
    ] = Path("../shared/data/squad2/dev-16-articles.json"),
    context: Annotated[
        bool, typer.Option("--context/--no-context", help="Ask with the conversation so far.")
    ] = True,
    json_path: JsonOpt = None,
) -> None:
    """Follow-up questions: does each later turn of a conversation cite the right passage?"""
    _run(
        "followups",
        lambda p: run_followups(file, samples, squad, context, p),
        json_path,
    )


@eval_app.command()
def docs(
    questions: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="The questions (JSONL).")
    ] = Path("tests/data/real-documents.jsonl"),
    data: Annotated[
        Path,
        typer.Option(
            exists=True,
            file_okay=False,
            help="The shared data folder (pdfs/, pdfs-more/, html/, docs-more/), or any "
            "folder of documents (all of it is read).",
        ),
    ] = Path("../shared/data"),
    split: Annotated[str, typer.Option(help="tune, report (the frozen half) or all.")] = "all",
    home: Annotated[
        Path | None,
        typer.Option(
            help="Keep the knowledge base here between runs (unchanged files are skipped)."
        ),
    ] = None,
    json_path: JsonOpt = None,
) -> None:
    """Real documents: right fact, right page, found, refusals and wrong-but-grounded,
    per kind, file format and split."""
    if split not in ("tune", "report", "all"):
        raise typer.BadParameter("split is tune, report or all", param_hint="--split")
    chosen = None if split == "all" else split
    _run("docs", lambda p: realdocs.run_docs(questions, data, chosen, home, p), json_path)


@eval_app.command()
def financebench(file: ExistingFile, json_path: JsonOpt = None) -> None:
    """FinanceBench: questions over SEC filings' pages; a third of the companies are
    held out, and their questions should be refused. Non-commercial data: evaluation
    only."""
    _run("financebench", lambda p: run_financebench(file, p), json_path)


@eval_app.command()
def tatqa(
    file: ExistingFile,
    pages: Annotated[int | None, typer.Option(min=1, help="First N pages.")] = None,
    json_path: JsonOpt = None,
) -> None:
    """TAT-QA: span questions over one annual-report page each (its table and text),
    asked of that page alone."""
    _run("tatqa", lambda p: run_tatqa(file, pages, p), json_path)


@eval_app.command()
def policyqa(
    file: ExistingFile,
    policies: Annotated[int | None, typer.Option(min=1, help="First N policies.")] = None,
    questions: Annotated[
        int | None, typer.Option(min=1, help="First N questions per policy.")
    ] = None,
    json_path: JsonOpt = None,
) -> None:
    """PolicyQA (test): questions about one website's privacy policy each, asked of that
    policy alone. Non-commercial data: evaluation only."""
    _run("policyqa", lambda p: run_policyqa(file, policies, questions, p), json_path)


@eval_app.command()
def conditionalqa(
    file: ExistingFile,
    pages: Annotated[int | None, typer.Option(min=1, help="First N pages.")] = None,
    json_path: JsonOpt = None,
) -> None:
    """ConditionalQA (dev): a scenario and a question about one gov.uk page, asked of
    that page alone (its published evidence sentences: the pages themselves are not)."""
    _run("conditionalqa", lambda p: run_conditionalqa(file, pages, p), json_path)


@eval_app.command()
def hotpot(
    file: ExistingFile,
    questions: Annotated[int | None, typer.Option(min=1, help="First N questions.")] = None,
    json_path: JsonOpt = None,
) -> None:
    """HotpotQA (distractor): are both supporting paragraphs cited?"""
    _run("hotpot", lambda p: runners.run_hotpot(file, questions, p), json_path)
