"""A first run as a new user makes it: ``make demo``'s script (over the existing .venv)
ingests the samples, serves them and prints the README's "Use" lines; pasted into a
second shell, elsewhere, they work as written, and ``ask`` is answered by the demo's
server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from apihelpers import free_port
from conftest import ROOT

pytestmark = pytest.mark.slow


def readme_use_lines() -> list[str]:
    section = (ROOT / "README.md").read_text().split("\n## Use\n", 1)[1]
    return section.split("```bash\n", 1)[1].split("\n```", 1)[0].splitlines()


def user_env() -> dict[str, str]:
    """This environment as a new user's shell has it: no footnoted settings, no .venv."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOOTNOTED_")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if not p.endswith(".venv/bin")]
    return {**env, "PATH": os.pathsep.join(path), "COLUMNS": "200"}


class Demo:
    def __init__(self, checkout: Path, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        env = {**user_env(), "FOOTNOTED_DEMO_SETUP": "0", "FOOTNOTED_DEMO_PORT": str(port)}
        self.log = (checkout.parent / "demo-server.log").open("wb")
        self.process = subprocess.Popen(
            ["bash", str(checkout / "scripts" / "demo")], env=env, stdout=subprocess.PIPE,
            stderr=self.log, stdin=subprocess.DEVNULL, text=True, start_new_session=True,
        )  # fmt: skip

    def next_lines(self) -> list[str]:
        """The lines printed under "in a second terminal, paste", up to the blank line."""
        assert self.process.stdout is not None
        lines: list[str] = []
        for line in self.process.stdout:
            if lines and not line.strip():
                return lines
            if lines or "in a second terminal, paste" in line:
                lines.append(line.rstrip("\n"))
        raise AssertionError(f"the demo stopped early: {self.process.wait()}")

    def wait_until_serving(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError("the demo's server did not start")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    checkout = tmp_path / "checkout"  # the repository as cloned, with its .venv
    checkout.mkdir()
    for name in (".venv", "samples", "scripts"):
        (checkout / name).symlink_to(ROOT / name)
    demo = Demo(checkout, free_port())
    try:
        yield demo
    finally:
        demo.stop()


def test_the_demo_prints_the_readme_lines_and_they_work_when_pasted(
    demo: Demo, tmp_path: Path
) -> None:
    printed = demo.next_lines()
    checkout = tmp_path / "checkout"
    assert printed[1] == f'  cd "{checkout}"'
    assert [line.removeprefix("  ") for line in printed[2:]] == readme_use_lines()
    demo.wait_until_serving()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    pasted = "\n".join(line.removeprefix("  ") for line in printed[1:])
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", pasted], cwd=elsewhere, env=user_env(),
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout  # what the answers say is tested elsewhere; here, that they come
    answer = json.loads(out[out.index("{") : out.index("\n}\n") + 2])
    assert answer["type"] == "answer" and answer["citations"]
    assert "I couldn't find the answer" in out and "refused: exit status 3" in out
    assert "Data Retention Policy" in out  # docs list
    assert "0 added, 0 replaced, 3 unchanged, 0 failed" in out  # ingest samples, again
    summaries = [line for line in result.stderr.splitlines() if line.startswith("answered")]
    assert len(summaries) == 3
    assert all(f"(server {demo.url}, " in line for line in summaries), result.stderr
    assert (checkout / ".footnoted" / "footnoted.db").exists()
