"""The wheel stands alone: ``python -m build`` makes a wheel and an sdist from the
tracked files; the wheel carries the reader's weights, the web assets and everything the
server needs; installed into a fresh venv outside the repository (the CPU build of
PyTorch first, as ``scripts/setup`` does), it ingests, answers and serves the web UI
with no network (every proxy pointing nowhere, the model hub offline)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from apihelpers import free_port
from conftest import ROOT, SAMPLES

pytestmark = pytest.mark.slow
TORCH = "torch==2.13.0"
QUESTION = "How are annual plans refunded?"


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def tracked_copy(into: Path) -> Path:
    """The repository's files as a clean checkout has them (tracked, or new and not
    ignored), nothing built."""
    files = run("git", "ls-files", "-z", "-co", "--exclude-standard", cwd=ROOT).split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)
    return into


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tracked_copy(tmp_path_factory.mktemp("checkout"))
    out = tmp_path_factory.mktemp("dist")
    started = time.perf_counter()
    run(sys.executable, "-m", "build", "--wheel", "--sdist", "--outdir", out, cwd=source)
    wheel = next(out.glob("footnoted-*.whl"))
    print(f"\nbuilt {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB "
          f"in {time.perf_counter() - started:.0f} s")  # fmt: skip
    return out


def test_the_wheel_carries_the_weights_the_web_ui_and_no_tests(dist: Path) -> None:
    wheel = next(dist.glob("footnoted-*-py3-none-any.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("footnoted/data/reader.safetensors", "footnoted/data/reader.json",
                   "footnoted/data/trust.json", "footnoted/data/stop_words.txt",
                   "footnoted/web/index.html", "footnoted/web/app.js",
                   "footnoted/web/feedback.js", "footnoted/web/styles.css",
                   "footnoted/py.typed", "footnoted/stores/contract.py"):  # fmt: skip
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("tests/", "samples/", "scripts/"))]
    weights = zipfile.ZipFile(wheel).getinfo("footnoted/data/reader.safetensors")
    assert weights.file_size == (ROOT / "src/footnoted/data/reader.safetensors").stat().st_size
    assert list(dist.glob("footnoted-*.tar.gz")), "no sdist"


def test_a_fresh_venv_ingests_answers_and_serves_offline(dist: Path, tmp_path: Path) -> None:
    wheel = next(dist.glob("footnoted-*.whl"))
    venv = tmp_path / "venv"
    started = time.perf_counter()
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "--quiet"]
    run(*pip, TORCH, cwd=tmp_path)
    pins = tmp_path / "constraints.txt"
    pins.write_text(TORCH + "\n")
    run(*pip, "--constraint", pins, wheel, cwd=tmp_path)
    print(f"\ninstalled into a fresh venv in {time.perf_counter() - started:.0f} s")
    bin_ = venv / "bin"
    dead = "http://127.0.0.1:9"  # nothing listens: any download would fail
    env = {
        "PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path),
        "FOOTNOTED_HOME": str(tmp_path / "home"),
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
        "http_proxy": dead, "https_proxy": dead, "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }  # fmt: skip
    where = run(bin_ / "python", "-c", "import footnoted; print(footnoted.__file__)",
                cwd=tmp_path, env=env)  # fmt: skip
    assert where.startswith(str(venv)), where  # the installed package, not the checkout's
    docs = shutil.copytree(SAMPLES, tmp_path / "docs")
    run(bin_ / "footnoted", "ingest", docs, cwd=tmp_path, env=env)
    answer = run(bin_ / "footnoted", "ask", "--local", QUESTION, cwd=tmp_path, env=env)
    assert "refunded" in answer and "[1]" in answer
    port = free_port()
    with (tmp_path / "serve.log").open("wb") as log:
        server = subprocess.Popen(
            [bin_ / "footnoted", "serve", "--port", str(port)], cwd=tmp_path, env=env,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        health: dict[str, str] = {}
        while time.monotonic() < deadline and health.get("model") != "ready":
            assert server.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                health = httpx.get(url + "/api/health", timeout=2).json()
            time.sleep(0.3)
        assert health.get("model") == "ready", health
        page = httpx.get(url + "/", timeout=10)
        assert page.status_code == 200 and 'src="/ui/app.js"' in page.text
        for asset in ("/ui/app.js", "/ui/feedback.js", "/ui/styles.css", "/docs"):
            assert httpx.get(url + asset, timeout=10).status_code == 200, asset
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
