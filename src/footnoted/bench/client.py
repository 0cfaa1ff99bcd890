"""Chat over real HTTP: one request timed to its first ``answer_delta`` and its end."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class ChatTiming:
    outcome: str  # answer | refusal | rate_limited | error
    status: int
    first_delta: float | None
    end: float


def chat(client: httpx.Client, token: str, question: str) -> ChatTiming:
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    body = {"message": question, "message_id": uuid.uuid4().hex}
    started = time.perf_counter()
    first: float | None = None
    outcome = "error"
    try:
        with client.stream("POST", "/api/chat", json=body, headers=headers) as r:
            if r.status_code != 200:
                r.read()
                kind = "rate_limited" if r.status_code == 429 else "error"
                return ChatTiming(kind, r.status_code, None, time.perf_counter() - started)
            if not r.headers.get("content-type", "").startswith("text/event-stream"):
                r.read()
                outcome = "refusal" if r.json().get("type") == "refusal" else "error"
                return ChatTiming(outcome, 200, None, time.perf_counter() - started)
            for line in r.iter_lines():
                if line == "event: answer_delta" and first is None:
                    first = time.perf_counter() - started
                elif line in ("event: answer_end", "event: refusal"):
                    outcome = "answer" if line.endswith("answer_end") else "refusal"
                elif line == "event: error":
                    outcome = "error"
            return ChatTiming(outcome, 200, first, time.perf_counter() - started)
    except httpx.HTTPError:
        return ChatTiming("error", 0, None, time.perf_counter() - started)


def distinct(questions: Sequence[str], i: int) -> str:
    """The i-th question; past the end, numbered so no cache sees it twice."""
    rounds, at = divmod(i, len(questions))
    return questions[at] + (f" ({rounds})" if rounds else "")


def after(n: int) -> Callable[[int], bool]:
    """A stop rule for ``run_clients``: stop once ``n`` questions were asked."""
    return lambda asked: asked >= n


def run_clients(
    url: str,
    token: str,
    questions: Sequence[str],
    clients: int,
    stop: Callable[[int], bool],
    progress: Callable[[int], None] | None = None,
) -> list[ChatTiming]:
    """``clients`` threads each asking the next unused question until ``stop(done)``."""
    results: list[ChatTiming] = []
    lock = threading.Lock()
    cursor = 0

    def worker() -> None:
        nonlocal cursor
        with httpx.Client(base_url=url, timeout=120) as client:
            while True:
                with lock:
                    if stop(cursor):
                        return
                    question = distinct(questions, cursor)
                    cursor += 1
                timing = chat(client, token, question)
                with lock:
                    results.append(timing)
                    if progress is not None:
                        progress(len(results))

    with ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(worker) for _ in range(clients)]:
            future.result()
    return results


def history(url: str, token: str, n: int) -> tuple[int, list[float], list[float]]:
    """Time ``GET /api/sessions`` and one session's messages; returns the session count."""
    headers = {"Authorization": f"Bearer {token}"}
    listing: list[float] = []
    messages: list[float] = []
    sessions: list[dict[str, str]] = []
    with httpx.Client(base_url=url, timeout=60, headers=headers) as client:
        for _ in range(n):
            started = time.perf_counter()
            sessions = client.get("/api/sessions").raise_for_status().json()
            listing.append(time.perf_counter() - started)
            if sessions:
                started = time.perf_counter()
                client.get(f"/api/sessions/{sessions[0]['id']}/messages").raise_for_status()
                messages.append(time.perf_counter() - started)
    return len(sessions), listing, messages
