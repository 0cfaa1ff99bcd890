"""The LLM connection set and tested by an admin over HTTP (``/api/admin/llm``), against
the local OpenAI-compatible server misbehaving as real ones do: a key it demands, models
it does not have, a port nobody listens on, a stream that never ends."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from apihelpers import free_port
from fakellm import Script, fake_llm, words
from footnoted import Footnoted, Settings
from footnoted.answering.llm import connection as llm_connection
from livehelpers import Live, live
from pghelpers import database_settings

Q = "How long is data kept after an account is closed?"
KEY = "sk-test-4f9c2e"


@pytest.fixture
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Live]:
    with live(tmp_path_factory.mktemp("llmconn") / "home", rate_limit=0) as a:
        yield a


def connection(app: Live) -> dict[str, Any]:
    r = app.http.get("/api/admin/llm", headers=app.admin)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def probe(app: Live, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """``POST /api/admin/llm/test``: the saved connection, or ``body`` unsaved."""
    r = app.http.post("/api/admin/llm/test", json=body, headers=app.admin)
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()
    return result


def test_the_environments_connection_is_shown_and_answers(app: Live) -> None:
    env = app.service.settings
    shown = connection(app)
    assert shown == {
        "base_url": env.llm_base_url, "model": env.llm_model, "api_key_set": False,
        "saved": False,
    }  # fmt: skip
    app.llm.script = Script(words("OK"))
    result = probe(app)
    assert result["ok"] and result["reply"] == "OK" and result["detail"] is None
    assert result["message"] == f"{env.llm_model} at {env.llm_base_url} answered."
    assert result["latency_ms"] >= 0
    assert app.llm.requests[-1]["model"] == env.llm_model and app.llm.keys[-1] is None


def test_a_key_the_server_demands_is_reported_then_saved_and_used_but_never_shown(
    app: Live,
) -> None:
    app.llm.api_key = KEY
    app.llm.script = Script(words("OK"))
    refused = probe(app)
    assert not refused["ok"] and refused["message"] == "The LLM server answered HTTP 401."
    assert refused["detail"] == "Incorrect API key provided." and refused["reply"] is None
    base = {"base_url": app.llm.url, "model": "llama3.1"}
    tried = probe(app, {**base, "api_key": KEY})  # tested before it is saved
    assert tried["ok"] and not connection(app)["saved"]
    assert app.llm.keys[-1] == f"Bearer {KEY}"
    r = app.http.put("/api/admin/llm", json={**base, "api_key": KEY}, headers=app.admin)
    assert r.status_code == 200 and r.json() == {**base, "api_key_set": True, "saved": True}
    assert KEY not in r.text and KEY not in app.http.get("/api/admin/llm", headers=app.admin).text
    assert probe(app)["ok"]  # the saved connection, key included
    app.llm.script = Script(words("Data is kept for 60 days after an account is closed [1]."))
    events = app.stream(Q)
    assert not [d for e, d in events if e == "notice"], events  # no fallback: the model wrote it
    assert app.llm.keys[-1] == f"Bearer {KEY}"
    kept = app.http.put("/api/admin/llm", json={**base, "model": "llama3.2"}, headers=app.admin)
    assert kept.json()["api_key_set"] and probe(app)["ok"]  # a key left out is kept
    assert app.llm.requests[-1]["model"] == "llama3.2"
    cleared = app.http.put("/api/admin/llm", json={**base, "api_key": None}, headers=app.admin)
    assert not cleared.json()["api_key_set"] and not probe(app)["ok"]
    reset = app.http.delete("/api/admin/llm", headers=app.admin)
    assert reset.status_code == 200 and reset.json()["saved"] is False
    assert reset.json()["base_url"] == app.service.settings.llm_base_url


def test_a_model_the_server_lacks_and_a_port_nobody_listens_on_are_reported(app: Live) -> None:
    app.llm.models = {"llama3.1"}
    missing = probe(app, {"base_url": app.llm.url, "model": "nope"})
    assert not missing["ok"] and missing["message"] == "The LLM server answered HTTP 404."
    assert missing["detail"] == "model 'nope' not found"
    nobody = probe(app, {"base_url": f"http://127.0.0.1:{free_port()}/v1", "model": "x"})
    assert not nobody["ok"] and nobody["message"].startswith("The LLM server could not be reached")
    assert not connection(app)["saved"]  # testing saves nothing


def test_an_endless_stream_is_cut_short_and_still_counts_as_an_answer(app: Live) -> None:
    app.llm.script = Script(["OK "], endless=True)
    result = probe(app)
    assert result["ok"] and result["reply"].startswith("OK OK")
    assert len(result["reply"]) <= 200 and result["latency_ms"] < 15_000


def test_bad_connections_are_refused_and_only_admins_may_see_or_change_it(app: Live) -> None:
    for bad in (
        {"base_url": "ftp://example.com/v1", "model": "m"},
        {"base_url": "not a url", "model": "m"},
        {"base_url": "http://127.0.0.1:11434/v1", "model": ""},
        {"base_url": "http://127.0.0.1:11434/v1", "model": "m", "extra": 1},
    ):
        r = app.http.put("/api/admin/llm", json=bad, headers=app.admin)
        assert r.status_code == 422, bad
        assert r.json()["error"]["code"] == "invalid_input"
        if "url" in bad["base_url"] or "ftp" in bad["base_url"]:
            assert "must be an http:// or https:// URL" in r.json()["error"]["message"]
    good = {"base_url": app.llm.url, "model": "m"}
    for method, path, body in [
        ("GET", "/api/admin/llm", None), ("PUT", "/api/admin/llm", good),
        ("DELETE", "/api/admin/llm", None), ("POST", "/api/admin/llm/test", None),
    ]:  # fmt: skip
        r = app.http.request(method, path, json=body, headers=app.alice)
        assert r.status_code == 403 and r.json()["error"]["code"] == "admin_only"
    assert not connection(app)["saved"]


def test_a_saved_connection_holds_for_every_process_on_the_database(app: Live) -> None:
    r = app.http.put(
        "/api/admin/llm", json={"base_url": app.llm.url + "/", "model": "qwen2.5"},
        headers=app.admin,
    )  # fmt: skip
    assert r.json()["base_url"] == app.llm.url  # the trailing slash goes
    home = app.service.settings.home
    with Footnoted(Settings(home=home, **database_settings(home))) as other:
        seen = llm_connection.current(other.settings, other.store)
        assert (seen.base_url, seen.model, seen.saved) == (app.llm.url, "qwen2.5", True)
        assert other.llm_settings().llm_model == "qwen2.5"


# ---- the connection cannot be turned against the server ------------------------------------


class Listener:
    """A plain HTTP service on a loopback address: what an attacker would like to read
    (``body``, with ``status``) or where a redirect points; it counts its requests."""

    def __init__(self, host: str, status: int = 500, body: bytes = b"db_password=hunter2",
                 headers: dict[str, str] | None = None) -> None:  # fmt: skip
        self.requests: list[str | None] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                listener.requests.append(self.headers.get("Authorization"))
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def internal() -> Iterator[Listener]:
    listener = Listener("127.0.0.2")  # loopback, but not the configured LLM's host
    yield listener
    listener.close()


def test_the_saved_key_goes_only_to_the_url_it_was_saved_with(app: Live) -> None:
    app.llm.api_key = KEY
    base = {"base_url": app.llm.url, "model": "llama3.1"}
    assert app.http.put("/api/admin/llm", json={**base, "api_key": KEY},
                        headers=app.admin).status_code == 200  # fmt: skip
    with fake_llm() as other:  # another URL an admin names, without a key
        elsewhere = {"base_url": other.url, "model": "m"}
        for method, path in [("POST", "/api/admin/llm/test"), ("PUT", "/api/admin/llm")]:
            r = app.http.request(method, path, json=elsewhere, headers=app.admin)
            assert r.status_code == 422 and r.json()["error"]["code"] == "api_key_required"
            assert "only to the URL it was saved with" in r.json()["error"]["message"]
        assert other.keys == []  # the key went nowhere
        given = probe(app, {**elsewhere, "api_key": "sk-theirs"})  # its own key: fine
        assert given["ok"] and other.keys == ["Bearer sk-theirs"]
        assert probe(app, {**elsewhere, "api_key": None})["ok"] and other.keys[-1] is None
    assert probe(app, {**base, "model": "llama3.2"})["ok"]  # the same URL keeps its key
    assert app.llm.keys[-1] == f"Bearer {KEY}"


def test_the_environments_key_goes_only_to_the_environments_url(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    home = tmp_path_factory.mktemp("envkey") / "home"
    with live(home, rate_limit=0, llm_api_key="sk-env-7") as env_app, fake_llm() as other:
        assert probe(env_app)["ok"] and env_app.llm.keys[-1] == "Bearer sk-env-7"
        r = env_app.http.post("/api/admin/llm/test", json={"base_url": other.url, "model": "m"},
                              headers=env_app.admin)  # fmt: skip
        assert r.status_code == 422 and r.json()["error"]["code"] == "api_key_required"
        assert other.keys == []


def test_loopback_link_local_and_private_addresses_are_refused(
    app: Live, internal: Listener
) -> None:
    for url in (internal.url, "http://169.254.169.254/latest", "http://10.0.0.1:8080/v1",
                "http://[::1]:5432/v1", "http://0.0.0.0:5432/v1"):  # fmt: skip
        result = probe(app, {"base_url": url, "model": "m"})
        assert not result["ok"] and "FOOTNOTED_OUTBOUND_ALLOW" in result["message"], url
        assert result["detail"] is None and result["reply"] is None
        r = app.http.put("/api/admin/llm", json={"base_url": url, "model": "m"},
                         headers=app.admin)  # fmt: skip
        assert r.status_code == 422 and r.json()["error"]["code"] == "outbound_blocked", url
    assert internal.requests == []  # nothing was sent there
    assert not connection(app)["saved"]


def test_credentials_in_a_url_are_refused(app: Live) -> None:
    for path in ("/api/admin/llm", "/api/admin/llm/test"):
        r = app.http.request(
            "PUT" if path.endswith("llm") else "POST", path,
            json={"base_url": "http://user:secret@127.0.0.1:11434/v1", "model": "m"},
            headers=app.admin,
        )  # fmt: skip
        assert r.status_code == 422, r.text
        assert "must not hold a user name or password" in r.json()["error"]["message"]
        assert "secret" not in r.text


def test_an_allowed_service_shows_a_status_and_an_error_line_never_a_body(
    tmp_path_factory: pytest.TempPathFactory, internal: Listener
) -> None:
    home = tmp_path_factory.mktemp("allowed") / "home"
    error = json.dumps({"error": {"message": "bad model\nstack: db_password=hunter2"}}).encode()
    shaped = Listener("127.0.0.2", 400, error)
    moved = Listener("127.0.0.2", 302, b"", {"Location": shaped.url + "/chat/completions"})
    try:
        with live(home, rate_limit=0, outbound_allow="127.0.0.2") as allowed:
            raw = probe(allowed, {"base_url": internal.url, "model": "m"})
            assert raw["message"] == "The LLM server answered HTTP 500." and raw["detail"] is None
            assert len(internal.requests) == 1 and "hunter2" not in json.dumps(raw)
            said = probe(allowed, {"base_url": shaped.url, "model": "m"})
            assert said["detail"] == "bad model" and "hunter2" not in json.dumps(said)
            before = len(shaped.requests)
            redirected = probe(allowed, {"base_url": moved.url, "model": "m"})
            assert "redirect" in redirected["message"] and not redirected["ok"]
            assert len(shaped.requests) == before  # not followed
    finally:
        shaped.close()
        moved.close()


def test_every_admin_change_is_in_the_audit_log(app: Live) -> None:
    """Where every question and excerpt is sent, what a collection does, which documents
    answer: each change an admin makes is logged with who made it, and to what."""
    base = {"base_url": app.llm.url, "model": "llama3.1"}
    assert app.http.put("/api/admin/llm", json=base, headers=app.admin).status_code == 200
    assert probe(app)["ok"]
    assert app.http.delete("/api/admin/llm", headers=app.admin).status_code == 200
    examples = {"example_questions": ["How are annual plans refunded?"], "top_k": 4}
    r = app.http.put("/api/collections/default/settings", json=examples, headers=app.admin)
    assert r.status_code == 200
    doc = app.http.get("/api/documents", headers=app.admin).json()[0]
    for body in ({"enabled": False}, {"enabled": True}):
        assert app.http.patch(f"/api/documents/{doc['id']}", json=body,
                              headers=app.admin).status_code == 200  # fmt: skip
    assert app.http.delete(f"/api/documents/{doc['id']}", headers=app.admin).status_code == 204
    log = app.http.get("/api/admin/audit", params={"limit": 7}, headers=app.admin).json()
    seen = [(e["action"], e["target"], e["actor"]) for e in reversed(log)]
    target = f"document:{doc['id']}"
    assert seen == [
        ("llm_connection_saved", "llm_connection", "admin"),
        ("llm_connection_tested", "llm_connection", "admin"),
        ("llm_connection_reset", "llm_connection", "admin"),
        ("collection_settings_changed", "collection:default", "admin"),
        ("document_disabled", target, "admin"),
        ("document_enabled", target, "admin"),
        ("document_deleted", target, "admin"),
    ]
    assert log[3]["detail"] == examples and log[0]["detail"]["title"] == doc["title"]
    assert log[-1]["detail"] == {**base, "api_key_set": False} and log[-1]["user_id"] is None
