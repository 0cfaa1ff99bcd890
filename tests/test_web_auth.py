"""The web UI's session cookie, its CSRF guard and the security headers (no browser needed)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from apihelpers import Api, api, bearer, mid
from footnoted.api.auth import SESSION_COOKIE, SESSION_MAX_AGE_S, SESSION_PREFIX, hash_token

CSRF = {"X-Requested-With": "footnoted"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[Api]:
    with api(tmp_path_factory.mktemp("webauth") / "home") as a:
        yield a


def token(who: dict[str, str]) -> str:
    return who["Authorization"].split(" ", 1)[1]


def test_start_page_and_assets_carry_a_strict_policy(app: Api) -> None:
    for path in ("/", "/ui/app.js", "/ui/styles.css", "/api/health"):
        r = app.client.get(path)
        assert r.status_code == 200, path
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "object-src 'none'" in csp and "base-uri 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
    assert "<script" not in app.client.get("/").text.split('src="/ui/app.js"')[1]  # no inline
    docs = app.client.get("/docs").headers["content-security-policy"]  # its own policy:
    assert "script-src 'self' 'sha256-" in docs and "http" not in docs  # its inline script


def test_sign_in_sets_an_httponly_strict_cookie_and_sign_out_clears_it(app: Api) -> None:
    c = app.client
    assert c.post("/api/auth/session", json={"token": token(app.alice)}).status_code == 403
    assert c.post("/api/auth/session", json={"token": "fn_bad"}, headers=CSRF).status_code == 401
    r = c.post("/api/auth/session", json={"token": token(app.alice)}, headers=CSRF)
    assert r.status_code == 200 and r.json() == {"name": "alice", "is_admin": False}
    cookie = r.headers["set-cookie"].lower()
    assert cookie.startswith(SESSION_COOKIE) and "httponly" in cookie
    assert "samesite=strict" in cookie and "secure" not in cookie  # plain http here
    assert c.get("/api/auth/me").json()["name"] == "alice"
    assert c.get("/api/sessions").status_code == 200
    assert c.delete("/api/auth/session").status_code == 204
    assert c.get("/api/auth/me").status_code == 401


def test_sign_out_revokes_the_session_token_but_not_the_api_token(app: Api) -> None:
    c = app.client
    c.cookies.clear()
    c.post("/api/auth/session", json={"token": token(app.alice)}, headers=CSRF)
    session = c.cookies[SESSION_COOKIE]
    assert session != token(app.alice)  # the cookie carries a session token of its own
    assert c.get("/api/auth/me").status_code == 200
    assert c.delete("/api/auth/session").status_code == 204
    c.cookies.set(SESSION_COOKIE, session)  # replaying the old cookie
    assert c.get("/api/auth/me").status_code == 401
    c.cookies.clear()
    assert c.get("/api/auth/me", headers=bearer(session)).status_code == 401
    assert c.get("/api/auth/me", headers=app.alice).json()["name"] == "alice"
    c.cookies.clear()


def test_a_session_expires_and_its_expiry_cannot_be_edited(app: Api) -> None:
    c = app.client
    c.cookies.clear()
    c.post("/api/auth/session", json={"token": token(app.alice)}, headers=CSRF)
    session = c.cookies[SESSION_COOKIE]
    expires, _, secret = session.removeprefix(SESSION_PREFIX).partition("_")
    assert int(expires) - time.time() > SESSION_MAX_AGE_S - 60
    later = f"{SESSION_PREFIX}{int(expires) + 3600}_{secret}"
    c.cookies.clear()
    c.cookies.set(SESSION_COOKIE, later)
    assert c.get("/api/auth/me").json()["error"]["code"] == "invalid_token"
    alice = app.service.store.find_user("alice")
    assert alice is not None
    past = f"{SESSION_PREFIX}{int(time.time()) - 1}_{secret}"
    app.service.store.add_token(alice.id, hash_token(past))
    c.cookies.clear()
    c.cookies.set(SESSION_COOKIE, past)
    r = c.get("/api/auth/me")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"
    assert app.service.store.authenticate(hash_token(past)) is None  # and it is gone
    c.cookies.clear()


def test_cookie_writes_need_the_csrf_header(app: Api) -> None:
    c = app.client
    c.post("/api/auth/session", json={"token": token(app.admin)}, headers=CSRF)
    try:
        body = {"message": "How are annual plans refunded?", "message_id": mid()}
        r = c.post("/api/chat", json=body)
        assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_failed"
        assert c.post("/api/chat", json=body, headers=CSRF).json()["type"] == "answer"
        r = c.put("/api/collections/default/settings", json={"top_k": 5})
        assert r.status_code == 403
        assert c.put(
            "/api/collections/default/settings", json={"top_k": 5}, headers=CSRF
        ).is_success
        assert c.get("/api/admin/refusals").status_code == 200  # reads need no header
        # a bearer token still works without the header (no ambient credential involved)
        assert c.post("/api/chat", json={**body, "message_id": mid()}, headers=app.bob).is_success
    finally:
        c.delete("/api/auth/session")
    c.cookies.clear()


def test_secure_cookie_over_https(app: Api) -> None:
    r = app.client.post(
        "https://testserver/api/auth/session", json={"token": token(app.bob)}, headers=CSRF
    )
    assert "secure" in r.headers["set-cookie"].lower()
    app.client.cookies.clear()
