"""``footnoted ask`` through a running ``footnoted serve``: found through the home's
server.json, or named by --server / FOOTNOTED_SERVER, over real HTTP."""

from __future__ import annotations

import json
import re
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from apihelpers import Server, cli, start_server
from conftest import SAMPLES
from footnoted.cli.remote import SERVER_FILE, TOKEN_FILE

pytestmark = pytest.mark.slow

QUESTION = "How are annual plans refunded?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("ask-server") / "home"
    ingested = cli(home, "ingest", str(SAMPLES))
    assert ingested.returncode == 0, ingested.stderr
    server = start_server(home)
    try:
        yield server
    finally:
        server.stop()


def summary(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def test_serve_advertises_itself_in_the_home(server: Server) -> None:
    info = json.loads((server.home / SERVER_FILE).read_text())
    assert info == {"url": server.url, "pid": server.process.pid}


def test_ask_finds_the_running_server_and_uses_a_private_cli_token(server: Server) -> None:
    result = cli(server.home, "ask", QUESTION)
    assert result.returncode == 0, result.stderr
    answer, _, sources = result.stdout.partition("Sources")
    assert "refunded in full" in answer and "[1]" in answer
    assert "1. Northwind Cloud Customer Handbook — Section" in sources
    assert f"(server {server.url}, " in summary(result.stderr)
    token_file = server.home / TOKEN_FILE
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text().strip()
    again = cli(server.home, "ask", QUESTION, "--json")
    assert json.loads(again.stdout)["type"] == "answer"
    assert token_file.read_text().strip() == token  # issued once, then reused


def test_the_server_answers_much_faster_than_loading_the_model(server: Server) -> None:
    seconds = []
    for where in ([], ["--local"]):
        result = cli(server.home, "ask", QUESTION, *where)
        assert result.returncode == 0, result.stderr
        match = re.search(
            r"\((server http\S+|in this process), ([\d.]+) s\)$", summary(result.stderr)
        )
        assert match, result.stderr
        seconds.append(float(match.group(2)))
    print(f"ask through the server {seconds[0]:.3f} s, in process {seconds[1]:.2f} s")
    assert seconds[0] < 2 and seconds[0] * 3 < seconds[1]


def test_a_refusal_through_the_server_exits_3_and_is_logged(server: Server) -> None:
    result = cli(server.home, "ask", "Who painted the Mona Lisa?")
    assert result.returncode == 3
    assert result.stdout.startswith("I couldn't find the answer")
    assert summary(result.stderr).startswith("refused: ")
    logged = json.loads(cli(server.home, "refusals", "--json").stdout)
    assert logged[0]["question"] == "Who painted the Mona Lisa?"
    assert logged[0]["user_name"] == "cli"


def test_server_named_explicitly_with_a_user_token(server: Server, tmp_path: Path) -> None:
    made = cli(server.home, "user", "add", "erin")
    token = made.stdout.strip().splitlines()[-1]
    elsewhere = tmp_path / "empty-home"  # no server.json, no documents: only the URL helps
    env = {"FOOTNOTED_SERVER": server.url, "FOOTNOTED_TOKEN": token}
    by_env = cli(elsewhere, "ask", QUESTION, "--json", env=env)
    assert by_env.returncode == 0, by_env.stderr
    assert json.loads(by_env.stdout)["citations"][0]["document_title"].startswith("Northwind")
    by_flag = cli(elsewhere, "ask", QUESTION, "--server", server.url, "--token", token)
    assert by_flag.returncode == 0 and "refunded in full" in by_flag.stdout
    bad = cli(elsewhere, "ask", QUESTION, "--server", server.url, "--token", "fn_wrong")
    assert bad.returncode == 1
    assert "[invalid_token]" in bad.stderr and "check --token or FOOTNOTED_TOKEN" in bad.stderr
    assert not (elsewhere / "footnoted.db").exists()


def test_a_revoked_home_token_is_replaced(server: Server) -> None:
    (server.home / TOKEN_FILE).write_text("fn_revoked_or_from_another_database\n")
    result = cli(server.home, "ask", QUESTION)
    assert result.returncode == 0, result.stderr
    assert (server.home / TOKEN_FILE).read_text().strip() != "fn_revoked_or_from_another_database"


def test_a_stopped_server_is_not_asked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "ingest", str(SAMPLES)).returncode == 0
    stopped = start_server(home, warm=False)
    stopped.stop()
    assert not (home / SERVER_FILE).exists()  # removed on the way out
    killed = start_server(home, warm=False)
    killed.stop(signal.SIGKILL)  # no chance to remove its server.json
    assert (home / SERVER_FILE).exists()
    result = cli(home, "ask", QUESTION)
    assert result.returncode == 0, result.stderr
    assert "(in this process, " in summary(result.stderr)
