"""A real ``footnoted serve`` process for benchmarks, and the peak memory it reached."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from .report import cpu_seconds, peak_rss_mb


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    token: str
    process: subprocess.Popen[bytes]

    def pids(self) -> list[int]:
        """The server process and its worker processes."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            kids = [int(p) for p in children.read_text().split()]
        except OSError:
            kids = []
        return [self.process.pid, *kids]

    def peak_rss_mb(self) -> float:
        return peak_rss_mb(self.pids())

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pids())


def make_token(env: dict[str, str]) -> str:
    """``footnoted user add`` prints the new token as its last line."""
    done = subprocess.run(
        [sys.executable, "-m", "footnoted", "user", "add", "bench"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip().splitlines()[-1]


@contextmanager
def serving(env_extra: dict[str, str], workers: int = 1) -> Iterator[Server]:
    env = {**os.environ, **env_extra}
    token = make_token(env)
    port = free_port()
    cmd = [sys.executable, "-m", "footnoted", "serve", "--port", str(port),
           "--workers", str(workers), "--log-level", "warning"]  # fmt: skip
    process = subprocess.Popen(cmd, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(url, process)
        yield Server(url, token, process)
    finally:
        with contextlib.suppress(ProcessLookupError):  # it may have died on its own
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait(url: str, process: subprocess.Popen[bytes], limit: float = 300) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"footnoted serve exited with status {process.returncode}")
        try:
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError("footnoted serve did not answer /api/health in time")
