"""Who may open a document's content (its file, text, chunks and pages).

Admins may open every document. Anyone else may not open a disabled one: disabling a
document hides it from answers and from its readers at once, and revokes its signed
public links for good (``Footnoted.set_enabled``).
"""

from __future__ import annotations

from ..errors import Forbidden
from ..models import Document
from ..records import User
from ..service.facade import Footnoted


def disabled(doc: Document) -> Forbidden:
    return Forbidden(f"{doc.title!r} is disabled by an admin.", code="document_disabled")


def readable(service: Footnoted, document_id: str, user: User | None) -> Document:
    """The document, if ``user`` may open it (``None``: a public link); else 403."""
    doc = service.store.get_document(document_id)
    if not doc.enabled and (user is None or not user.is_admin):
        raise disabled(doc)
    return doc
