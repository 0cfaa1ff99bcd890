"""The chat rate limit counts only requests that generate: replays of a stored answer,
409 duplicates and 422 reused ids are answered without using up the minute's requests.
A claim on a message id lasts while the process answering it runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from apihelpers import Api, api, bearer, mid
from footnoted.api.chat import claim_is_stale
from footnoted.service.accounts import issue_token

Q = "How long do refunds take?"
CSRF = {"X-Requested-With": "footnoted"}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Api]:
    with api(tmp_path / "home", ingest=False, rate_limit=2) as a:
        yield a


def post(app: Api, message_id: str, message: str = Q) -> int:
    r = app.client.post("/api/chat", json={"message": message, "message_id": message_id},
                        headers=app.alice)  # fmt: skip
    return r.status_code


def test_replays_and_duplicates_do_not_count(app: Api) -> None:
    alice = app.service.store.find_user("alice")
    assert alice is not None
    # another worker (pid 1, alive) is answering this id right now: every retry is a 409
    app.service.store.claim_chat(alice.id, "busy", Q, None, Q, "1:elsewhere", claim_is_stale)
    assert post(app, "first") == 200  # 1 of 2
    for _ in range(5):
        assert post(app, "first") == 200  # the stored reply again
        assert post(app, "busy") == 409
        assert post(app, "first", "Another question?") == 422
    assert post(app, "second") == 200  # 2 of 2
    r = app.client.post("/api/chat", json={"message": Q, "message_id": "third"},
                        headers=app.alice)  # fmt: skip
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert post(app, "third") == 429  # the refused claim was given back: not a 409
    assert post(app, "first") == 200  # replays still answer while limited
    bob = app.client.post("/api/chat", json={"message": Q, "message_id": "third"},
                          headers=app.bob)  # fmt: skip
    assert bob.status_code == 200  # per user


def test_a_script_on_a_token_does_not_lock_its_owner_out_of_the_web_ui(app: Api) -> None:
    """The web UI and each API token count in their own bucket of the same size."""
    alice = app.service.store.find_user("alice")
    assert alice is not None
    script = bearer(issue_token(app.service.store, alice))
    for n in range(2):
        assert app.chat(Q, script).status_code == 200, n
    assert app.chat(Q, script).status_code == 429  # the script's bucket is full
    assert app.chat(Q, app.alice).status_code == 200  # alice's other token still asks
    web = TestClient(app.client.app)  # the web UI: a session cookie opened with a token
    signed_in = web.post("/api/auth/session", json={"token": app.alice["Authorization"][7:]},
                         headers=CSRF)  # fmt: skip
    assert signed_in.status_code == 200
    for n in range(2):
        r = web.post("/api/chat", json={"message": Q, "message_id": mid()}, headers=CSRF)
        assert r.status_code == 200, n
    r = web.post("/api/chat", json={"message": Q, "message_id": mid()}, headers=CSRF)
    assert r.status_code == 429 and "2 chat requests" in r.json()["error"]["message"]


def test_a_killed_workers_zombie_holds_no_claim() -> None:
    """Where nothing reaps orphans (a container whose first process is no init), a worker
    killed with its supervisor stays a zombie: the message it was answering is free again
    all the same, not "being answered" for minutes."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    owner = f"{child.pid}:another-boot"
    try:
        assert not claim_is_stale(owner, time.time())  # it runs: its claim holds
        child.send_signal(signal.SIGKILL)
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
        assert Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
        assert claim_is_stale(owner, time.time())
    finally:
        child.kill()
        child.wait()
    assert claim_is_stale(owner, time.time())  # reaped: gone altogether
