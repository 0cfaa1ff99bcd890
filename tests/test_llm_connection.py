"""The LLM connection set and tested by an admin over HTTP (``/api/admin/llm``), against
the local OpenAI-compatible server misbehaving as real ones do: a key it demands, models
it does not have, a port nobody listens on, a stream that never ends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from apihelpers import free_port
from fakellm import Script, words
from footnoted import Footnoted, Settings, llm_connection
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
