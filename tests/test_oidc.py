"""Sign-in through a real OpenID Certified provider: oidc-provider, run with node
(``scripts/setup-oidc``), its own login and consent pages, driven in Chromium.

Signing in, asking and signing out; an admin group that makes admins; a user removed at
the provider signed out at the next refresh and unable to sign in again; a replayed
callback refused; and ID tokens the provider really issued, refused when their audience
is another application's, when they are tampered with and when they have expired."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from apihelpers import Server, bearer, cli, free_port, start_server
from conftest import ROOT, SAMPLES
from footnoted import Footnoted, Settings
from footnoted.service.oidc import Provider, SignInFailed
from webhelpers import CHROMIUM, CHROMIUM_ARGS, ask, last_answer, require_browser, screenshot

pytestmark = pytest.mark.slow
PROVIDER = ROOT / "tests" / "oidc"
QUESTION = "How are annual plans refunded?"
ACCOUNTS = {
    "alice": {"email": "alice@example.com", "name": "Alice Archer", "groups": ["staff"]},
    "bob": {"email": "bob@example.com", "name": "Bob Bell", "groups": ["footnoted-admins"]},
    "carol": {"email": "carol@example.com", "name": "Carol Cho", "groups": ["staff"]},
    "dave": {"email": "dave@example.com", "name": "Dave Dunn", "groups": []},
}


@dataclass
class IdP:
    url: str
    accounts: Path
    catch: str  # a redirect URI nobody serves: the tests' own flows end there

    def set(self, login: str, **fields: Any) -> None:
        data = json.loads(self.accounts.read_text())
        data[login] = {**data[login], **fields}
        self.accounts.write_text(json.dumps(data))


@dataclass
class Site:
    idp: IdP
    server: Server
    admin: str  # an API token: tokens keep working beside the provider
    browser: Any

    def page(self) -> Any:
        context = self.browser.new_context(base_url=self.server.url)
        context.idp = self.idp.url
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto("/")
        return page


def require_provider() -> None:
    if shutil.which("node") is None or not (PROVIDER / "node_modules" / "oidc-provider").is_dir():
        pytest.skip("the OpenID Connect provider is not installed: run scripts/setup-oidc")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    sync_api = require_browser()
    require_provider()
    root = tmp_path_factory.mktemp("oidc")
    accounts = root / "accounts.json"
    accounts.write_text(json.dumps(ACCOUNTS))
    ours, theirs = free_port(), free_port()
    catch = f"http://127.0.0.1:{free_port()}/cb"
    env = {"PORT": str(theirs), "ACCOUNTS": str(accounts), "PATH": "/usr/bin:/bin",
           "REDIRECT_URIS": f"http://127.0.0.1:{ours}/api/auth/oidc/callback,{catch}"}  # fmt: skip
    log = root / "provider.log"
    with log.open("w") as errors:
        provider = subprocess.Popen(["node", str(PROVIDER / "provider.mjs")], env=env,
                                    stdout=subprocess.PIPE, stderr=errors, text=True)  # fmt: skip
    assert provider.stdout is not None and provider.stdout.readline().strip() == "listening"
    idp = IdP(f"http://127.0.0.1:{theirs}", accounts, catch)
    home = root / "home"
    with Footnoted(Settings(home=home)) as fn:
        assert not fn.ingest([SAMPLES]).failed
    admin = cli(home, "user", "add", "root", "--admin").stdout.strip().splitlines()[-1]
    server = start_server(
        home, port=ours, FOOTNOTED_OIDC_ISSUER=idp.url, FOOTNOTED_OIDC_NAME="Example SSO",
        FOOTNOTED_OIDC_ADMIN_GROUP="footnoted-admins", FOOTNOTED_OIDC_REFRESH_S="1",
        FOOTNOTED_OIDC_SCOPES="openid email profile groups offline_access",
        FOOTNOTED_RATE_LIMIT="0",
    )  # fmt: skip
    pw = sync_api.sync_playwright().start()
    try:
        yield Site(idp, server, admin, pw.chromium.launch(executable_path=CHROMIUM,
                                                          args=CHROMIUM_ARGS))  # fmt: skip
    finally:
        pw.stop()
        server.stop()
        provider.terminate()
        provider.communicate(timeout=10)


def at_provider(page: Any, login: str, idp: str) -> None:
    """The provider's own pages: its login form (unless the browser is signed in there
    already), then its consent; done once the browser has left the provider."""
    deadline = time.monotonic() + 30
    while page.url.startswith(idp):
        assert time.monotonic() < deadline, page.url
        if page.locator("input[name=login]").count():
            page.fill("input[name=login]", login)
            page.fill("input[name=password]", "any password")
            page.click("button[type=submit]")
        elif page.locator("button:has-text('Continue')").count():
            page.click("button:has-text('Continue')")
        page.wait_for_timeout(100)


def sign_in(page: Any, login: str) -> list[str]:
    """Sign in with the provider; the callback URLs the browser was sent to."""
    callbacks: list[str] = []
    page.on("request", lambda r: callbacks.append(r.url) if "/oidc/callback" in r.url else None)
    page.click("#signin-oidc")
    page.wait_for_function("idp => location.href.startsWith(idp)", arg=page.context.idp)
    at_provider(page, login, page.context.idp)
    page.wait_for_selector("#question:visible")
    return callbacks


def test_sign_in_with_the_provider_ask_and_sign_out(site: Site) -> None:
    page = site.page()
    button = page.locator("#signin-oidc")
    button.wait_for()
    assert button.inner_text() == "Sign in with Example SSO"
    assert page.locator("#token").is_visible()  # tokens still sign in too
    screenshot(page, "40-sign-in-with-a-provider")
    sign_in(page, "alice")
    assert page.locator("#user-name").inner_text() == "alice@example.com"
    assert page.locator("#open-admin").is_hidden()  # not in the admin group
    ask(page, QUESTION)
    assert last_answer(page).locator(".badge").count() >= 1
    time.sleep(1.5)  # past FOOTNOTED_OIDC_REFRESH_S: the provider vouches for alice again
    page.reload()
    page.wait_for_selector("#question:visible")
    with httpx.Client(base_url=site.server.url, headers=bearer(site.admin)) as api:
        users = {u["name"]: u for u in api.get("/api/admin/users").json()}
        assert users["alice@example.com"]["email"] == "alice@example.com"
        assert not users["alice@example.com"]["is_admin"]
        audit = api.get("/api/admin/audit").json()
        created = [e for e in audit if e["action"] == "user_created"
                   and e["user_name"] == "alice@example.com"]  # fmt: skip
        assert created and created[0]["actor"] == "oidc sign-in"
    cookie = next(c for c in page.context.cookies() if c["name"] == "footnoted_session")
    page.click("#sign-out")
    page.wait_for_selector("#signin:visible")
    gone = httpx.get(site.server.url + "/api/auth/me", cookies={cookie["name"]: cookie["value"]})
    assert gone.status_code == 401
    sign_in(page, "alice")  # again: the same user, matched by the provider's subject
    with httpx.Client(base_url=site.server.url, headers=bearer(site.admin)) as api:
        names = [u["name"] for u in api.get("/api/admin/users").json()]
    assert names.count("alice@example.com") == 1
    assert not page.errors
    page.context.close()


def test_the_admin_group_makes_an_admin_and_leaving_it_unmakes_one(site: Site) -> None:
    page = site.page()
    sign_in(page, "bob")
    page.wait_for_selector("#open-admin:visible")
    page.context.close()
    site.idp.set("bob", groups=["staff"])
    page = site.page()
    sign_in(page, "bob")
    page.wait_for_timeout(300)
    assert page.locator("#open-admin").is_hidden()
    page.context.close()


def test_a_replayed_callback_is_refused(site: Site) -> None:
    page = site.page()
    callbacks = sign_in(page, "dave")
    page.context.close()
    assert callbacks and "code=" in callbacks[0]
    for attempt in range(2):  # another browser, then again: the state is used up either way
        page = site.page()
        page.goto(callbacks[0])
        page.wait_for_selector("#signin:visible")
        assert "already used" in page.locator("#signin-error").inner_text(), attempt
        assert page.locator("#app").is_hidden()
        assert "signin_error" not in page.url  # the address is tidied
        page.context.close()


def test_a_user_removed_at_the_provider_is_signed_out_and_cannot_sign_in(site: Site) -> None:
    page = site.page()
    sign_in(page, "carol")
    site.idp.set("carol", disabled=True)
    time.sleep(1.5)  # past FOOTNOTED_OIDC_REFRESH_S: the next request asks the provider
    page.reload()
    page.wait_for_selector("#signin:visible")
    assert page.locator("#app").is_hidden()
    page.click("#signin-oidc")  # and the provider does not sign carol in again
    page.wait_for_function("idp => location.href.startsWith(idp)", arg=site.idp.url)
    for _ in range(3):
        page.wait_for_timeout(500)
        if page.locator("input[name=login]").count():
            page.fill("input[name=login]", "carol")
            page.fill("input[name=password]", "any password")
            page.click("button[type=submit]")
    screenshot(page, "41-removed-user-refused-by-the-provider")
    assert page.url.startswith(site.idp.url)  # refused there: never back with a code
    assert page.request.get(site.server.url + "/api/auth/me").status == 401
    page.context.close()


def provider_tokens(site: Site, client_id: str, nonce: str) -> dict[str, Any]:
    """The provider's tokens for ``client_id``, by the authorization code flow with PKCE
    driven in Chromium (its login and consent) and the code exchanged here."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": site.idp.catch,
             "scope": "openid email", "state": "s", "nonce": nonce,
             "code_challenge": challenge.rstrip(b"=").decode(),
             "code_challenge_method": "S256"}  # fmt: skip
    context = site.browser.new_context()
    landed: list[str] = []
    context.route(site.idp.catch + "**", lambda route: (landed.append(route.request.url),
                                                        route.fulfill(body="ok")))  # fmt: skip
    page = context.new_page()
    page.goto(f"{site.idp.url}/auth?{urlencode(query)}")
    at_provider(page, "alice", site.idp.url)
    page.wait_for_url(site.idp.catch + "**")
    context.close()
    code = parse_qs(urlsplit(landed[-1]).query)["code"][0]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": site.idp.catch,
            "client_id": client_id, "code_verifier": verifier}  # fmt: skip
    r = httpx.post(site.idp.url + "/token", data=form, timeout=10)
    assert r.status_code == 200, r.text
    tokens: dict[str, Any] = r.json()
    return tokens


def checker(site: Site, client_id: str) -> Provider:
    return Provider(Settings(oidc_issuer=site.idp.url, oidc_client_id=client_id,
                             oidc_leeway_s=0))  # fmt: skip


def test_tokens_for_another_audience_tampered_or_expired_are_refused(site: Site) -> None:
    ours = provider_tokens(site, "footnoted", "n-1")["id_token"]
    claims = checker(site, "footnoted").verify(ours, "n-1")
    assert claims["sub"] == "alice" and claims["aud"] == "footnoted"
    with pytest.raises(SignInFailed, match="nonce"):
        checker(site, "footnoted").verify(ours, "another nonce")
    theirs = provider_tokens(site, "other", "n-2")["id_token"]
    with pytest.raises(SignInFailed, match="aud"):
        checker(site, "footnoted").verify(theirs, "n-2")
    head, body, signature = ours.split(".")
    claimed = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    forged = base64.urlsafe_b64encode(json.dumps({**claimed, "sub": "bob"}).encode())
    tampered = f"{head}.{forged.rstrip(b'=').decode()}.{signature}"
    with pytest.raises(SignInFailed):
        checker(site, "footnoted").verify(tampered, "n-1")
    short = provider_tokens(site, "short", "n-3")["id_token"]  # lives a second
    time.sleep(2.1)
    with pytest.raises(SignInFailed, match="exp"):
        checker(site, "short").verify(short, "n-3")


def test_without_a_provider_tokens_are_the_way_in(site: Site, tmp_path: Path) -> None:
    plain = start_server(site.server.home, FOOTNOTED_RATE_LIMIT="0")
    try:
        ways = httpx.get(plain.url + "/api/auth/providers").json()
        assert ways == {"token": True, "oidc": None}
        assert httpx.get(plain.url + "/api/auth/oidc/login").status_code == 404
    finally:
        plain.stop()
    me = httpx.get(site.server.url + "/api/auth/me", headers=bearer(site.admin))
    assert me.status_code == 200 and me.json()["name"] == "root"  # tokens beside the provider
