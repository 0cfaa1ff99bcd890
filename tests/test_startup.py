"""What a process that only asks questions, or ingests in int8, loads: neither PyTorch
nor the models in it, once the ONNX exports are cached, where the reader runs in int8."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ASK = """
import json, sys
from pathlib import Path
from footnoted import Footnoted, Settings
from footnoted.inference.runtime import set_threads
set_threads(1)  # as a server does
with Footnoted(Settings()) as fn:
    if sys.argv[1] == "ingest":
        fn.ingest([Path(sys.argv[2])])
    result = fn.answer("How long are backups kept?")
    print(json.dumps({
        "answer": result.answer.text if result.answer else None,
        "torch": "torch" in sys.modules,
        "modelling": "transformers.modeling_utils" in sys.modules,
    }))
"""


def _run(home: Path, *args: str, precision: str = "auto") -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOOTNOTED_")}
    env |= {"FOOTNOTED_HOME": str(home), "FOOTNOTED_MODEL_CACHE": str(home / "models"),
            "FOOTNOTED_READER_RUNTIME": "int8",
            "FOOTNOTED_EMBEDDING_PRECISION": precision}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", ASK, *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_asking_imports_no_pytorch_once_the_exports_are_cached(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "backups.md").write_text(
        "# Backups\n\nBackups are kept for 30 days and then deleted. They run every night.\n"
    )
    first = _run(tmp_path, "ingest", str(docs))  # ingests (PyTorch) and exports the models
    assert first["torch"] and first["answer"]
    later = _run(tmp_path, "ask")
    assert later == {"answer": first["answer"], "torch": False, "modelling": False}


def test_ingesting_in_int8_imports_no_pytorch_once_the_exports_are_cached(tmp_path: Path) -> None:
    docs, more = tmp_path / "docs", tmp_path / "more"
    docs.mkdir()
    more.mkdir()
    (docs / "backups.md").write_text("# Backups\n\nBackups are kept for 30 days.\n")
    (more / "restores.md").write_text(
        "# Restores\n\nBackups are kept for 90 days on the Business plan. Restores take an hour.\n"
    )
    first = _run(tmp_path, "ingest", str(docs), precision="int8")  # exports the models
    assert first["torch"] and first["answer"]
    later = _run(tmp_path, "ingest", str(more), precision="int8")
    assert later["answer"] and later["torch"] is False and later["modelling"] is False
