"""``--help`` that reads like prose: no ``<str>``, ``<bool>`` or ``<int range>`` tags.

Typer prints each parameter's Python type beside it. Here an option that takes a value
shows its metavar instead (``--port PORT``, ``--collection NAME``); a flag shows nothing
and an argument only its name.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperOption


def _metavar(param: TyperArgument | TyperOption, ctx: Any) -> str | None:
    if not isinstance(param, TyperOption) or param.is_flag or param.count:
        return None
    return param.metavar or (param.name or "value").upper()


def install() -> None:
    """Make every Typer parameter describe itself by its metavar, never its type."""
    for cls in (TyperArgument, TyperOption):
        setattr(cls, "display_type_rich", _metavar)  # noqa: B010 (mypy forbids assigning a method)
