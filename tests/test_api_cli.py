"""The service commands run as real processes: user add, refusals, serve --help."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from apihelpers import bearer, cli
from footnoted import Footnoted, Settings
from footnoted.api.app import create_app
from pghelpers import database_settings, raw_database


def test_user_add_prints_a_working_token_last_and_stores_only_its_hash(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = cli(home, "user", "add", "dana", "--admin")
    assert first.returncode == 0, first.stderr
    token = first.stdout.strip().splitlines()[-1]
    assert token.startswith("fn_") and len(token) > 40
    second = cli(home, "user", "add", "dana")
    assert second.returncode == 0 and "exists" in second.stdout
    other = second.stdout.strip().splitlines()[-1]
    assert other != token
    if (home / "footnoted.db").exists():
        db_bytes = (home / "footnoted.db").read_bytes()
        assert token.encode() not in db_bytes and other.encode() not in db_bytes
    with raw_database(home) as db:
        stored = repr(db.rows("SELECT * FROM tokens"))
    assert token not in stored and other not in stored
    settings = Settings(home=home, **database_settings(home))
    with Footnoted(settings) as fn, TestClient(create_app(service=fn)) as client:
        for t in (token, other):
            r = client.get("/api/admin/refusals", headers=bearer(t))
            assert r.status_code == 200
    assert "dana" in cli(home, "user", "list").stdout


def test_refusals_command_lists_what_the_knowledge_base_lacks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Footnoted(Settings(home=home, **database_settings(home))) as fn:
        fn.ingest_bytes(b"# Plants\n\nWater the ferns every Monday.\n", "plants.md")
    assert (
        json.loads(cli(home, "ask", "Who won the 1998 World Cup?", "--json").stdout)["type"]
        == "refusal"
    )
    listed = cli(home, "refusals", "--json")
    rows = json.loads(listed.stdout)
    assert rows[0]["question"] == "Who won the 1998 World Cup?"
    assert rows[0]["collection"] == "default" and rows[0]["threshold"] == 0.35
    assert "1998 World Cup" in cli(home, "refusals").stdout


def test_serve_help(tmp_path: Path) -> None:
    result = cli(tmp_path / "home", "serve", "--help")
    assert result.returncode == 0
    for option in ("--host", "--port", "--workers"):
        assert option in result.stdout
