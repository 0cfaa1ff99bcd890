"""A token's life over real HTTP: a real ``footnoted serve`` process, changed by the admin
API and by ``footnoted user …`` commands in other processes, on SQLite and PostgreSQL.

Every change holds from the very next request: a revoked or rotated-away token gets 401,
the new one works, a demoted admin gets 403 on admin routes, a deleted user's tokens and
web sessions stop; the audit log lists every change with who made it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from apihelpers import Server, bearer, cli, start_server
from conftest import SAMPLES

pytestmark = pytest.mark.slow


def token_of(result: Any) -> str:
    assert result.returncode == 0, result.stderr
    token: str = result.stdout.strip().splitlines()[-1]
    assert token.startswith("fn_")
    return token


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("accounts") / "home"
    server = start_server(home, warm=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def status(http: httpx.Client, token: str, path: str = "/api/auth/me") -> int:
    return http.get(path, headers=bearer(token)).status_code


def user_id(http: httpx.Client, root: str, name: str) -> str:
    users = http.get("/api/admin/users", headers=bearer(root)).json()
    return str(next(u["id"] for u in users if u["name"] == name))


def test_token_life_cycle(server: Server, http: httpx.Client) -> None:
    root = bearer(token_of(cli(server.home, "user", "add", "root", "--admin")))
    made = http.post("/api/admin/users", json={"name": "alice"}, headers=root)
    assert made.status_code == 201, made.text
    alice, first = made.json()["user"], made.json()["token"]
    assert not alice["is_admin"] and [t["id"] for t in alice["tokens"]] == [first["id"]]
    assert status(http, first["token"]) == 200
    tokens = http.get(f"/api/admin/users/{alice['id']}/tokens", headers=root).json()
    assert tokens[0]["last_used_at"] is not None and "token" not in tokens[0]

    # rotate: the old token is refused from the next request on, the new one works
    r = http.post(f"/api/admin/users/{alice['id']}/tokens/{first['id']}/rotate", headers=root)
    assert r.status_code == 201
    second = r.json()
    assert status(http, first["token"]) == 401 and status(http, second["token"]) == 200

    # revoke through the API: 401 at once
    third = http.post(f"/api/admin/users/{alice['id']}/tokens", headers=root).json()
    assert status(http, third["token"]) == 200
    gone = http.delete(f"/api/admin/users/{alice['id']}/tokens/{third['id']}", headers=root)
    assert gone.status_code == 204 and status(http, third["token"]) == 401
    again = http.delete(f"/api/admin/users/{alice['id']}/tokens/{third['id']}", headers=root)
    assert again.status_code == 404 and again.json()["error"]["code"] == "token_not_found"

    # revoke from the command line, another process: the server refuses it at once
    revoked = cli(server.home, "user", "revoke", "alice", second["id"])
    assert revoked.returncode == 0, revoked.stderr
    assert status(http, second["token"]) == 401


def test_promote_and_demote_take_effect_at_once(server: Server, http: httpx.Client) -> None:
    root = bearer(token_of(cli(server.home, "user", "add", "root2", "--admin")))
    bob = token_of(cli(server.home, "user", "add", "bob"))
    assert status(http, bob, "/api/admin/users") == 403
    bob_id = user_id(http, root["Authorization"][7:], "bob")
    r = http.patch(f"/api/admin/users/{bob_id}", json={"is_admin": True}, headers=root)
    assert r.status_code == 200 and r.json()["is_admin"] is True
    assert status(http, bob, "/api/admin/users") == 200
    assert token_of(cli(server.home, "user", "add", "probe"))  # a change from the CLI
    demoted = cli(server.home, "user", "demote", "bob")
    assert demoted.returncode == 0, demoted.stderr
    assert status(http, bob, "/api/admin/users") == 403  # admin routes: gone at once
    assert status(http, bob, "/api/sessions") == 200  # still a user


def test_rotating_all_tokens_from_the_cli(server: Server, http: httpx.Client) -> None:
    old = token_of(cli(server.home, "user", "add", "carol"))
    other = token_of(cli(server.home, "user", "add", "carol"))  # a second token
    new = token_of(cli(server.home, "user", "rotate", "carol"))
    assert status(http, old) == 401 and status(http, other) == 401 and status(http, new) == 200
    listed = json.loads(cli(server.home, "user", "tokens", "carol", "--json").stdout)
    assert [t["kind"] for t in listed] == ["api"]


def test_deleting_a_user_ends_their_tokens_and_web_sessions(
    server: Server, http: httpx.Client
) -> None:
    root = token_of(cli(server.home, "user", "add", "root3", "--admin"))
    dave = http.post("/api/admin/users", json={"name": "dave"}, headers=bearer(root)).json()
    token = dave["token"]["token"]
    with httpx.Client(base_url=server.url, timeout=30) as browser:  # a web sign-in
        signed = browser.post(
            "/api/auth/session", json={"token": token}, headers={"X-Requested-With": "fetch"}
        )
        assert signed.status_code == 200 and browser.get("/api/auth/me").status_code == 200
        kinds = http.get(f"/api/admin/users/{dave['user']['id']}", headers=bearer(root)).json()
        assert sorted(t["kind"] for t in kinds["tokens"]) == ["api", "session"]
        r = http.delete(f"/api/admin/users/{dave['user']['id']}", headers=bearer(root))
        assert r.status_code == 204
        assert browser.get("/api/auth/me").status_code == 401
        # a bad cookie write without the CSRF header: not signed in, so 401 (not 403)
        write = browser.post("/api/chat", json={"message": "Hi?", "message_id": "x" * 32})
        assert write.status_code == 401
    assert status(http, token) == 401
    missing = http.get(f"/api/admin/users/{dave['user']['id']}", headers=bearer(root))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "user_not_found"


def test_the_last_admin_stays_and_the_audit_log_lists_every_change(
    server: Server, http: httpx.Client
) -> None:
    root = token_of(cli(server.home, "user", "add", "solo", "--admin"))
    users = http.get("/api/admin/users", headers=bearer(root)).json()
    owner = next(u for u in users if u["is_owner"])
    assert owner["name"] == "root" and sum(u["is_owner"] for u in users) == 1
    while others := [u for u in http.get("/api/admin/users", headers=bearer(root)).json()
                     if u["is_admin"] and u["name"] != "solo"]:  # fmt: skip
        u = others[0]  # demote every other admin through the API: all but the owner
        r = http.patch(f"/api/admin/users/{u['id']}", json={"is_admin": False},
                       headers=bearer(root))  # fmt: skip
        if u["is_owner"]:  # ownership passes on to the longest-standing admin left
            assert r.status_code == 403 and r.json()["error"]["code"] == "owner_protected"
            gone = http.delete(f"/api/admin/users/{u['id']}", headers=bearer(root))
            assert gone.status_code == 403
            cli(server.home, "user", "demote", u["name"])  # the operator, on the server
        else:
            assert r.status_code == 200
    solo = user_id(http, root, "solo")
    last = http.patch(f"/api/admin/users/{solo}", json={"is_admin": False}, headers=bearer(root))
    assert last.status_code == 409 and last.json()["error"]["code"] == "last_admin"
    assert http.delete(f"/api/admin/users/{solo}", headers=bearer(root)).status_code == 409
    log = http.get("/api/admin/audit", params={"limit": 1000}, headers=bearer(root)).json()
    seen = {(e["action"], e["user_name"], e["via"], e["actor"]) for e in log}
    for entry in [
        ("user_created", "alice", "api", "root"),
        ("token_rotated", "alice", "api", "root"),
        ("token_revoked", "alice", "api", "root"),
        ("token_revoked", "alice", "cli", None),
        ("admin_granted", "bob", "api", "root2"),
        ("admin_revoked", "bob", "cli", None),
        ("user_deleted", "dave", "api", "root3"),
        ("admin_revoked", "root", "cli", None),
    ]:
        assert entry in seen, entry
    cli_log = json.loads(cli(server.home, "user", "audit", "--limit", "1000", "--json").stdout)
    assert [e["id"] for e in cli_log] == [e["id"] for e in log]
    assert status(http, root, "/api/admin/audit") == 200
    bob = next(u for u in users if u["name"] == "bob")
    assert status(http, root, f"/api/admin/audit?user_id={bob['id']}") == 200


def test_revoking_a_token_ends_its_web_sessions_and_links_in_every_worker(
    tmp_path_factory: pytest.TempPathFactory, backend: str
) -> None:
    """A leaked token revoked: the web session opened with it and the public links it
    minted stop from the next request, whichever of two worker processes takes it."""
    home = tmp_path_factory.mktemp("revoke") / "home"
    assert cli(home, "ingest", str(SAMPLES)).returncode == 0
    root = bearer(token_of(cli(home, "user", "add", "root", "--admin")))
    server = start_server(home, workers=2, warm=False)
    try:
        with (
            httpx.Client(base_url=server.url, timeout=30) as http,
            httpx.Client(base_url=server.url, timeout=30) as browser,
        ):
            made = http.post("/api/admin/users", json={"name": "alice"}, headers=root).json()
            alice, token = made["user"], made["token"]
            mode = {"citation_link_mode": "public"}
            assert http.put("/api/collections/default/settings", json=mode,
                            headers=root).status_code == 200  # fmt: skip
            doc = http.get("/api/documents", headers=root).json()[0]["id"]
            theirs = http.get(f"/api/documents/{doc}/link", headers=bearer(token["token"]))
            link, other = theirs.json()["url"], http.get(f"/api/documents/{doc}/link",
                                                         headers=root).json()["url"]  # fmt: skip
            signed_in = browser.post("/api/auth/session", json={"token": token["token"]},
                                     headers={"X-Requested-With": "fetch"})  # fmt: skip
            assert signed_in.status_code == 200
            for _ in range(6):
                assert browser.get("/api/auth/me").status_code == 200
                assert http.get(link).status_code == 200
            revoked = http.delete(f"/api/admin/users/{alice['id']}/tokens/{token['id']}",
                                  headers=root)  # fmt: skip
            assert revoked.status_code == 204
            for _ in range(6):
                assert browser.get("/api/auth/me").status_code == 401
                dead = http.get(link)
                assert dead.status_code == 403 and dead.json()["error"]["code"] == "invalid_link"
                assert http.get(other).status_code == 200  # the admin's own link still works
            log = http.get("/api/admin/audit", params={"limit": 5}, headers=root).json()
            assert log[0]["action"] == "token_revoked" and log[0]["detail"]["sessions_ended"] == 1
    finally:
        server.stop()
