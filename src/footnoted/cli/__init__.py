"""The ``footnoted`` command: ``main`` builds the Typer app from the command modules
beside it."""

from .main import app

__all__ = ["app"]
