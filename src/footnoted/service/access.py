"""Who may open a document's content (its file, text, chunks and pages).

Admins may open every document. Anyone else may not open a disabled one: disabling a
document hides it from answers and from its readers at once, and revokes its signed
public links for good (``Footnoted.set_enabled``). A deleted document's kept versions
(``versions.py``) are read by admins and by the users whose answers quoted it.
"""

from __future__ import annotations

from ..errors import Forbidden, NotFound
from ..models import Document
from ..records import User
from ..stores.base import Store


def disabled(doc: Document) -> Forbidden:
    return Forbidden(f"{doc.title!r} is disabled by an admin.", code="document_disabled")


def readable(store: Store, document_id: str, user: User | None) -> Document:
    """The document, if ``user`` may open it (``None``: a public link); else 403."""
    doc = store.get_document(document_id)
    if not doc.enabled and (user is None or not user.is_admin):
        raise disabled(doc)
    return doc


def readable_or_gone(store: Store, document_id: str, user: User | None) -> Document | None:
    """The document if ``user`` may open it; None for a deleted one whose kept versions
    ``user`` may read: an admin, or a user one of whose answers quoted it (only the
    owners of old answers read a deleted document's kept text). Else 403 or 404."""
    try:
        return readable(store, document_id, user)
    except NotFound:
        if user is not None and (user.is_admin or store.cites_document(user.id, document_id)):
            return None
        raise
