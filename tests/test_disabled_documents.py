"""A disabled document: hidden from its readers at once, its public links revoked (dead
while it is disabled and after it is enabled again); admins still see it all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apihelpers import Api, api


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Api]:
    with api(tmp_path / "home") as a:
        r = a.client.put("/api/collections/default/settings",
                         json={"citation_link_mode": "public"}, headers=a.admin)  # fmt: skip
        assert r.status_code == 200, r.text
        yield a


def test_a_disabled_document_cannot_be_opened_by_users_or_public_links(app: Api) -> None:
    doc = app.client.get("/api/documents", headers=app.alice).json()[0]["id"]
    paths = [f"/api/documents/{doc}/{part}" for part in ("download", "text", "chunks", "link")]
    for path in paths:
        assert app.client.get(path, headers=app.alice).status_code == 200, path
    public = app.client.get(f"/api/documents/{doc}/link", headers=app.alice).json()["url"]
    assert app.client.get(public).status_code == 200

    off = app.client.patch(f"/api/documents/{doc}", json={"enabled": False}, headers=app.admin)
    assert off.status_code == 200 and off.json()["enabled"] is False
    for path in paths:
        r = app.client.get(path, headers=app.alice)
        assert r.status_code == 403 and r.json()["error"]["code"] == "document_disabled", path
    dead = app.client.get(public)
    assert dead.status_code == 403 and dead.json()["error"]["code"] == "invalid_link"
    assert "revoked" in dead.json()["error"]["message"]
    for part in ("download", "text", "chunks"):  # admins still manage it
        assert app.client.get(f"/api/documents/{doc}/{part}", headers=app.admin).status_code == 200
    assert app.client.get(f"/api/documents/{doc}/link", headers=app.admin).status_code == 403

    on = app.client.patch(f"/api/documents/{doc}", json={"enabled": True}, headers=app.admin)
    assert on.status_code == 200
    assert app.client.get(paths[0], headers=app.alice).status_code == 200
    revoked = app.client.get(public)  # links from before the disabling stay dead
    assert revoked.status_code == 403 and revoked.json()["error"]["code"] == "invalid_link"
    fresh = app.client.get(f"/api/documents/{doc}/link", headers=app.alice).json()["url"]
    assert fresh != public and app.client.get(fresh).status_code == 200
