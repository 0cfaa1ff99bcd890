"""A collection kept in step with a website from its sitemap, against a real local HTTP
server: robots.txt obeyed, requests spaced, conditional requests answered 304, changed
pages re-ingested as their next version, pages gone or dropped from the sitemap retired,
redirects reported, private addresses refused unless the operator allows them. On
SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from apihelpers import cli
from footnoted.errors import FootnotedError
from footnoted.service.facade import Footnoted
from footnoted.service.site_sync import parse_sitemap, sync_site
from footnoted.settings import Settings
from pghelpers import database_env
from watchhelpers import watching

GUIDE = """<!doctype html><html><head><title>Backup guide</title></head><body>
<h1>Backups</h1><p>Backups run every night at two in the morning and are kept for
thirty-five days.</p><h2>Restoring</h2><p>A restore takes about an hour for each
hundred gigabytes.</p></body></html>"""
FAQ = """<!doctype html><html><head><title>Billing questions</title></head><body>
<h1>Billing</h1><p>Invoices are sent on the first working day of each month.</p>
</body></html>"""
FAQ_CHANGED = FAQ.replace("first working day", "fifth working day")
SECRET = "<html><body><p>The private page must never be fetched.</p></body></html>"


@dataclass
class Site:
    """A small website: pages by path, with ETags, a robots.txt and a request log."""

    pages: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    log: list[tuple[float, str, dict[str, str]]] = field(default_factory=list)
    url: str = ""

    def put(self, path: str, body: str, media_type: str = "text/html; charset=utf-8") -> None:
        self.pages[path] = (body.encode(), media_type)

    def sitemap(self, *paths: str) -> None:
        locs = "".join(f"<url><loc>{self.url}{p}</loc></url>" for p in paths)
        self.put(
            "/sitemap.xml",
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>',
            "application/xml",
        )

    def requests(self, path: str) -> list[dict[str, str]]:
        return [headers for _, p, headers in self.log if p == path]


@pytest.fixture
def site() -> Iterator[Site]:
    state = Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.log.append((time.monotonic(), self.path, dict(self.headers)))
            if self.path == "/moved.html":
                self.send_response(301)
                self.send_header("Location", f"{state.url}/guide.html")
                self.end_headers()
                return
            if self.path not in state.pages:
                self.send_error(404)
                return
            body, media_type = state.pages[self.path]
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", media_type)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    state.put("/robots.txt", "User-agent: *\nDisallow: /private/\n", "text/plain")
    state.put("/guide.html", GUIDE)
    state.put("/faq.html", FAQ)
    state.put("/private/secret.html", SECRET)
    state.sitemap("/guide.html", "/faq.html", "/private/secret.html")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def allowed(settings: Settings) -> Iterator[Footnoted]:
    with Footnoted(settings.model_copy(update={"outbound_allow": "127.0.0.1"})) as fn:
        yield fn


def test_a_sitemap_is_followed_politely_and_kept_in_step(allowed: Footnoted, site: Site) -> None:
    sitemap = f"{site.url}/sitemap.xml"
    first = sync_site(allowed, sitemap, delay=0.2)
    assert (first.ingest.count("added"), first.blocked) == (2, [f"{site.url}/private/secret.html"])
    assert "2 added, 0 changed, 0 unchanged, 0 retired, 1 blocked by robots.txt" in first.summary()
    assert site.requests("/private/secret.html") == []  # disallowed: never asked for
    assert len(site.requests("/robots.txt")) == 1  # read once for the host
    times = [t for t, _, _ in site.log]
    assert min(b - a for a, b in itertools.pairwise(times)) >= 0.19
    for headers in site.log:
        assert headers[2]["User-Agent"].startswith("footnoted/")
    docs = {d.source: d for d in allowed.store.list_documents()}
    guide = docs[f"{site.url}/guide.html"]
    assert (guide.title, guide.kind, guide.url) == ("Backup guide", "html", guide.source)
    result = allowed.answer("How long are backups kept?")
    assert result.answer is not None and "thirty-five days" in result.answer.text
    assert result.answer.citations[0].url == f"{site.url}/guide.html"

    site.log.clear()
    second = sync_site(allowed, sitemap, delay=0)
    assert (second.ingest.count("unchanged"), second.ingest.chunks, second.changed) == (2, 0, False)
    for page in ("/guide.html", "/faq.html"):
        (asked,) = site.requests(page)
        assert asked.get("If-None-Match", "").startswith('"')  # answered 304

    site.put("/faq.html", FAQ_CHANGED)
    third = sync_site(allowed, sitemap, delay=0)
    assert (third.ingest.count("replaced"), third.ingest.count("unchanged")) == (1, 1)
    faq = allowed.store.find_document("default", f"{site.url}/faq.html")
    assert faq is not None and faq.version == 2
    assert "first working day" in allowed.store.document_version(faq.id, 1).text

    del site.pages["/guide.html"]  # now answers 404
    site.sitemap("/guide.html", "/moved.html")  # the FAQ is no longer listed
    fourth = sync_site(allowed, sitemap, delay=0)
    assert sorted(d.title for d in fourth.retired) == ["Backup guide", "Billing questions"]
    (moved,) = fourth.ingest.failed
    assert moved.code == "page_unavailable" and "redirects are not followed" in str(moved.error)
    assert allowed.store.list_documents() == []
    assert allowed.store.site_pages("default", sitemap) == {}


def test_a_private_address_is_refused_unless_the_operator_allows_it(
    service: Footnoted, site: Site, tmp_path: Path
) -> None:
    with pytest.raises(FootnotedError) as refused:
        sync_site(service, f"{site.url}/sitemap.xml", delay=0)
    assert refused.value.code == "outbound_blocked"
    assert "FOOTNOTED_OUTBOUND_ALLOW" in refused.value.message and site.log == []
    home = tmp_path / "cli-home"
    ran = cli(home, "sync", f"{site.url}/sitemap.xml", "--delay", "0",
              env={"FOOTNOTED_OUTBOUND_ALLOW": "127.0.0.1"})  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert f"skipped {site.url}/private/secret.html (robots.txt)" in ran.stdout
    assert "2 added, 0 changed, 0 unchanged, 0 retired" in ran.stdout
    again = cli(home, "sync", f"{site.url}/sitemap.xml", "--delay", "0")
    assert again.returncode == 1 and "outbound_blocked" in again.stderr


def test_sitemaps_come_as_xml_indexes_or_plain_text() -> None:
    pages, children = parse_sitemap(
        b'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/'
        b'sitemap/0.9"><sitemap><loc> https://a.example/s1.xml </loc></sitemap>'
        b"<sitemap><loc>javascript:alert(1)</loc></sitemap></sitemapindex>"
    )
    assert (pages, children) == ([], ["https://a.example/s1.xml"])
    text = b"https://a.example/one\n\nnot a url\nftp://a.example/x\nhttps://a.example/two\n"
    assert parse_sitemap(text) == (["https://a.example/one", "https://a.example/two"], [])
    with pytest.raises(FootnotedError) as bad:
        parse_sitemap(b"<urlset><url><loc>https://a.example/</loc></urlset")
    assert bad.value.code == "site_unavailable"
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(
            f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">'.encode() for i in range(8)
        )
        + b"]><urlset><url><loc>&i;</loc></url></urlset>"
    )
    with pytest.raises(FootnotedError):  # expat refuses to expand it
        parse_sitemap(bomb)


def test_watch_follows_the_site_as_it_changes(site: Site, tmp_path: Path) -> None:
    env = {**os.environ, "FOOTNOTED_HOME": str(tmp_path / "home"),
           "FOOTNOTED_OUTBOUND_ALLOW": "127.0.0.1", **database_env(tmp_path / "home")}  # fmt: skip
    args = [f"{site.url}/sitemap.xml", "--interval", "0.3", "--delay", "0"]
    with watching(args, env) as watch:
        watch.wait_for("2 added, 0 changed, 0 unchanged, 0 retired, 1 blocked by robots.txt")
        site.put("/faq.html", FAQ_CHANGED)
        watch.wait_for("0 added, 1 changed, 1 unchanged, 0 retired")
        site.sitemap("/faq.html")
        watch.wait_for("0 added, 0 changed, 1 unchanged, 1 retired")
        assert "retired Backup guide" in watch.printed
    asked = [h for _, p, h in site.log if p == "/faq.html"]
    assert sum("If-None-Match" in h for h in asked) >= 2  # each later pass asked conditionally
