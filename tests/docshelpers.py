"""Running a docs page's examples: its fenced blocks, against a live server.

A page's ``python``, ``bash`` and ``json`` blocks are examples to run; ``shell`` and
``text`` blocks are shown, never run (they need something the tests do not have, such as
Docker, or are output).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from servedhelpers import BIN, Served

DOCS_URL = "http://127.0.0.1:8000"


def blocks(page: str, lang: str) -> list[str]:
    text = (ROOT / "docs" / page).read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def run_python(page: str, server: Served) -> subprocess.CompletedProcess[str]:
    """The page's Python blocks, in order, as one script: a separate client process."""
    script = "\n".join(blocks(page, "python")).replace(DOCS_URL, server.url)
    return subprocess.run(
        [sys.executable, "-c", script], env=server.env(), capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def run_bash(page: str, server: Served, **env: str) -> subprocess.CompletedProcess[str]:
    """The page's bash blocks, in order, less ``pip install`` lines (installed already)."""
    lines = "\n".join(blocks(page, "bash")).replace(DOCS_URL, server.url).splitlines()
    script = "\n".join(line for line in lines if not line.startswith("pip install"))
    environ = {**server.env(), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], env=environ, capture_output=True,
        text=True, timeout=300, cwd=Path(env.get("CWD", ROOT)),
    )  # fmt: skip
