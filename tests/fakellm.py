"""A small OpenAI-compatible chat server on 127.0.0.1 that stands in for the LLM.

Tests set :attr:`FakeLLM.script` to say what the next replies are: the tokens to stream,
a delay between them, an HTTP status, a drop after some tokens, or an endless stream
(:attr:`FakeLLM.sent` counts the bytes it wrote); or :attr:`FakeLLM.respond`, a function
from the request body to its reply, when replies depend on the request. Every request
body is kept in :attr:`FakeLLM.requests`, its Authorization header in
:attr:`FakeLLM.keys`. Like a real server it can demand a key (:attr:`FakeLLM.api_key`:
401 otherwise) and know only some models (:attr:`FakeLLM.models`: 404 for others), each
with an OpenAI-style error message.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Script:
    tokens: list[str] = field(default_factory=list)
    delay_s: float = 0.0  # before every token (and before the first)
    status: int = 200
    drop_after: int | None = None  # close the connection after this many tokens
    garbage: bool = False  # send a line that is not JSON instead of tokens
    endless: bool = False  # repeat the tokens until the client hangs up, never finishing
    error: str = "boom"  # the error message of a reply whose status is not 200


def words(text: str) -> list[str]:
    """Split a reply into token-like pieces (a word with its trailing space; brackets split)."""
    out: list[str] = []
    for word in text.split(" "):
        piece = word + " "
        if "[" in piece and len(piece) > 3:  # "refunded [1]." -> "refunded", " [", "1]."
            head, _, tail = piece.partition("[")
            out += [head, "[", tail]
        else:
            out.append(piece)
    out[-1] = out[-1].rstrip(" ")
    return [p for p in out if p]


class FakeLLM:
    def __init__(self) -> None:
        self.script = Script(words("Annual plans are refunded in full [1]."))
        self.respond: Callable[[dict[str, Any]], Script] | None = None
        self.requests: list[dict[str, Any]] = []
        self.keys: list[str | None] = []
        self.api_key: str | None = None
        self.models: set[str] | None = None
        self.sent = 0  # bytes of the latest reply
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                fake.requests.append(body)
                fake.keys.append(self.headers.get("Authorization"))
                script = fake.script if fake.respond is None else fake.respond(body)
                if fake.api_key and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                    script = Script(status=401, error="Incorrect API key provided.")
                elif fake.models is not None and body.get("model") not in fake.models:
                    script = Script(status=404, error=f"model {body.get('model')!r} not found")
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    fake.reply(self, script)  # a client that gave up (a timeout test) is fine

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reply(self, h: BaseHTTPRequestHandler, script: Script) -> None:
        if script.status != 200:
            body = json.dumps({"error": {"message": script.error}}).encode()
            h.send_response(script.status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        if script.garbage:
            h.wfile.write(b"data: {not json\n\n")
            return
        self.sent = 0
        tokens = itertools.cycle(script.tokens) if script.endless else script.tokens
        for n, token in enumerate(tokens):
            if script.drop_after is not None and n == script.drop_after:
                h.wfile.flush()
                return  # the connection closes without finish_reason or [DONE]
            if script.delay_s:
                time.sleep(script.delay_s)
            frame = _chunk({"content": token}, None)
            h.wfile.write(frame)
            h.wfile.flush()
            self.sent += len(frame)
        h.wfile.write(_chunk({}, "stop"))
        h.wfile.write(b"data: [DONE]\n\n")

    def start(self) -> None:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def last_prompt(self) -> list[dict[str, str]]:
        messages: list[dict[str, str]] = self.requests[-1]["messages"]
        return messages


def _chunk(delta: dict[str, str], finish: str | None) -> bytes:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


@contextmanager
def fake_llm() -> Iterator[FakeLLM]:
    llm = FakeLLM()
    llm.start()
    try:
        yield llm
    finally:
        llm.stop()
