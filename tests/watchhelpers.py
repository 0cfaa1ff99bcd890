"""``footnoted sync … --watch`` run as a real process, its printed lines waited for."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


class Watch:
    """A watching ``footnoted sync``: what it has printed, and a wait for a line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.errors = ""

    @property
    def printed(self) -> str:
        return "".join(self.lines)

    def wait_for(self, text: str, seconds: float = 120) -> None:
        """Read until ``text`` is printed (spaces as the terminal wraps them aside)."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.lines.append(self.proc.stdout.readline())
            if text in " ".join(self.printed.split()):
                return
        raise AssertionError(f"never printed {text!r}: {self.lines}")


@contextmanager
def watching(args: list[str], env: Mapping[str, str]) -> Iterator[Watch]:
    """``footnoted sync ARGS --watch`` until the block ends, then Ctrl-C: it must stop
    cleanly (exit status 0); its error output is kept in ``errors``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "footnoted", "sync", *args, "--watch"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**env, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    watch = Watch(proc)
    try:
        yield watch
    finally:
        proc.send_signal(signal.SIGINT)
        _, watch.errors = proc.communicate(timeout=60)
    assert proc.returncode == 0, watch.errors
