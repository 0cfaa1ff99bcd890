"""The one policy for requests footnoted makes to other servers (the LLM connection, the
identity provider, site sync).

An operator-run server must not become a way into its own network: an admin who may set
the LLM's URL could otherwise point it at a loopback database, a cloud metadata address
or a router's admin page. So every outbound connection goes through :class:`Outbound`:

- a URL with credentials in it (``http://user:pass@host``) is refused (:func:`checked_url`):
  they would be stored and shown back; a key goes in its own field;
- each address a host name resolves to must be a public (global) one, unless the operator
  allows the host, address or network with ``FOOTNOTED_OUTBOUND_ALLOW``; the host of
  ``FOOTNOTED_LLM_BASE_URL`` is always allowed, so a local Ollama keeps working;
- the check is made where the socket connects (:class:`_GuardedBackend`), on the address
  actually dialled, so a name that resolves differently between a check and the
  connection (DNS rebinding) gains nothing;
- redirects are never followed (a 3xx is reported as it is).
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpcore
import httpx

from .errors import FootnotedError

if TYPE_CHECKING:
    from .settings import Settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


class OutboundBlocked(FootnotedError):
    """A connection to an address the outbound policy does not allow."""

    status = 422
    code = "outbound_blocked"


def checked_url(url: str) -> str:
    """``url`` without a trailing slash, if it is an absolute http(s) URL without
    credentials; else ``ValueError`` saying what to change (a settings field's check)."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1")
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            "must not hold a user name or password (user:password@host): give the key in "
            "api_key instead"
        )
    return url.rstrip("/")


def host_of(url: str) -> str:
    return (urlsplit(url.strip()).hostname or "").lower()


@dataclass(frozen=True, slots=True)
class Outbound:
    """Which private addresses may be reached: host names, addresses and networks."""

    hosts: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> Outbound:
        """The operator's policy: ``FOOTNOTED_OUTBOUND_ALLOW``, the host of the configured
        ``FOOTNOTED_LLM_BASE_URL`` (never of a URL an admin saved since) and that of the
        identity provider (``FOOTNOTED_OIDC_ISSUER``)."""
        operator = [settings.llm_base_url, settings.oidc_issuer or ""]
        return cls.allowing([*settings.outbound_allow.split(","), *map(host_of, operator)])

    @classmethod
    def for_sites(cls, settings: Settings) -> Outbound:
        """What site sync may reach: only what ``FOOTNOTED_OUTBOUND_ALLOW`` names (a
        sitemap must not lead to the LLM's or the identity provider's private host)."""
        return cls.allowing(settings.outbound_allow.split(","))

    @classmethod
    def allowing(cls, entries: Iterable[str]) -> Outbound:
        """From ``FOOTNOTED_OUTBOUND_ALLOW``'s entries (``ollama.lan``, ``10.0.0.5``,
        ``10.0.0.0/8``, ``[::1]``) and the LLM base URL's host."""
        hosts: set[str] = set()
        networks: list[Network] = []
        for raw in entries:
            entry = raw.strip().strip("[]").lower()
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry)
        return cls(frozenset(hosts), tuple(networks))

    def allows(self, host: str, address: Address) -> bool:
        """Whether ``host`` (resolved to ``address``) may be connected to."""
        if address.is_global or host.lower().strip("[]") in self.hosts:
            return True
        return any(address in network for network in self.networks)

    def check(self, url: str) -> None:
        """Refuse (``OutboundBlocked``) a URL whose host resolves to an address this policy
        does not allow; a host that does not resolve here is left to the connection."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            addresses = _resolve(host, parts.port or 443)
        except httpcore.ConnectError:
            return
        for address in addresses:
            if not self.allows(host, address):
                raise refusal(host, address)

    def transport(self, **options: Any) -> httpx.HTTPTransport:
        """An httpx transport whose every connection this policy checks."""
        return _GuardedTransport(self, **options)


def refusal(host: str, address: Address) -> OutboundBlocked:
    kind = (
        "loopback" if address.is_loopback
        else "link-local" if address.is_link_local
        else "private or reserved"
    )  # fmt: skip
    return OutboundBlocked(
        f"{host} is a {kind} address ({address}); footnoted does not connect to those "
        "unless the server's operator allows it (FOOTNOTED_OUTBOUND_ALLOW)."
    )


def _resolve(host: str, port: int) -> list[Address]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
    addresses: list[Address] = []
    for *_, sockaddr in found:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself, checks every address, and dials the first allowed one."""

    def __init__(self, policy: Outbound) -> None:
        self.policy = policy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = _resolve(host, port)
        blocked = [a for a in addresses if not self.policy.allows(host, a)]
        if blocked:  # one private answer is enough to refuse: the name is not public
            raise refusal(host, blocked[0])
        return super().connect_tcp(str(addresses[0]), port, timeout, local_address, socket_options)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()  # reading the CA bundle takes tens of milliseconds


class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self, policy: Outbound, **options: Any) -> None:
        super().__init__(verify=_ssl_context(), **options)
        self._pool = httpcore.ConnectionPool(
            ssl_context=_ssl_context(), network_backend=_GuardedBackend(policy)
        )
