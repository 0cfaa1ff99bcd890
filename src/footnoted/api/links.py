"""Download links on citations, per the collection's ``citation_link_mode``.

``authenticated`` points at ``/api/documents/{id}/download`` (needs the bearer token);
``public`` is a signed link, ``/public/documents/{id}?expires=…&signature=…``, that
anyone can open until it expires (HMAC-SHA256 over the document id, the expiry and the
document's link epoch, which disabling the document changes: ``Footnoted.set_enabled``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Sequence
from dataclasses import replace

from ..collection_settings import LinkMode
from ..models import Citation
from ..service import Footnoted

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

    def _signature(self, document_id: str, expires: int) -> str:
        epoch = self.service.link_epoch(document_id)
        message = f"{document_id}:{expires}" + (f":{epoch}" if epoch else "")
        return hmac.new(self._key, message.encode(), hashlib.sha256).hexdigest()

    def public_url(self, document_id: str, now: float | None = None) -> tuple[str, int]:
        expires = int((now if now is not None else time.time()) + self.ttl_s)
        sig = self._signature(document_id, expires)
        return f"{PUBLIC_PREFIX}{document_id}?expires={expires}&signature={sig}", expires

    def verify(self, document_id: str, expires: int, signature: str) -> bool:
        if expires < time.time():
            return False
        expected = self._signature(document_id, expires).encode()
        return hmac.compare_digest(expected, signature.encode("utf-8", "replace"))

    def url_for(self, document_id: str, mode: LinkMode) -> str | None:
        if mode == "authenticated":
            return f"/api/documents/{document_id}/download"
        if mode == "public":
            return self.public_url(document_id)[0]
        return None

    def decorate(self, citations: Sequence[Citation], mode: LinkMode) -> tuple[Citation, ...]:
        """The citations with ``download_url`` set per the link mode."""
        urls: dict[str, str | None] = {}
        out = []
        for c in citations:
            if c.document_id not in urls:
                urls[c.document_id] = self.url_for(c.document_id, mode)
            out.append(replace(c, download_url=urls[c.document_id]))
        return tuple(out)
