"""Helpers for the HTTP API tests: an app over a real data directory, SSE parsing,
and a real ``footnoted serve`` (uvicorn) process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from starlette.testclient import TestClient

from conftest import SAMPLES
from footnoted import Footnoted, Settings
from footnoted.api.app import create_app
from footnoted.service.accounts import issue_token
from pghelpers import database_env, database_settings

SSE = {"Accept": "text/event-stream"}


def mid() -> str:
    return uuid.uuid4().hex


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Api:
    client: TestClient
    service: Footnoted
    admin: dict[str, str]
    alice: dict[str, str]
    bob: dict[str, str]

    def chat(self, message: str, who: dict[str, str] | None = None, **body: Any) -> httpx.Response:
        payload = {"message": message, "message_id": mid(), **body}
        return self.client.post("/api/chat", json=payload, headers=who or self.alice)

    def stream(
        self, message: str, who: dict[str, str] | None = None, **body: Any
    ) -> tuple[httpx.Response, list[tuple[str, dict[str, Any]]]]:
        payload = {"message": message, "message_id": mid(), **body}
        r = self.client.post("/api/chat", json=payload, headers={**(who or self.alice), **SSE})
        return r, parse_sse(r.text) if r.headers["content-type"].startswith(
            "text/event-stream"
        ) else []


def make_user(service: Footnoted, name: str, admin: bool = False) -> dict[str, str]:
    user = service.store.create_user(name, admin)
    return bearer(issue_token(service.store, user))


@contextmanager
def api(home: Path, ingest: bool = True, **settings: Any) -> Iterator[Api]:
    """A real app over a real data directory (samples ingested) and three users."""
    with Footnoted(Settings(home=home, **database_settings(home), **settings)) as service:
        if ingest:
            report = service.ingest([SAMPLES])
            assert not report.failed
        admin = make_user(service, "admin", admin=True)
        alice = make_user(service, "alice")
        bob = make_user(service, "bob")
        with TestClient(create_app(service=service)) as client:
            yield Api(client, service, admin, alice, bob)


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(event, data) pairs; comments and ids dropped."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if data is not None:
            events.append((name, data))
    return events


def answer_text(events: list[tuple[str, dict[str, Any]]]) -> str:
    return "".join(d["text"] for e, d in events if e == "answer_delta")


# ---- a real server -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    home: Path
    log: Path

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def start_server(
    home: Path, workers: int = 1, warm: bool = True, port: int | None = None, **env: str
) -> Server:
    """``footnoted serve`` in its own process group (on ``port``, else a free one),
    answering (and with ``warm``, its embedding model loaded) or failed."""
    port = port or free_port()
    log = home.parent / f"server-{port}.log"
    environ = {**os.environ, "FOOTNOTED_HOME": str(home), **database_env(home), **env}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "footnoted", "serve", "--port", str(port),
             "--workers", str(workers), "--log-level", "warning"],
            env=environ, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    server = Server(process, f"http://127.0.0.1:{port}", home, log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            health = httpx.get(server.url + "/api/health", timeout=1)
            if health.status_code == 200 and not (warm and health.json()["model"] == "warming"):
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop(signal.SIGKILL)
    raise RuntimeError(f"server did not start:\n{log.read_text()[-3000:]}")


def cli(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "200", **database_env(home),
        **(env or {}),
    }  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "footnoted", *args],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
