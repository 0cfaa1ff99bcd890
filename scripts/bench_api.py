#!/usr/bin/env python
"""Benchmark the HTTP service over real HTTP against a real `footnoted serve` process.

- time to first `answer_delta` (SC-003: under 500 ms), over distinct questions so the
  query-embedding cache never helps; the model is loaded (the server warms it up);
- history load for a user with 1,000 sessions (SC-004: well under 1 s): listing the
  sessions and loading one session's messages.

Prints a table of median / p95 / max in milliseconds; ``--json PATH`` writes the numbers.

    .venv/bin/python scripts/bench_api.py [--requests 60] [--sessions 1000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "How are annual plans refunded?",
    "How long is data kept after an account is closed?",
    "What changed in the latest release?",
    "Can I get a refund on a monthly plan?",
    "How long are backups retained?",
    "Who can request deletion of personal data?",
    "What is the processing fee for refunds?",
    "How do I contact support?",
]
PREFIXES = ["", "Please tell me: ", "Quick question: ", "I wonder, ", "Could you explain: "]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(name: str, values: list[float]) -> dict[str, float | str | int]:
    ms = [v * 1000 for v in values]
    return {
        "measure": name,
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 1),
        "p95_ms": round(pct(ms, 0.95), 1),
        "max_ms": round(max(ms), 1),
    }


def seed(home: Path, sessions: int) -> tuple[str, str, str]:
    """Ingest the samples, make users, and give one user `sessions` answered sessions."""
    sys.path.insert(0, str(ROOT / "src"))
    from footnoted import Footnoted, Settings, answer_payload
    from footnoted.api.auth import issue_token
    from footnoted.records import NewMessage

    with Footnoted(Settings(home=home)) as fn:
        fn.ingest([ROOT / "samples"])
        asker = fn.store.create_user("asker")
        reader = fn.store.create_user("reader")
        result = fn.answer(QUESTIONS[0])
        assert result.answer is not None
        payload = answer_payload(result.answer)
        reply = NewMessage(
            "assistant", "answer", result.answer.text, payload["citations"],  # type: ignore[arg-type]
            payload["referenced_indices"], payload["spans"],  # type: ignore[arg-type]
        )  # fmt: skip
        last = ""
        for i in range(sessions):
            message_id = uuid.uuid4().hex
            question = f"{QUESTIONS[i % len(QUESTIONS)]} ({i})"
            claim = fn.store.claim_chat(
                reader.id, message_id, question, None, question, "bench:0", lambda *_: True
            )
            question_msg = NewMessage("user", "question", question)
            fn.store.complete_chat(
                reader.id, message_id, claim.session_id, (question_msg, reply), payload, None
            )
            last = claim.session_id
        return issue_token(fn.store, asker), issue_token(fn.store, reader), last


def start(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "FOOTNOTED_RATE_LIMIT": "0"}
    cmd = [sys.executable, "-m", "footnoted", "serve", "--port", str(port),
           "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("the server did not start")


def time_to_first_delta(client: httpx.Client, token: str, n: int) -> list[float]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    times = []
    for i in range(n):
        question = PREFIXES[(i // len(QUESTIONS)) % len(PREFIXES)] + QUESTIONS[i % len(QUESTIONS)]
        body = {"message": f"{question} #{i}", "message_id": uuid.uuid4().hex}
        start = time.perf_counter()
        with client.stream("POST", "/api/chat", json=body, headers=headers) as r:
            if not r.headers["content-type"].startswith("text/event-stream"):
                r.read()
                continue  # a refusal: no delta to time
            lines = r.iter_lines()
            for line in lines:
                if line == "event: answer_delta":
                    times.append(time.perf_counter() - start)
                    break
            for _ in lines:  # read the rest: the answer is stored before answer_end
                pass
    return times


def history(client: httpx.Client, token: str, session: str, n: int) -> tuple[list[float], ...]:
    headers = {"Authorization": f"Bearer {token}"}
    listing, messages = [], []
    for _ in range(n):
        start = time.perf_counter()
        r = client.get("/api/sessions", headers=headers)
        listing.append(time.perf_counter() - start)
        assert r.status_code == 200
        count = len(r.json())
        start = time.perf_counter()
        client.get(f"/api/sessions/{session}/messages", headers=headers).raise_for_status()
        messages.append(time.perf_counter() - start)
    print(f"(listing returned {count} sessions)")
    return listing, messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        asker, reader, session = seed(home, args.sessions)
        port = free_port()
        proc = start(home, port)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                time_to_first_delta(client, asker, 3)  # first requests settle caches
                ttfd = time_to_first_delta(client, asker, args.requests)
                listing, messages = history(client, reader, session, 30)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    rows = [
        row("time to first answer_delta", ttfd),
        row(f"GET /api/sessions ({args.sessions} sessions)", listing),
        row("GET /api/sessions/{id}/messages", messages),
    ]
    print(f"{'measure':44} {'n':>4} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
    for r in rows:
        print(
            f"{r['measure']:44} {r['n']:>4} {r['median_ms']:>10} {r['p95_ms']:>8} {r['max_ms']:>8}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
