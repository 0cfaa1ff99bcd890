"""Helpers for the browser tests: Debian's Chromium through Playwright, a TCP proxy
whose connections the test can cut (a network drop), and screenshots as artifacts."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def require_browser() -> Any:
    """Playwright's sync API, or skip (``scripts/setup`` installs Chromium for CI)."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed: run scripts/setup-browser")
    playwright = pytest.importorskip("playwright.sync_api")
    return playwright


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def sign_in(page: Any, token: str) -> None:
    page.fill("#token", token)
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#question:visible")


def ask(page: Any, question: str) -> None:
    page.fill("#question", question)
    page.press("#question", "Enter")


def last_answer(page: Any, timeout: float = 60_000) -> Any:
    page.wait_for_selector(".msg-answer:last-child .copy", timeout=timeout)
    return page.locator(".msg-answer").last


def tab_from_the_top(page: Any) -> None:
    """Press Tab as a keyboard user does on arriving at the page: from its very start."""
    page.evaluate(
        "() => { document.activeElement.blur(); const b = document.body; b.tabIndex = -1;"
        " b.focus(); b.removeAttribute('tabindex'); }"
    )
    page.keyboard.press("Tab")


def focus_ring_clipped(page: Any) -> str | None:
    """What hides part of the focused element's focus ring (an ancestor whose overflow
    clips it), or None when the whole ring shows."""
    clipped: str | None = page.evaluate(
        """() => { const n = document.activeElement; const style = getComputedStyle(n);
        if (style.outlineStyle === 'none' || parseFloat(style.outlineWidth) === 0) return 'no ring';
        const grow = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
        const r = n.getBoundingClientRect();
        for (let p = n.parentElement; p; p = p.parentElement) {
          const s = getComputedStyle(p);
          if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
          const b = p.getBoundingClientRect();
          const left = b.left + p.clientLeft, top = b.top + p.clientTop;
          if (r.left - grow < left - 0.5 || r.top - grow < top - 0.5
              || r.right + grow > left + p.clientWidth + 0.5
              || r.bottom + grow > top + p.clientHeight + 0.5) {
            return `${p.tagName.toLowerCase()}.${p.className}`;
          }
        }
        return null; }"""
    )
    return clipped


class DropProxy:
    """A TCP proxy to 127.0.0.1:port; :meth:`drop` cuts every live connection at once."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                return
            with self._lock:
                self._sockets |= {client, upstream}
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            self._close(src)
            self._close(dst)

    def _close(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.discard(sock)
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    def drop(self) -> None:
        with self._lock:
            live = list(self._sockets)
        for sock in live:
            self._close(sock)

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        self.drop()
