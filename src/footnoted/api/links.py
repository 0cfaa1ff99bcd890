"""Download links on citations, per the collection's ``citation_link_mode``.

``authenticated`` points at ``/api/documents/{id}/download`` (needs the bearer token);
``public`` is a signed link, ``/public/documents/{id}?expires=…&by=…&signature=…``, that
anyone can open until it expires (HMAC-SHA256 over the document id, the expiry, the
document's link epoch, which disabling the document changes: ``Footnoted.set_enabled``,
and ``by``: the API token of the request that minted it). A link stops working at once,
in every process, when the token that minted it is revoked or rotated.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Sequence
from dataclasses import replace

from ..models import Citation
from ..service.facade import Footnoted
from ..settings import LinkMode

PUBLIC_PREFIX = "/public/documents/"


class Links:
    def __init__(self, service: Footnoted) -> None:
        configured = service.settings.link_secret
        secret = configured or service.store.secret(
            "link_signing_key", lambda: secrets.token_hex(32)
        )
        self._key = secret.encode("utf-8")
        self.ttl_s = service.settings.link_ttl_s
        self.service = service

    def _signature(self, document_id: str, expires: int, by: str | None) -> str:
        epoch = self.service.link_epoch(document_id)
        message = f"{document_id}:{expires}" + (f":{epoch}" if epoch else "")
        message += f":by={by}" if by else ""
        return hmac.new(self._key, message.encode(), hashlib.sha256).hexdigest()

    def public_url(
        self, document_id: str, by: str | None, now: float | None = None
    ) -> tuple[str, int]:
        """A link that works until it expires, or until the token ``by`` (None: one minted
        by the command line) is revoked; and its expiry."""
        expires = int((now if now is not None else time.time()) + self.ttl_s)
        sig = self._signature(document_id, expires, by)
        minted = f"&by={by}" if by else ""
        return f"{PUBLIC_PREFIX}{document_id}?expires={expires}{minted}&signature={sig}", expires

    def verify(self, document_id: str, expires: int, signature: str, by: str | None) -> bool:
        if expires < time.time():
            return False
        expected = self._signature(document_id, expires, by).encode()
        if not hmac.compare_digest(expected, signature.encode("utf-8", "replace")):
            return False
        return by is None or self.service.store.token_alive(by)

    def url_for(self, document_id: str, mode: LinkMode, by: str | None) -> str | None:
        if mode == "authenticated":
            return f"/api/documents/{document_id}/download"
        if mode == "public":
            return self.public_url(document_id, by)[0]
        return None

    def decorate(
        self, citations: Sequence[Citation], mode: LinkMode, by: str | None
    ) -> tuple[Citation, ...]:
        """The citations with ``download_url`` set per the link mode; public links minted
        for the token ``by``."""
        urls: dict[str, str | None] = {}
        out = []
        for c in citations:
            if c.document_id not in urls:
                urls[c.document_id] = self.url_for(c.document_id, mode, by)
            out.append(replace(c, download_url=urls[c.document_id]))
        return tuple(out)
