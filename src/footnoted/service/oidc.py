"""Sign-in through an OpenID Connect provider: the authorization code flow with PKCE.

The provider is found from its issuer URL (``/.well-known/openid-configuration``, whose
``issuer`` must be that URL). The browser is sent there with a fresh ``state`` (taken
once when it comes back, so a replayed callback is refused), a ``nonce`` and a PKCE
challenge; the code it brings back is exchanged for tokens; the ID token's signature
(against the provider's published keys, fetched again once for a key not seen),
issuer, audience, expiry, issue time and nonce are checked by joserfc. The user is the
provider's subject (``SignInStore.provider_user``). A web session opened this way is
vouched for again every ``FOOTNOTED_OIDC_REFRESH_S`` with its refresh token: a user
removed or disabled at the provider is signed out then. Every request to the provider
goes through the outbound policy (its host is the operator's, so it is allowed).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from ..errors import FootnotedError
from ..outbound import Outbound
from ..records import Actor, PendingSignIn, User
from ..settings import Settings
from ..stores.base import Store

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
DISCOVERY_TTL_S = 3600.0
SIGN_IN_ACTOR = Actor("api", "oidc sign-in")


class SignInFailed(FootnotedError):
    """The provider's answer cannot sign anyone in (what was wrong is the message)."""

    status = 400
    code = "sign_in_failed"


class ProviderUnreachable(FootnotedError):
    status = 502
    code = "provider_unreachable"


@dataclass(frozen=True, slots=True)
class Endpoints:
    authorization: str
    token: str
    jwks: str
    userinfo: str | None


@dataclass(frozen=True, slots=True)
class Tokens:
    id_token: str | None
    refresh_token: str | None
    access_token: str | None = None


@dataclass(frozen=True, slots=True)
class SignedIn:
    user: User
    refresh_token: str | None
    next: str


def now() -> float:
    return time.time()


def pkce_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class Provider:
    """The operator's identity provider (``FOOTNOTED_OIDC_ISSUER``), its discovery
    document and keys cached for the process."""

    def __init__(self, settings: Settings) -> None:
        if not settings.oidc_issuer:
            raise ValueError("no FOOTNOTED_OIDC_ISSUER")
        self.settings = settings
        self.issuer: str = settings.oidc_issuer
        self._lock = threading.Lock()
        self._endpoints: tuple[Endpoints, float] | None = None
        self._keys: KeySet | None = None
        self._transport = Outbound.of(settings).transport()

    # -- talking to the provider --------------------------------------------------------
    def _client(self) -> httpx.Client:
        return httpx.Client(transport=self._transport, timeout=10.0, follow_redirects=False)

    def _get_json(self, url: str) -> dict[str, Any]:
        try:
            with self._client() as client:
                r = client.get(url, headers={"Accept": "application/json"})
        except httpx.HTTPError as exc:
            raise ProviderUnreachable(f"The identity provider did not answer ({exc}).") from exc
        if r.status_code != 200:
            raise ProviderUnreachable(f"The identity provider answered {r.status_code} at {url}.")
        data: dict[str, Any] = r.json()
        return data

    def endpoints(self) -> Endpoints:
        with self._lock:
            cached = self._endpoints
        if cached is not None and time.monotonic() - cached[1] < DISCOVERY_TTL_S:
            return cached[0]
        found = self._get_json(f"{self.issuer}/.well-known/openid-configuration")
        if str(found.get("issuer", "")).rstrip("/") != self.issuer:
            raise SignInFailed(
                f"The provider at {self.issuer} calls itself {found.get('issuer')!r}: "
                "FOOTNOTED_OIDC_ISSUER must be its issuer exactly."
            )
        endpoints = Endpoints(
            found["authorization_endpoint"], found["token_endpoint"], found["jwks_uri"],
            found.get("userinfo_endpoint"),
        )  # fmt: skip
        with self._lock:
            self._endpoints = (endpoints, time.monotonic())
        return endpoints

    def _key_set(self, fresh: bool) -> KeySet:
        with self._lock:
            keys = self._keys
        if keys is None or fresh:
            keys = KeySet.import_key_set(self._get_json(self.endpoints().jwks))  # type: ignore[arg-type]
            with self._lock:
                self._keys = keys
        return keys

    def _token_request(self, form: dict[str, str]) -> httpx.Response:
        form = {**form, "client_id": self.settings.oidc_client_id}
        secret = self.settings.oidc_client_secret
        try:
            with self._client() as client:
                if secret:  # a confidential client: client_secret_basic
                    auth = httpx.BasicAuth(self.settings.oidc_client_id, secret)
                    return client.post(self.endpoints().token, data=form, auth=auth)
                return client.post(self.endpoints().token, data=form)
        except httpx.HTTPError as exc:
            raise ProviderUnreachable(f"The identity provider did not answer ({exc}).") from exc

    # -- the flow ----------------------------------------------------------------------------
    def authorization_url(self, redirect_uri: str, state: str, nonce: str, verifier: str) -> str:
        query = {
            "response_type": "code",
            "client_id": self.settings.oidc_client_id,
            "redirect_uri": redirect_uri,
            "scope": self.settings.oidc_scopes,
            "state": state,
            "nonce": nonce,
            "code_challenge": pkce_challenge(verifier),
            "code_challenge_method": "S256",
        }
        if "offline_access" in self.settings.oidc_scopes.split():
            query["prompt"] = "consent"  # what offline_access needs at most providers
        return f"{self.endpoints().authorization}?{urlencode(query)}"

    def exchange(self, code: str, redirect_uri: str, verifier: str) -> Tokens:
        r = self._token_request({
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier,
        })  # fmt: skip
        if r.status_code != 200:
            raise SignInFailed(f"The identity provider refused the sign-in ({_error(r)}).")
        data = r.json()
        return Tokens(data.get("id_token"), data.get("refresh_token"), data.get("access_token"))

    def user_claims(self, claims: dict[str, Any], access_token: str | None) -> dict[str, Any]:
        """The ID token's claims with the user's profile (email, name, groups) from the
        provider's userinfo endpoint, where providers put what the scopes ask for; its
        ``sub`` must be the ID token's."""
        userinfo = self.endpoints().userinfo
        if not userinfo or not access_token:
            return claims
        try:
            with self._client() as client:
                r = client.get(userinfo, headers={"Authorization": f"Bearer {access_token}"})
        except httpx.HTTPError as exc:
            raise ProviderUnreachable(f"The identity provider did not answer ({exc}).") from exc
        if r.status_code != 200:
            return claims  # the ID token alone names the user
        profile = r.json()
        if profile.get("sub") != claims.get("sub"):
            raise SignInFailed("The provider's userinfo names another subject than the ID token.")
        return {**profile, **claims}

    def refresh(self, refresh_token: str) -> Tokens | None:
        """New tokens, or None when the provider no longer vouches for the user (removed,
        disabled, or the grant revoked); ``ProviderUnreachable`` when it cannot say."""
        r = self._token_request({"grant_type": "refresh_token", "refresh_token": refresh_token})
        if r.status_code in (400, 401, 403):
            return None
        if r.status_code != 200:
            raise ProviderUnreachable(f"The identity provider answered {r.status_code}.")
        data = r.json()
        return Tokens(data.get("id_token"), data.get("refresh_token") or refresh_token)

    def verify(self, id_token: str, nonce: str | None) -> dict[str, Any]:
        """The ID token's claims once its signature, issuer, audience, expiry, issue time
        and (at sign-in) nonce hold; ``SignInFailed`` saying which did not."""
        try:
            try:
                token = jwt.decode(id_token, self._key_set(fresh=False), algorithms=ALGORITHMS)
            except JoseError:  # perhaps a key the provider rotated in since
                token = jwt.decode(id_token, self._key_set(fresh=True), algorithms=ALGORITHMS)
            must: dict[str, Any] = {
                "iss": {"essential": True, "value": self.issuer},
                "aud": {"essential": True, "value": self.settings.oidc_client_id},
                "sub": {"essential": True},
                "exp": {"essential": True},
                "iat": {"essential": True},
            }
            if nonce is not None:
                must["nonce"] = {"essential": True, "value": nonce}
            jwt.JWTClaimsRegistry(leeway=self.settings.oidc_leeway_s, **must).validate(token.claims)
        except (JoseError, ValueError) as exc:
            raise SignInFailed(f"The ID token is not valid: {exc}.") from exc
        return dict(token.claims)


def _error(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return f"status {r.status_code}"
    return str(body.get("error_description") or body.get("error") or r.status_code)[:200]


# -- signing in ------------------------------------------------------------------------------


def start(store: Store, provider: Provider, redirect_uri: str, next_path: str) -> tuple[str, str]:
    """Begin a sign-in: the provider's URL to send the browser to, and its state."""
    state, nonce, verifier = (secrets.token_urlsafe(32) for _ in range(3))
    store.begin_sign_in(state, PendingSignIn(nonce, verifier, next_path), time.time())
    return provider.authorization_url(redirect_uri, state, nonce, verifier), state


def finish(store: Store, provider: Provider, state: str, code: str, redirect_uri: str) -> SignedIn:
    """Finish the sign-in ``state`` began: the user, their refresh token and where to go."""
    pending = store.finish_sign_in(state, time.time())
    if pending is None:
        raise SignInFailed(
            "This sign-in is unknown, was used already or took too long: start it again.",
            code="sign_in_state_invalid",
        )
    tokens = provider.exchange(code, redirect_uri, pending.verifier)
    if not tokens.id_token:
        raise SignInFailed("The identity provider sent no ID token (is openid a scope?).")
    claims = provider.user_claims(
        provider.verify(tokens.id_token, pending.nonce), tokens.access_token
    )
    user = store.provider_user(
        str(claims["sub"]), display_name(claims), _text(claims.get("email")),
        is_admin(provider.settings, claims), SIGN_IN_ACTOR,
    )  # fmt: skip
    return SignedIn(user, tokens.refresh_token, pending.next)


def display_name(claims: dict[str, Any]) -> str:
    for key in ("email", "preferred_username", "name", "sub"):
        value = _text(claims.get(key))
        if value:
            return value[:100]
    return "user"


def is_admin(settings: Settings, claims: dict[str, Any]) -> bool | None:
    """Whether the claims put the user in the admin group; None when no group is named."""
    group = settings.oidc_admin_group
    if not group:
        return None
    groups = claims.get(settings.oidc_groups_claim)
    if isinstance(groups, str):
        groups = groups.split()
    return isinstance(groups, list) and group in groups


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None
