"""``footnoted sync DIR``: a collection follows a folder (new files added, changed ones
re-ingested, gone ones retired), idempotently, resumably after a kill, and with
``--watch`` as the folder changes (real command line, real model, real SQLite)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import write
from watchhelpers import watching

pytestmark = pytest.mark.slow


def footnoted(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "footnoted", *args],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


def summary(result: subprocess.CompletedProcess[str]) -> str:
    return " ".join(result.stdout.split())


def stored(home: Path) -> dict[str, str]:
    """Each stored document's source, by its content hash's first digits."""
    with sqlite3.connect(home / "footnoted.db") as db:
        rows = db.execute("SELECT source, content_hash FROM documents WHERE status = 'ready'")
        return {source: digest[:12] for source, digest in rows}


def test_a_collection_follows_its_folder(tmp_path: Path) -> None:
    docs, home = tmp_path / "docs", tmp_path / "home"
    write(docs / "cafeteria.md", "# Cafeteria\n\nThe cafeteria opens at 7:30 every weekday.\n")
    write(docs / "policies" / "parking.md", "# Parking\n\nStaff park on level two of the garage.\n")
    write(docs / "policies" / "badges.txt", "Lost badges are replaced at the front desk.\n")
    write(docs / ".drafts" / "secret.md", "Hidden drafts are never synced.\n")
    first = footnoted(home, "sync", str(docs), "-c", "office")
    assert first.returncode == 0, first.stderr
    assert "3 added, 0 changed, 0 unchanged, 0 retired, 0 failed" in summary(first)
    again = footnoted(home, "sync", str(docs), "-c", "office")
    assert "0 added, 0 changed, 3 unchanged, 0 retired, 0 failed; 0 chunks embedded" in summary(
        again
    )
    before = stored(home)

    write(docs / "cafeteria.md", "# Cafeteria\n\nThe cafeteria opens at 8:15 every weekday.\n")
    (docs / "policies" / "badges.txt").unlink()
    (docs / "policies" / "parking.md").rename(docs / "parking.md")  # moved
    write(docs / "visitors.md", "# Visitors\n\nVisitors sign in at reception.\n")
    write(docs / "broken.pdf", "%PDF-1.7 this is not really a PDF")
    changed = footnoted(home, "sync", str(docs), "-c", "office")
    assert changed.returncode == 1  # a file failed: said, and the rest synced
    assert "broken.pdf" in changed.stderr
    assert "2 added, 1 changed, 0 unchanged, 2 retired, 1 failed" in summary(changed)
    assert "retired badges" in changed.stdout and "retired Parking" in changed.stdout
    after = stored(home)
    root = str(docs.resolve())
    assert set(after) == {f"{root}/cafeteria.md", f"{root}/parking.md", f"{root}/visitors.md"}
    assert after[f"{root}/cafeteria.md"] != before[f"{root}/cafeteria.md"]  # the new text
    assert after[f"{root}/parking.md"] == before[f"{root}/policies/parking.md"]  # same content
    answer = footnoted(home, "ask", "--local", "-c", "office", "When does the cafeteria open?")
    assert answer.returncode == 0 and "8:15" in answer.stdout and "7:30" not in answer.stdout
    other = footnoted(home, "sync", str(docs / "policies"), "-c", "office")  # a subfolder
    assert "0 added, 0 changed, 0 unchanged, 0 retired" in summary(other)  # now empty
    assert set(stored(home)) == set(after)  # what lies outside it is left alone
    missing = footnoted(home, "sync", str(tmp_path / "nope"))
    assert missing.returncode != 0 and "nope" in missing.stderr


def test_a_killed_sync_goes_on_where_it_stopped(tmp_path: Path) -> None:
    docs, home = tmp_path / "docs", tmp_path / "home"
    for i in range(300):
        body = " ".join(f"Invoice {i} line {j} bills the orchard's apples." for j in range(30))
        write(docs / f"invoice-{i:03d}.md", f"# Invoice {i}\n\n{body}\n")
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "200"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "footnoted", "sync", str(docs)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if stored(home):
                break
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # no chance to clean up
    proc.communicate(timeout=60)
    kept = len(stored(home))
    assert 0 < kept < 300
    resumed = footnoted(home, "sync", str(docs))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{300 - kept} added, 0 changed, {kept} unchanged, 0 retired, 0 failed" in summary(
        resumed
    )
    with sqlite3.connect(home / "footnoted.db") as db:
        chunks = db.execute("SELECT count(*), count(DISTINCT id) FROM chunks").fetchone()
    assert len(stored(home)) == 300 and chunks[0] == chunks[1] > 0


def test_watch_follows_the_folder_as_it_changes(tmp_path: Path) -> None:
    docs, home = tmp_path / "docs", tmp_path / "home"
    write(docs / "one.md", "# One\n\nThe first memo is about the roof.\n")
    env = {**os.environ, "FOOTNOTED_HOME": str(home)}
    with watching([str(docs), "--interval", "0.3"], env) as watch:
        watch.wait_for("1 added, 0 changed, 0 unchanged, 0 retired")
        write(docs / "two.md", "# Two\n\nThe second memo is about the boiler.\n")
        watch.wait_for("1 added, 0 changed, 1 unchanged, 0 retired")
        (docs / "one.md").unlink()
        watch.wait_for("0 added, 0 changed, 1 unchanged, 1 retired")
        assert "retired One" in watch.printed
    assert "Stopped." in watch.errors
    assert len(stored(home)) == 1
