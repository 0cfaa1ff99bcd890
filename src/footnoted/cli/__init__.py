"""The ``footnoted`` command: ``main`` builds the Typer app from the command modules
beside it. The package imports ``main`` only when ``app`` is asked for, so that the
tools' command modules, which use ``errors`` here, do not pull the whole CLI in."""

from __future__ import annotations

from typing import Any

__all__ = ["app"]


def __getattr__(name: str) -> Any:
    if name != "app":
        raise AttributeError(f"module 'footnoted.cli' has no attribute {name!r}")
    from .main import app

    return app
