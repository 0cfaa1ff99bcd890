"""The layers keep their order: every import of ``src/footnoted``, read with ``ast``
(inside functions and ``TYPE_CHECKING`` blocks too), goes down the order below or
sideways within a package, never up or across, but for the named exceptions.

    base <- stores <- loaders | inference <- ingest | retrieval <- answering <- service
         <- api | cli | mcp <- evaluation | bench

Packages on one tier (``loaders`` and ``inference``, ``ingest`` and ``retrieval``, the
transports) do not import each other. The tools (``evaluation``, ``bench``) share
freely.
"""

from __future__ import annotations

import ast
from fnmatch import fnmatch
from pathlib import Path

from conftest import ROOT
from footnoted.stores import migrations, postgres_migrations
from footnoted.stores.schema import STEPS

PACKAGE = ROOT / "src" / "footnoted"
BASE = ("models", "records", "errors", "settings", "outbound", "lexical", "pages")
TIERS: tuple[tuple[str, ...], ...] = (
    BASE,
    ("stores",),
    ("loaders", "inference"),
    ("ingest", "retrieval"),
    ("answering",),
    ("service",),
    ("api", "cli", "mcp"),
    ("evaluation", "bench", "__main__"),
)
SHARING = {"evaluation", "bench", "__main__"}  # one group of tools: they import each other
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("footnoted", "footnoted.service"): (
        "the public face names Footnoted and AskResult, imported on first use"
    ),
    ("footnoted.cli.ask", "footnoted.api.wire"): (
        "footnoted ask reads a server's answers in the one wire format"
    ),
    ("footnoted.mcp.local", "footnoted.api.wire"): (
        "the local MCP tool answers in the one wire format, as the server does"
    ),
    ("footnoted.api.mcp_http", "footnoted.mcp.tools"): "/mcp on the server serves the MCP tools",
    ("footnoted.cli.server", "footnoted.api.listener"): "footnoted serve starts the HTTP server",
    ("footnoted.cli.mcp", "footnoted.mcp.local"): "footnoted mcp starts the stdio MCP server",
    ("footnoted.cli.main", "footnoted.evaluation.cli"): "the CLI mounts footnoted eval",
    ("footnoted.cli.main", "footnoted.bench.cli"): "the CLI mounts footnoted bench",
}


def module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_of(p): p for p in PACKAGE.rglob("*.py")}


def known(target: str) -> str:
    """The module ``target`` names (a name imported from a module is that module)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target


def imports(module: str) -> list[tuple[str, int]]:
    """(module imported, line) for every import of ``footnoted`` in ``module``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            names = [known(f"{target}.{a.name}") or known(target) for a in node.names]
        elif isinstance(node, ast.Import):
            names = [known(a.name) for a in node.names]
        else:
            continue
        found += [(n, node.lineno) for n in names if n.startswith("footnoted") and n != module]
    return found


def place(module: str) -> tuple[int, str]:
    """(tier, package) of a module; the package's own ``__init__`` is the public face."""
    parts = module.split(".")
    if len(parts) == 1:
        return -1, "footnoted"
    for tier, packages in enumerate(TIERS):
        if parts[1] in packages:
            return tier, "base" if parts[1] in BASE else parts[1]
    raise AssertionError(f"{module} belongs to no layer: add its package to TIERS")


def allowed(module: str, target: str) -> bool:
    (tier, package), (their_tier, theirs) = place(module), place(target)
    if any(fnmatch(module, a) and fnmatch(target, b) for a, b in EXCEPTIONS):
        return True
    if package == theirs or their_tier == -1 or (module == "footnoted" and their_tier == 0):
        return True
    if their_tier == tier:
        return package in SHARING and theirs in SHARING
    return their_tier < tier


def violations() -> list[str]:
    return [
        f"{MODULES[m].relative_to(ROOT)}:{line}: {m} imports {t}"
        for m in sorted(MODULES)
        for t, line in imports(m)
        if not allowed(m, t)
    ]


def test_every_import_keeps_the_layers() -> None:
    assert violations() == []


def test_every_exception_is_still_needed() -> None:
    """A named exception that no import needs any more goes from the list."""
    used = {(m, t) for m in MODULES for t, _ in imports(m)}
    stale = [pair for pair in EXCEPTIONS if pair not in used]
    assert stale == []


def test_a_core_module_importing_a_transport_is_caught() -> None:
    """The check itself: an import the order forbids is reported, wherever it sits."""
    assert not allowed("footnoted.answering.pipeline", "footnoted.api.wire")
    assert not allowed("footnoted.inference.reader", "footnoted.loaders.blocks")
    assert not allowed("footnoted.stores.contract", "footnoted.inference.embedding")
    assert allowed("footnoted.evaluation.cli", "footnoted.cli.errors")


def test_the_top_level_holds_at_most_eight_modules() -> None:
    loose = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert len(loose) <= 8 and set(loose) <= {*BASE, "retrieval"}, loose


def test_every_dialect_registers_every_schema_step() -> None:
    """One shared list of schema steps; each dialect has a migration (or a reason for
    none) for every one, in the same order."""
    for dialect in (migrations.MIGRATIONS, postgres_migrations.MIGRATIONS):
        assert dialect.names() == list(STEPS), dialect.dialect
        assert [name for name, _ in dialect.ordered()] == list(STEPS)
