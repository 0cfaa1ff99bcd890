"""``bench load``: N concurrent chat clients for a bounded time against several workers."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .client import after, run_clients
from .query import Target, prepare, timing_row
from .server import serving
from .texts import questions

Progress = Callable[[str, int, int], None]


def run_load(
    target: Target, data: Path, scale: int, real: int, clients: int, seconds: float,
    workers: int, rate_limit: int, progress: Progress,
) -> dict[str, Any]:  # fmt: skip
    store = prepare(target, data, scale, real, progress)
    asked = questions(data)
    with serving(target.env(scale, real, rate_limit), workers=workers) as server:
        run_clients(server.url, server.token, asked[-workers * 2 :], workers, after(4))
        started = time.perf_counter()
        deadline = time.monotonic() + seconds

        def tick(done: int) -> None:
            progress("seconds", min(int(time.perf_counter() - started), int(seconds)), int(seconds))

        results = run_clients(server.url, server.token, asked, clients,
                              lambda _: time.monotonic() >= deadline, tick)  # fmt: skip
        elapsed = time.perf_counter() - started
        row = {**store, "workers": workers, "clients": clients, "seconds": round(elapsed, 1),
               "rate_limit": rate_limit, **timing_row(results, elapsed),
               "server_peak_rss_mb": server.peak_rss_mb()}  # fmt: skip
    return {"rows": [row]}
