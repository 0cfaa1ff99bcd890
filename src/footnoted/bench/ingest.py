"""``bench ingest``: files to searchable chunks per second, end to end, with peak memory.

Each row ingests a folder through ``Footnoted.ingest`` (parse, chunk, embed, store) into
a fresh knowledge base, after the model is loaded; peak RSS is this process's.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..ingest.ingest import FileResult
from ..service.facade import Footnoted
from ..settings import Settings
from .report import Row, own_peak_rss_mb
from .texts import scifact_files

Progress = Callable[[str, int, int], None]


def _folders(data: Path, root: Path, docs: int | None) -> dict[str, Path]:
    scifact = root / "scifact"
    scifact.mkdir()
    for name, text in scifact_files(data, docs).items():
        (scifact / name).write_text(text, encoding="utf-8")
    pdfs = root / "pdfs"
    shutil.copytree(data / "pdfs", pdfs)
    return {"SciFact abstracts": scifact, "PDFs": pdfs}


def _ingest(fn: Footnoted, name: str, folder: Path, progress: Progress) -> Row:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    done = 0

    def step(_: FileResult) -> None:
        nonlocal done
        done += 1
        progress(name, done, len(files))

    started = time.perf_counter()
    report = fn.ingest([folder], name.split()[0].lower(), progress=step)
    seconds = time.perf_counter() - started
    return {
        "corpus": name, "files": len(files), "failed": len(report.failed),
        "chunks": report.chunks, "seconds": round(seconds, 1),
        "files_per_s": round(len(files) / seconds, 2),
        "chunks_per_s": round(report.chunks / seconds, 1),
        "peak_rss_mb": own_peak_rss_mb(),
    }  # fmt: skip


def run_ingest(data: Path, docs: int | None, precision: str, progress: Progress) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="footnoted-bench-") as tmp:
        root = Path(tmp)
        folders = _folders(data, root, docs)
        settings = Settings(home=root / "home", embedding_precision=precision, database_url=None)  # type: ignore[arg-type]
        with Footnoted(settings) as fn:
            started = time.perf_counter()
            fn.embedder.warm_up(batches=True)
            loaded = round(time.perf_counter() - started, 1)
            rows = [_ingest(fn, name, folder, progress) for name, folder in folders.items()]
            model = fn.embedder.name
    return {"model": model, "model_load_s": loaded, "rows": rows}
