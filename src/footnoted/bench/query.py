"""``bench query``: time to first ``answer_delta`` and to ``answer_end`` over real HTTP.

For each scale a knowledge base is built (or reused) under the bench folder, a real
``footnoted serve`` process is started on it with the model loaded, and 1 and N
concurrent clients ask distinct real questions over SSE.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..settings import Settings
from . import corpus
from .client import ChatTiming, after, history, run_clients
from .report import Row, latency_ms
from .server import Server, serving
from .texts import questions

Progress = Callable[[str, int, int], None]
WARM_UP = 16  # questions each fresh server answers before it is timed (never timed ones)


@dataclass(frozen=True)
class Target:
    """Where a benchmark's knowledge base lives: a SQLite home or a PostgreSQL URL."""

    root: Path
    backend: str
    database_url: str | None
    tag: str = ""  # the embedding precision, when not fp32: vectors differ per precision

    def home(self, scale: int, real: int) -> Path:
        """The data folder; for PostgreSQL, one per database so a new one gets built."""
        url = self.database_url or ""
        tag = f"-{hashlib.sha256(url.encode()).hexdigest()[:8]}" if url else ""
        return self.root / f"{self.backend}-{scale}-{real}{self.tag}{tag}"

    def settings(self, scale: int, real: int) -> Settings:
        return Settings(home=self.home(scale, real), database_url=self.database_url)

    def env(self, scale: int, real: int, rate_limit: int) -> dict[str, str]:
        return {
            "FOOTNOTED_HOME": str(self.home(scale, real)),
            "FOOTNOTED_DATABASE_URL": self.database_url or "",
            "FOOTNOTED_RATE_LIMIT": str(rate_limit),
        }


def prepare(target: Target, data: Path, scale: int, real: int, progress: Progress) -> Row:
    real = min(real, scale)
    seed = corpus.seed(target.root / f"seed-{real}{target.tag}", data, real, progress)
    built = corpus.build(target.home(scale, real), target.settings(scale, real), seed, scale,
                         progress)  # fmt: skip
    return {"backend": target.backend, "chunks": built.chunks, "real_chunks": built.real_chunks,
            "generated_chunks": built.generated_chunks, "build_s": built.build_seconds,
            "index_s": built.index_seconds}  # fmt: skip


def timing_row(results: list[ChatTiming], seconds: float) -> Row:
    answers = [r for r in results if r.outcome == "answer"]
    first = [r.first_delta for r in answers if r.first_delta is not None]
    return {
        "requests": len(results),
        "answered": len(answers),
        "refused": sum(r.outcome == "refusal" for r in results),
        "rate_limited": sum(r.outcome == "rate_limited" for r in results),
        "errors": sum(r.outcome == "error" for r in results),
        "per_s": round(len(results) / seconds, 2) if seconds else 0.0,
        **{f"first_delta_{k}": v for k, v in latency_ms(first).items()},
        **{f"end_{k}": v for k, v in latency_ms([r.end for r in answers]).items()},
        "all_end_p50_ms": latency_ms([r.end for r in results])["p50_ms"],
    }


def measure(server: Server, asked: list[str], clients: int, n: int, progress: Progress) -> Row:
    import time

    started, cpu = time.perf_counter(), server.cpu_seconds()
    results = run_clients(server.url, server.token, asked, clients, after(n),
                          lambda done: progress(f"{clients} clients", done, n))  # fmt: skip
    per_request = (server.cpu_seconds() - cpu) * 1000 / max(len(results), 1)
    return {"clients": clients, **timing_row(results, time.perf_counter() - started),
            "server_cpu_ms_per_request": round(per_request, 1)}  # fmt: skip


def run_query(
    target: Target, data: Path, scales: list[int], real: int, clients: list[int], n: int,
    progress: Progress, workers: list[int] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Each scale, ``footnoted serve --workers`` count and client count in turn.

    Every setting gets a fresh server, warmed up on questions it is not timed on, and
    then asks the same ``n`` questions, so settings compare like for like and no answer
    comes from a cache.
    """
    asked = questions(data)
    rows: list[Row] = []
    for scale in scales:
        store = prepare(target, data, scale, real, progress)
        for processes in workers or [1]:
            for count in clients:
                with serving(target.env(scale, real, 0), workers=processes) as server:
                    warm = asked[-WARM_UP:]
                    run_clients(server.url, server.token, warm, 2 * processes, after(len(warm)))
                    row = measure(server, asked, count, n, progress)
                    rows.append({**store, "workers": processes, **row,
                                 "server_peak_rss_mb": server.peak_rss_mb()})  # fmt: skip
                    sessions, listing, messages = history(server.url, server.token, 20)
                    rows[-1].update(sessions=sessions,
                                    sessions_p50_ms=latency_ms(listing)["p50_ms"],
                                    messages_p50_ms=latency_ms(messages)["p50_ms"])  # fmt: skip
    return {"questions": len(asked), "rows": rows}
