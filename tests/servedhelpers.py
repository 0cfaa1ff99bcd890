"""A real ``footnoted serve`` over the samples, and a user's token, for the client tests.

The samples are ingested and the user made with the CLI, as a new user would; answers
are extractive (no LLM), so every component is the real one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from apihelpers import Server, cli, start_server
from conftest import SAMPLES

QUESTION = "How long is data kept after an account is closed?"
NOT_COVERED = "Who painted the Mona Lisa?"
REFUSAL = "I couldn't find the answer to that in the documents"
SOURCES = "\n\nSources:\n1. Data Retention Policy — Section Data Retention Policy > Closed accounts"
BIN = Path(sys.executable).parent  # footnoted, llm… as installed beside this Python


@dataclass
class Served:
    server: Server
    token: str  # alice's: footnoted user add alice

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def home(self) -> Path:
        return self.server.home

    def env(self) -> dict[str, str]:
        """A client's environment: the token in FOOTNOTED_TOKEN, this home."""
        return {**os.environ, "FOOTNOTED_TOKEN": self.token, "FOOTNOTED_HOME": str(self.home)}


def add_user(home: Path, name: str) -> str:
    made = cli(home, "user", "add", name)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip().splitlines()[-1]


@contextmanager
def served(home: Path) -> Iterator[Served]:
    ingested = cli(home, "ingest", str(SAMPLES))
    assert ingested.returncode == 0, ingested.stderr
    token = add_user(home, "alice")
    server = start_server(home, FOOTNOTED_RATE_LIMIT="0")
    try:
        yield Served(server, token)
    finally:
        server.stop()
