"""The web UI's session cookie, its CSRF guard and the security headers (no browser needed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from apihelpers import Api, api, mid
from footnoted.api.auth import SESSION_COOKIE

CSRF = {"X-Requested-With": "footnoted"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
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
    assert "content-security-policy" not in app.client.get("/docs").headers  # Swagger's CDN


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
