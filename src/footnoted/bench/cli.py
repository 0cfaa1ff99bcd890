"""``footnoted bench``: tables on stdout, every number in ``--json``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ..cli.errors import failure
from ..errors import FootnotedError
from ..evaluation.cli import progress_bar
from . import report
from .texts import DATA, missing_files
from .versus import PEER_PYTHON

bench_app = typer.Typer(
    help="Benchmarks: embedding speed, ingestion, query latency and load.",
    no_args_is_help=True,
)

JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write every number here.")]


def _data_folder(data: Path) -> Path:
    missing = missing_files(data)
    if missing:
        raise typer.BadParameter(f"{data} has no {', '.join(missing)}")
    return data


DataOpt = Annotated[
    Path,
    typer.Option(
        "--data",
        file_okay=False,
        callback=_data_folder,
        help="The shared evaluation data folder.",
    ),
]
SmallOpt = Annotated[bool, typer.Option("--small", help="A quick run at a small size (CI).")]


@bench_app.command()
def embed(
    texts: Annotated[int, typer.Option(min=8, help="Real chunk texts to embed.")] = 2000,
    rounds: Annotated[int, typer.Option(min=1, help="Alternating rounds per path.")] = 3,
    precision: Annotated[
        list[str] | None, typer.Option(help="Paths to measure (fp32, int8, bf16); default all.")
    ] = None,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """Chunks/s of footnoted's embedding vs sentence-transformers fp32 defaults."""
    from .embed import run_embed

    started = time.perf_counter()
    texts, rounds = (min(texts, 64), 1) if small else (texts, rounds)
    try:
        with progress_bar() as progress:
            result = run_embed(data, texts, rounds, precision, progress)
    except FootnotedError as exc:
        raise failure(report.err, exc) from exc
    columns = {
        "path": "path",
        "median_s": "median s",
        "chunks_per_s": "chunks/s",
        "ratio": "× baseline",
        "cosine_min": "cos min",
        "cosine_median": "cos median",
    }
    report.show(f"footnoted bench embed ({result['texts']} SciFact chunks)", result["rows"],
                columns)  # fmt: skip
    report.finish("embed", started, result, json_path)


ScalesOpt = Annotated[
    list[int] | None, typer.Option("--chunks", help="Knowledge-base sizes (repeatable).")
]
DirOpt = Annotated[
    Path | None,
    typer.Option("--dir", file_okay=False, help="Where built knowledge bases are kept."),
]
BackendOpt = Annotated[str, typer.Option(help="sqlite, or postgres (needs --database-url).")]
UrlOpt = Annotated[
    str | None, typer.Option(envvar="FOOTNOTED_DATABASE_URL", help="PostgreSQL URL (postgres).")
]


def _target(directory: Path | None, backend: str, url: str | None) -> Any:
    from ..inference.runtime import resolve_precision
    from ..settings import Settings
    from .query import Target

    if backend not in ("sqlite", "postgres"):
        raise typer.BadParameter("--backend is sqlite or postgres")
    if backend == "postgres" and not url:
        raise typer.BadParameter("--backend postgres needs --database-url")
    settings = Settings()
    precision = resolve_precision(settings.embedding_precision)
    tag = "" if precision == "fp32" else f"-{precision}"
    root = directory or settings.home / "bench"
    return Target(root, backend, url if backend == "postgres" else None, tag)


@bench_app.command()
def query(
    chunks: ScalesOpt = None,
    real: Annotated[int, typer.Option(min=100, help="Chunks of real, embedded text.")] = 3000,
    clients: Annotated[
        list[int] | None, typer.Option("--clients", help="Concurrent clients (repeatable).")
    ] = None,
    requests: Annotated[int, typer.Option(min=1, help="Questions per client setting.")] = 100,
    workers: Annotated[
        list[int] | None,
        typer.Option("--workers", min=1, help="footnoted serve --workers (repeatable; 1)."),
    ] = None,
    backend: BackendOpt = "sqlite",
    database_url: UrlOpt = None,
    directory: DirOpt = None,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """Time to first answer_delta and to answer_end, over real HTTP, at several sizes."""
    from .query import run_query

    started = time.perf_counter()
    scales = chunks or ([1000] if small else [10_000, 100_000])
    real, requests = (min(real, 150), min(requests, 10)) if small else (real, requests)
    target = _target(directory, backend, database_url)
    try:
        with progress_bar() as progress:
            result = run_query(target, data, scales, real, clients or [1, 8], requests, progress,
                               workers)  # fmt: skip
    except FootnotedError as exc:
        raise failure(report.err, exc) from exc
    columns = {"chunks": "chunks", "real_chunks": "real", "generated_chunks": "generated",
               "workers": "workers", "clients": "clients", "answered": "answered",
               "refused": "refused",
               "errors": "errors", "first_delta_p50_ms": "first p50 ms",
               "first_delta_p95_ms": "first p95", "first_delta_p99_ms": "first p99",
               "end_p50_ms": "end p50 ms", "end_p95_ms": "end p95", "end_p99_ms": "end p99",
               "server_cpu_ms_per_request": "server CPU ms/req",
               "server_peak_rss_mb": "server RSS MiB", "index_s": "index s"}  # fmt: skip
    report.show(f"footnoted bench query ({backend}, extractive)", result["rows"], columns)
    report.finish("query", started, {"backend": backend, **result}, json_path)


@bench_app.command()
def load(
    clients: Annotated[int, typer.Option(min=1, help="Concurrent chat clients.")] = 16,
    seconds: Annotated[float, typer.Option(min=1, help="How long to keep asking.")] = 60,
    workers: Annotated[int, typer.Option(min=1, help="footnoted serve --workers.")] = 2,
    rate_limit: Annotated[
        int, typer.Option(min=0, help="FOOTNOTED_RATE_LIMIT for the server; 0 is off.")
    ] = 0,
    chunks: Annotated[int, typer.Option(min=100, help="Knowledge-base size.")] = 10_000,
    real: Annotated[int, typer.Option(min=100, help="Chunks of real, embedded text.")] = 3000,
    backend: BackendOpt = "sqlite",
    database_url: UrlOpt = None,
    directory: DirOpt = None,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """Throughput, errors and latency of concurrent chat clients over real HTTP."""
    from .load import run_load

    started = time.perf_counter()
    if small:
        chunks, real, clients, seconds = 1000, min(real, 150), min(clients, 4), min(seconds, 5)
    target = _target(directory, backend, database_url)
    try:
        with progress_bar() as progress:
            result = run_load(target, data, chunks, real, clients, seconds, workers, rate_limit,
                              progress)  # fmt: skip
    except FootnotedError as exc:
        raise failure(report.err, exc) from exc
    columns = {"workers": "workers", "clients": "clients", "seconds": "seconds",
               "requests": "requests", "per_s": "req/s", "answered": "answered",
               "refused": "refused", "rate_limited": "429", "errors": "errors",
               "first_delta_p50_ms": "first p50 ms", "end_p50_ms": "end p50 ms",
               "end_p95_ms": "end p95", "end_p99_ms": "end p99",
               "server_peak_rss_mb": "server RSS MiB"}  # fmt: skip
    report.show(f"footnoted bench load ({backend}, {chunks} chunks)", result["rows"], columns)
    report.finish("load", started, {"backend": backend, **result}, json_path)


@bench_app.command()
def index(
    sizes: Annotated[
        list[int] | None, typer.Option("--size", help="Vectors in the index (repeatable).")
    ] = None,
    questions_n: Annotated[
        int, typer.Option("--questions", min=10, help="SQuAD 1.1 train questions.")
    ] = 500,
    database_url: Annotated[
        str | None, typer.Option(help="Also check pgvector's index on this PostgreSQL.")
    ] = None,
    directory: DirOpt = None,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """Recall@10 and answer chunks in the top 10 of the vector index against exact
    search, on real text (SQuAD 1.1 train, SciFact, the PDFs), beside search time."""
    from ..settings import Settings
    from .index import SIZES, run_index

    started = time.perf_counter()
    root = directory or Settings().home / "bench"
    articles = 3 if small else None
    sizes, questions_n = ([200, 1000], min(questions_n, 30)) if small else (sizes, questions_n)
    try:
        with progress_bar() as progress:
            result = run_index(root, data, sizes or list(SIZES), questions_n, progress,
                               database_url, articles)  # fmt: skip
    except FootnotedError as exc:
        raise failure(report.err, exc) from exc
    columns = {"size": "vectors", "chunks": "chunks", "padded": "padded",
               "questions": "questions", "index": "index", "recall_at_10": "recall@10",
               "gold_at_10": "gold in top 10", "exact_gold_at_10": "exact: gold",
               "search_p50_ms": "search p50 ms", "build_s": "build s"}  # fmt: skip
    title = (f"footnoted bench index ({result['real_chunks']:,} real chunks, "
             f"{result['sentence_vectors']:,} sentence vectors)")  # fmt: skip
    report.show(title, result["rows"], columns)  # type: ignore[arg-type]
    if result.get("postgres"):
        report.show("pgvector", result["postgres"], columns)  # type: ignore[arg-type]
    report.finish("index", started, result, json_path)


@bench_app.command()
def stages(
    chunks: Annotated[
        int, typer.Option(min=100, help="Knowledge-base size (built by query).")
    ] = 100_000,
    real: Annotated[int, typer.Option(min=100, help="Chunks of real, embedded text.")] = 3000,
    questions_n: Annotated[int, typer.Option("--questions", min=1, help="Questions.")] = 30,
    backend: BackendOpt = "sqlite",
    database_url: UrlOpt = None,
    directory: DirOpt = None,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """Median time per stage of one question (embedding, dense, keyword, fetch, rerank, answer)."""
    from .query import prepare
    from .stages import profile
    from .texts import questions

    started = time.perf_counter()
    if small:
        chunks, real, questions_n = 1000, min(real, 150), min(questions_n, 5)
    target = _target(directory, backend, database_url)
    try:
        with progress_bar() as progress:
            store = prepare(target, data, chunks, real, progress)
            rows = profile(target.settings(chunks, real), questions(data)[:questions_n], progress)
    except FootnotedError as exc:
        raise failure(report.err, exc) from exc
    report.show(f"footnoted bench stages ({backend}, {store['chunks']} chunks)", rows,
                {"stage": "stage", "median_ms": "median ms", "n": "n"})  # fmt: skip
    report.finish("stages", started, {"backend": backend, "store": store, "rows": rows}, json_path)


@bench_app.command()
def ingest(
    docs: Annotated[int | None, typer.Option(min=1, help="First N SciFact abstracts.")] = None,
    precision: Annotated[
        list[str] | None,
        typer.Option(
            help="Embedding precision: fp32, int8, bf16, auto (repeat for several); "
            "default auto, and fp32 too with --peer."
        ),
    ] = None,
    peer: Annotated[
        bool, typer.Option("--peer", help="Whole processes against LangChain + Chroma, PDFs.")
    ] = False,
    rounds: Annotated[int, typer.Option(min=1, help="Alternating rounds (--peer).")] = 3,
    peer_python: Annotated[
        Path, typer.Option(help="The peer's interpreter (scripts/setup-peer makes it).")
    ] = PEER_PYTHON,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """Files to searchable chunks/s (SciFact abstracts and the PDFs), with peak RSS; with
    --peer, pages/s of `footnoted ingest` against the usual LangChain pipeline."""
    started = time.perf_counter()
    precisions = precision or (["auto", "fp32"] if peer else ["auto"])
    try:
        if peer:
            from .versus import run_versus

            with progress_bar() as progress:
                result = run_versus(data, precisions, rounds, peer_python, progress, small)
            columns = {"pipeline": "pipeline", "pages": "pages", "chunks": "chunks",
                       "seconds": "median s", "pages_per_s": "pages/s", "vs_peer": "× peer",
                       "peak_rss_mb": "peak RSS MiB"}  # fmt: skip
            title = f"footnoted bench ingest --peer ({rounds} alternating rounds)"
            report.show(title, result["rows"], columns)
            report.finish("ingest", started, result, json_path)
            return
        from .ingest import run_ingest

        docs = min(docs or 50, 50) if small else docs
        with progress_bar() as progress:
            results = {p: run_ingest(data, docs, p, progress) for p in precisions}
    except FootnotedError as exc:
        raise failure(report.err, exc) from exc
    rows = [{"precision": p, **row} for p, result in results.items() for row in result["rows"]]
    columns = {"corpus": "corpus", "precision": "precision", "files": "files",
               "failed": "failed", "chunks": "chunks", "seconds": "seconds",
               "files_per_s": "files/s", "chunks_per_s": "chunks/s",
               "peak_rss_mb": "peak RSS MiB"}  # fmt: skip
    model = next(iter(results.values()))["model"]
    report.show(f"footnoted bench ingest ({model})", rows, columns)
    load = {p: result["model_load_s"] for p, result in results.items()}
    numbers = {"model": model, "model_load_s": load, "rows": rows}
    report.finish("ingest", started, numbers, json_path)


@bench_app.command("ocr")
def ocr_engines(
    pages: Annotated[int, typer.Option(min=1, help="Pages of each shared PDF.")] = 2,
    engine: Annotated[
        list[str] | None,
        typer.Option(help="Engines to compare (tesseract, rapidocr); default both."),
    ] = None,
    data: DataOpt = DATA,
    small: SmallOpt = False,
    json_path: JsonOpt = None,
) -> None:
    """OCR engines side by side on pages of the shared PDFs turned into scans: words and
    characters right against each page's text layer, and seconds a page."""
    from .ocr import run_ocr

    started = time.perf_counter()
    try:
        with progress_bar() as progress:
            result = run_ocr(data, 1 if small else pages, engine or ["tesseract", "rapidocr"],
                             progress, pdfs=2 if small else 0)  # fmt: skip
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    columns = {"engine": "engine", "pages": "pages", "words_right": "words right",
               "chars_right": "chars right", "median_s": "median s/page"}  # fmt: skip
    title = (
        f"footnoted bench ocr ({len(result['pages'])} pages scanned at {result['scan_dpi']} dpi)"
    )
    report.show(title, result["rows"], columns)
    report.finish("ocr", started, result, json_path)
