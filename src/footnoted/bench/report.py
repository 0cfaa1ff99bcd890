"""What every benchmark shares: percentiles, peak memory, the table and the JSON file."""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

out = Console(width=160)
err = Console(stderr=True)

Row = dict[str, Any]


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def latency_ms(values: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / p99 / max of durations given in seconds, in milliseconds."""
    ms = [v * 1000 for v in values]
    return {
        "p50_ms": round(percentile(ms, 50), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "max_ms": round(max(ms), 1) if ms else 0.0,
    }


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def own_peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def peak_rss_mb(pids: Sequence[int]) -> float:
    """Sum of the peak resident memory (VmHWM) of live processes, in MiB."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024, 1)


def cpu_seconds(pids: Sequence[int]) -> float:
    """User plus system CPU time the live processes have used so far, in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


def machine() -> dict[str, Any]:
    load = os.getloadavg()
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1m": round(load[0], 2),
    }


def show(title: str, rows: Sequence[Row], columns: dict[str, str]) -> None:
    """A table of ``rows``; ``columns`` maps each row key to its (short) header."""
    table = Table(title=title)
    for i, header in enumerate(columns.values()):
        table.add_column(header, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(_cell(row.get(key)) for key in columns))
    out.print(table)


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def finish(name: str, started: float, data: dict[str, Any], json_path: Path | None) -> None:
    """Add the run's facts to the numbers and write them to ``json_path``."""
    data = {"bench": name, "wall_seconds": round(time.perf_counter() - started, 2),
            "machine": machine(), **data}  # fmt: skip
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        out.print(f"[dim]wrote {json_path}[/dim]")
