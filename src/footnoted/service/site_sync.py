"""A collection kept in step with a website: ``footnoted sync https://…/sitemap.xml``.

Each pass reads the sitemap (XML, a sitemap index of sitemaps, or the plain-text form:
one URL a line), then fetches each page it lists, politely:

- **robots.txt** of each host is read first and obeyed for the user agent ``footnoted``
  (a page it disallows is skipped and reported; one that cannot be read for a server
  error stops the host's pages this pass); its ``Crawl-delay`` is honoured;
- **one request at a time, at most one a ``delay`` per host**;
- **conditional requests**: a page stored before is asked for with the ``ETag`` and
  ``Last-Modified`` its server sent (``If-None-Match``, ``If-Modified-Since``): ``304``
  means unchanged, and nothing is parsed or embedded;
- every request goes through the outbound policy (no loopback, link-local or private
  address unless the operator allows it; redirects are not followed but reported).

A page is a document whose source and link are its URL, read by the loader its content
calls for (HTML through the HTML loader); a changed page is the document's next version.
A page the sitemap no longer lists, or that answers ``404``/``410``, is retired (deleted;
its last version kept for the answers that quoted it).
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from .. import __version__
from ..errors import FootnotedError, InvalidInput
from ..ingest.ingest import FileResult, ProgressFn
from ..models import SitePage
from ..outbound import Outbound
from ..records import CLI_ACTOR, Actor
from .facade import Footnoted
from .sync import SyncReport

AGENT = "footnoted"
USER_AGENT = f"footnoted/{__version__} (document sync; obeys robots.txt)"
MAX_SITEMAP_BYTES = 50 * 1024 * 1024  # the sitemap protocol's own limit
MAX_URLS = 50_000  # likewise, per sitemap (and in all, here)
MAX_SITEMAPS = 100  # sitemaps an index may name
MAX_CRAWL_DELAY_S = 60.0
TIMEOUT_S = 30.0
GONE = (404, 410)


class SiteError(FootnotedError):
    code = "site_unavailable"


@dataclass(slots=True)
class Polite:
    """Requests to a site one at a time, spaced ``delay`` apart per host (or more where
    robots.txt asks), each host's robots.txt read once and obeyed."""

    client: httpx.Client
    delay: float
    sleep: Callable[[float], None] = time.sleep
    _last: dict[str, float] = field(default_factory=dict)
    _robots: dict[str, RobotFileParser | None] = field(default_factory=dict)

    def get(self, url: str, headers: dict[str, str] | None = None) -> httpx.Response:
        host = urlsplit(url).netloc.lower()
        robots = self._robots.get(host)
        crawl = robots.crawl_delay(AGENT) if robots is not None else None
        gap = max(self.delay, min(float(crawl or 0), MAX_CRAWL_DELAY_S))
        wait = self._last.get(host, -1e9) + gap - time.monotonic()
        if wait > 0:
            self.sleep(wait)
        try:
            with self.client.stream("GET", url, headers=headers) as response:
                body = bytearray()
                for part in response.iter_bytes():
                    body += part
                    if len(body) > MAX_SITEMAP_BYTES:
                        raise SiteError(f"{url} is larger than {MAX_SITEMAP_BYTES >> 20} MB.")
                return httpx.Response(
                    response.status_code, headers=response.headers, content=bytes(body),
                    request=response.request,
                )  # fmt: skip
        except httpx.HTTPError as exc:
            raise SiteError(f"Could not fetch {url}: {exc}") from exc
        finally:
            self._last[host] = time.monotonic()

    def allowed(self, url: str) -> bool:
        """Whether the host's robots.txt lets ``footnoted`` fetch ``url`` (read once per
        host: missing (4xx) allows everything; unreadable (5xx, no answer) nothing)."""
        parts = urlsplit(url)
        host = parts.netloc.lower()
        if host not in self._robots:
            self._robots[host] = self._read_robots(f"{parts.scheme}://{parts.netloc}/robots.txt")
        robots = self._robots[host]
        return robots is not None and robots.can_fetch(AGENT, url)

    def _read_robots(self, url: str) -> RobotFileParser | None:
        parser = RobotFileParser(url)
        try:
            response = self.get(url)
        except SiteError:
            return None
        if response.status_code >= 500 or 300 <= response.status_code < 400:
            return None
        missing = response.status_code >= 400  # no robots.txt: everything is allowed
        parser.parse([] if missing else response.text.splitlines())
        return parser


def sitemap_urls(polite: Polite, sitemap: str) -> list[str]:
    """The page URLs ``sitemap`` lists (an index's sitemaps read in turn), in order, each
    once, http(s) only."""
    found: dict[str, None] = {}
    queue, seen = [sitemap], 0
    while queue and seen <= MAX_SITEMAPS:
        url = queue.pop(0)
        seen += 1
        if not polite.allowed(url):
            raise SiteError(f"robots.txt does not let footnoted read {url}.")
        response = polite.get(url)
        if response.status_code != 200:
            raise SiteError(f"{url} answered {response.status_code}.")
        pages, children = parse_sitemap(response.content)
        if url == sitemap:
            queue.extend(children[:MAX_SITEMAPS])
        for page in pages:
            if len(found) >= MAX_URLS:
                break
            found.setdefault(page, None)
    return list(found)


def parse_sitemap(data: bytes) -> tuple[list[str], list[str]]:
    """(page URLs, sitemap URLs) of a sitemap: XML ``<urlset>`` / ``<sitemapindex>``
    (any namespace), or plain text with one URL a line."""
    text = data.lstrip()
    if text.startswith(b"<"):
        try:
            root = ET.fromstring(data)  # expat refuses entity expansion bombs
        except ET.ParseError as exc:
            raise SiteError(f"The sitemap is not valid XML: {exc}.") from exc
        locs = [
            (el.text or "").strip()
            for el in root.iter()
            if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] == "loc"
        ]
        web = [u for u in locs if _web(u)]
        is_index = root.tag.rsplit("}", 1)[-1] == "sitemapindex"
        return ([], web) if is_index else (web, [])
    lines = text.decode("utf-8", errors="replace").splitlines()
    return [u.strip() for u in lines if _web(u.strip())], []


def _web(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def page_filename(url: str, media_type: str) -> str:
    """A file name for the loaders: the URL path's last part, or ``index.html``."""
    name = PurePosixPath(urlsplit(url).path).name
    if not name or "." not in name:
        name = (name or "index") + (".html" if "html" in media_type else "")
    return name


def sync_site(
    fn: Footnoted,
    sitemap: str,
    collection: str | None = None,
    progress: ProgressFn | None = None,
    actor: Actor = CLI_ACTOR,
    delay: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> SyncReport:
    """One pass over the pages ``sitemap`` lists into ``collection`` (the default one)."""
    if not _web(sitemap):
        raise InvalidInput(f"{sitemap} is not an http(s) URL.", code="invalid_url")
    name = collection or fn.settings.collection
    started = time.perf_counter()
    report = SyncReport(sitemap, name)
    outbound = Outbound.for_sites(fn.settings)
    headers = {"User-Agent": USER_AGENT}
    with httpx.Client(
        transport=outbound.transport(), headers=headers, timeout=TIMEOUT_S,
        follow_redirects=False,
    ) as client:  # fmt: skip
        polite = Polite(client, delay, sleep)
        urls = sitemap_urls(polite, sitemap)
        known = fn.store.site_pages(name, sitemap)
        listed = set(urls)
        for url in [u for u in known if u not in listed]:
            _retire(fn, report, name, url, actor)
        for url in urls:
            if not polite.allowed(url):
                report.blocked.append(url)
                continue
            result = _page(fn, polite, report, name, sitemap, url, known.get(url), actor)
            if result is not None:
                report.ingest.results.append(result)
                if progress is not None:
                    progress(result)
    report.seconds = time.perf_counter() - started
    return report


def _page(
    fn: Footnoted,
    polite: Polite,
    report: SyncReport,
    collection: str,
    sitemap: str,
    url: str,
    known: SitePage | None,
    actor: Actor,
) -> FileResult | None:
    stored = fn.store.find_document(collection, url)
    conditional: dict[str, str] = {}
    if known is not None and stored is not None and stored.status == "ready":
        if known.etag:
            conditional["If-None-Match"] = known.etag
        if known.last_modified:
            conditional["If-Modified-Since"] = known.last_modified
    try:
        response = polite.get(url, conditional)
    except FootnotedError as exc:  # unreachable, too large, or refused by the outbound policy
        return FileResult(url, "failed", error=exc.message, code=exc.code)
    status = response.status_code
    if status == 304 and stored is not None:
        return FileResult(url, "unchanged", stored.id, stored.title)
    if status in GONE:
        _retire(fn, report, collection, url, actor)
        return None
    if status != 200:
        where = response.headers.get("location")
        why = f"it redirects to {where} (redirects are not followed: list that URL)" if where \
            else f"it answered {status}"  # fmt: skip
        return FileResult(url, "failed", error=f"{url}: {why}.", code="page_unavailable")
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        result = fn.ingestor.ingest_bytes(
            response.content, page_filename(url, media_type), collection, source=url, url=url
        )
    except FootnotedError as exc:
        return FileResult(url, "failed", error=exc.message, code=exc.code)
    fn.store.keep_site_page(
        SitePage(
            collection, url, sitemap, response.headers.get("etag"),
            response.headers.get("last-modified"),
        )
    )  # fmt: skip
    return result


def _retire(fn: Footnoted, report: SyncReport, collection: str, url: str, actor: Actor) -> None:
    doc = fn.store.find_document(collection, url)
    if doc is not None:
        fn.delete(doc.id, actor)
        report.retired.append(doc)
    fn.store.forget_site_page(collection, url)
