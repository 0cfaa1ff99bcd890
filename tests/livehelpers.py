"""The real app served by uvicorn on 127.0.0.1 (in a thread), with the fake LLM beside it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from apihelpers import SSE, free_port, make_user, mid, parse_sse
from conftest import SAMPLES
from fakellm import FakeLLM, fake_llm
from footnoted import Footnoted, Settings
from footnoted.api.app import create_app
from pghelpers import database_settings


@dataclass
class Live:
    url: str
    service: Footnoted
    llm: FakeLLM
    http: httpx.Client
    admin: dict[str, str]
    alice: dict[str, str]
    app: FastAPI

    def chat(self, message: str, **body: Any) -> dict[str, Any]:
        payload = {"message": message, "message_id": mid(), **body}
        r = self.http.post("/api/chat", json=payload, headers=self.alice)
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def stream(self, message: str, **body: Any) -> list[tuple[str, dict[str, Any]]]:
        payload = {"message": message, "message_id": mid(), **body}
        r = self.http.post("/api/chat", json=payload, headers={**self.alice, **SSE})
        assert r.status_code == 200, r.text
        return parse_sse(r.text)

    def timed_stream(self, message: str) -> list[tuple[float, str]]:
        """(seconds since the request, raw line) for every line of an SSE answer."""
        payload = {"message": message, "message_id": mid()}
        began = time.monotonic()
        lines = []
        headers = {**self.alice, **SSE}
        with self.http.stream("POST", "/api/chat", json=payload, headers=headers) as r:
            for line in r.iter_lines():
                lines.append((time.monotonic() - began, line))
        return lines

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        r = self.http.get(f"/api/sessions/{session_id}/messages", headers=self.alice)
        assert r.status_code == 200, r.text
        result: list[dict[str, Any]] = r.json()
        return result

    def configure(self, collection: str = "default", **changes: Any) -> None:
        r = self.http.put(
            f"/api/collections/{collection}/settings", json=changes, headers=self.admin
        )
        assert r.status_code == 200, r.text


@contextmanager
def live(home: Path, **settings: Any) -> Iterator[Live]:
    """Samples ingested, LLM mode on by default, served over real HTTP."""
    with fake_llm() as llm:
        config = {"generation_mode": "llm", "llm_base_url": llm.url, "llm_timeout_s": 1.5}
        config.update(database_settings(home))
        with Footnoted(Settings(home=home, **{**config, **settings})) as service:
            assert not service.ingest([SAMPLES]).failed
            admin = make_user(service, "admin", admin=True)
            alice = make_user(service, "alice")
            port = free_port()
            asgi = create_app(service=service)
            server = uvicorn.Server(
                uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="warning")
            )
            thread = threading.Thread(target=server.run, daemon=True)
            thread.start()
            deadline = time.monotonic() + 60
            while not server.started and time.monotonic() < deadline:
                time.sleep(0.05)
            url = f"http://127.0.0.1:{port}"
            try:
                with httpx.Client(base_url=url, timeout=30) as http:
                    yield Live(url, service, llm, http, admin, alice, asgi)
            finally:
                server.should_exit = True
                thread.join(20)
