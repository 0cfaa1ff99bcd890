"""A folder on the server kept in sync from the admin page and ``POST /api/admin/sync``:
only inside FOOTNOTED_SYNC_ROOTS, only files really inside it (a link out is left
alone), a pass that reports what it did and is audited; on SQLite and PostgreSQL, and
in Chromium against a real server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from apihelpers import Api, api, cli, start_server
from webhelpers import CHROMIUM, CHROMIUM_ARGS, require_browser, sign_in


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Path:
    root = tmp_path_factory.mktemp(f"synced-{backend}")
    (root / "hr").mkdir()
    (root / "hr" / "leave.md").write_text("# Leave\n\nStaff get thirty days of paid leave.\n")
    (root / "hr" / "travel.md").write_text("# Travel\n\nTrain travel is booked in second class.\n")
    secret = tmp_path_factory.mktemp("elsewhere") / "secret.md"
    secret.write_text("# Secret\n\nThe vault code is 4711.\n")
    os.symlink(secret, root / "hr" / "link-out.md")
    return root


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, backend: str, roots: Path) -> Iterator[Api]:
    home = tmp_path_factory.mktemp("folder-sync") / "home"
    with api(home, ingest=False, sync_roots=f"{roots}, /nonexistent/other") as a:
        yield a


def test_a_folder_inside_the_roots_is_synced_and_audited(app: Api, roots: Path) -> None:
    c = app.client
    listed = c.get("/api/admin/sync", headers=app.admin).json()
    assert listed == {"roots": [str(roots), "/nonexistent/other"]}
    body = {"folder": str(roots / "hr"), "collection": "hr"}
    assert c.post("/api/admin/sync", json=body, headers=app.alice).status_code == 403
    first = c.post("/api/admin/sync", json=body, headers=app.admin)
    assert first.status_code == 200, first.text
    report = first.json()
    assert (report["status"], report["added"], report["failed"]) == ("done", 2, [])
    assert report["summary"].startswith("2 added, 0 changed, 0 unchanged, 0 retired")
    titles = {d["title"] for d in c.get("/api/documents?collection=hr", headers=app.admin).json()}
    assert titles == {"Leave", "Travel"}  # the link to a file outside was left alone
    (roots / "hr" / "travel.md").unlink()
    (roots / "hr" / "leave.md").write_text("# Leave\n\nStaff get thirty-two days of leave.\n")
    second = c.post("/api/admin/sync", json=body, headers=app.admin).json()
    assert (second["changed"], second["retired"]) == (1, ["Travel"])
    docs = c.get("/api/documents?collection=hr", headers=app.admin).json()
    assert [(d["title"], d["version"]) for d in docs] == [("Leave", 2)]
    audit = c.get("/api/admin/audit", headers=app.admin).json()
    synced = [e for e in audit if e["action"] == "folder_synced"]
    assert len(synced) == 2 and synced[0]["detail"]["collection"] == "hr"
    assert "1 changed" in synced[0]["detail"]["summary"]


@pytest.mark.parametrize(
    ("folder", "status", "code"),
    [
        ("/etc", 403, "folder_not_allowed"),
        ("{roots}/hr/../../", 403, "folder_not_allowed"),
        ("hr", 422, "invalid_folder"),
        ("{roots}/missing", 422, "not_a_folder"),
    ],
)
def test_folders_outside_the_roots_are_refused(
    app: Api, roots: Path, folder: str, status: int, code: str
) -> None:
    r = app.client.post(
        "/api/admin/sync", json={"folder": folder.format(roots=roots)}, headers=app.admin
    )
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code


def test_without_roots_folder_sync_is_off(tmp_path: Path) -> None:
    with api(tmp_path / "home", ingest=False) as a:
        assert a.client.get("/api/admin/sync", headers=a.admin).json() == {"roots": []}
        r = a.client.post("/api/admin/sync", json={"folder": str(tmp_path)}, headers=a.admin)
        assert r.status_code == 403 and r.json()["error"]["code"] == "folder_sync_off"
        assert "FOOTNOTED_SYNC_ROOTS" in r.json()["error"]["message"]


@pytest.mark.slow
def test_an_admin_syncs_a_folder_from_the_admin_page(tmp_path: Path) -> None:
    sync_api = require_browser()
    root = tmp_path / "shared"
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "expenses.md").write_text("# Expenses\n\nReceipts are kept a year.\n")
    home = tmp_path / "home"
    admin = cli(home, "user", "add", "root", "--admin").stdout.strip().splitlines()[-1]
    server = start_server(home, FOOTNOTED_SYNC_ROOTS=str(root))
    pw = sync_api.sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(base_url=server.url).new_page()
        page.goto("/")
        sign_in(page, admin)
        page.click("#open-admin")
        page.wait_for_selector("#folder-sync:visible")
        page.fill("#sync-folder", str(root / "policies"))
        page.click("#folder-sync button[type=submit]")
        result = page.locator("#sync-result")
        result.filter(has_text="1 added").wait_for()
        assert f"{root / 'policies'} → default" in result.inner_text()
        page.locator("#doc-table tbody tr", has_text="Expenses").wait_for()
        page.fill("#sync-folder", "/etc")
        page.click("#folder-sync button[type=submit]")
        page.locator("#sync-result.form-error", has_text="not inside a folder").wait_for()
        page.context.close()
    finally:
        pw.stop()
        server.stop()
