"""How the command line reaches a running ``footnoted serve``.

While it runs, ``serve`` keeps ``server.json`` (its URL and process id) in the home.
``ask`` asks the server named by ``--server`` / ``FOOTNOTED_SERVER``, else the one that
file names when it is up, over the ``/api/chat`` JSON endpoint. It sends ``--token`` /
``FOOTNOTED_TOKEN``, else the home's own CLI token: issued on first use to the user
``cli`` and kept in ``cli-token`` (mode 0600), so only this account can read it.
"""

from __future__ import annotations

import json
import os
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx

from ..errors import FootnotedError
from ..settings import Settings

SERVER_FILE = "server.json"
TOKEN_FILE = "cli-token"
CLI_USER = "cli"
TIMEOUT = httpx.Timeout(10.0, read=600.0)  # an LLM may take its time; Ctrl-C still stops it


class ServerError(FootnotedError):
    """The server answered with an error, or could not be reached."""

    status = 502
    code = "server_unavailable"


def connect_url(host: str, port: int) -> str:
    """The URL a client on this machine uses for a server listening on ``host:port``."""
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@contextmanager
def advertised(home: Path, url: str) -> Iterator[None]:
    """Keep ``server.json`` in the home while the block runs (in the serving process)."""
    home.mkdir(parents=True, exist_ok=True)
    path, pid = home / SERVER_FILE, os.getpid()
    staged = home / f".{SERVER_FILE}.{pid}"
    staged.write_text(json.dumps({"url": url, "pid": pid}))
    staged.replace(path)
    # uvicorn re-raises the SIGTERM it shut down for: exit through ``finally`` instead.
    previous = signal.signal(signal.SIGTERM, _exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        with suppress(OSError, ValueError, AttributeError):
            if json.loads(path.read_text()).get("pid") == pid:
                path.unlink()


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def running_server(home: Path) -> str | None:
    """The URL in the home's ``server.json`` when that server is up, else None."""
    try:
        info = json.loads((home / SERVER_FILE).read_text())
        url, pid = str(info["url"]), int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, run by another account
    try:
        up = httpx.get(f"{url}/api/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return None
    return url if up else None


def cli_token(settings: Settings, renew: bool = False) -> str:
    """The home's CLI token; issued (to the user ``cli``) when missing or ``renew``."""
    path = settings.home / TOKEN_FILE
    if not renew:
        with suppress(FileNotFoundError):
            if token := path.read_text().strip():
                return token
    token = _issue(settings)
    staged = settings.home / f".{TOKEN_FILE}.{os.getpid()}"
    fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    staged.replace(path)
    return token


def _issue(settings: Settings) -> str:
    from ..inference.embedding import get_embedder
    from ..service.accounts import issue_token
    from ..stores.factory import open_store

    store = open_store(settings, get_embedder(settings).dim)
    try:
        user = store.find_user(CLI_USER) or store.create_user(CLI_USER, False)
        return issue_token(store, user)
    finally:
        store.close()


def ask_server(url: str, token: str, question: str, collection: str | None) -> dict[str, Any]:
    """The ``/api/chat`` answer object (``type`` answer or refusal) for the question."""
    body = {"message": question, "message_id": uuid.uuid4().hex}
    if collection:
        body["collection"] = collection
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    try:
        r = httpx.post(f"{url}/api/chat", json=body, headers=headers, timeout=TIMEOUT)
    except httpx.HTTPError as exc:
        raise ServerError(f"could not reach the server at {url}: {exc}") from exc
    if r.status_code != 200:
        raise _error(r)
    payload: dict[str, Any] = r.json()
    return payload


def _error(r: httpx.Response) -> FootnotedError:
    try:
        error = r.json()["error"]
        exc = FootnotedError(str(error["message"]), code=str(error["code"]))
    except (ValueError, KeyError, TypeError):
        exc = ServerError(f"the server answered HTTP {r.status_code}")
    exc.status = r.status_code
    return exc
