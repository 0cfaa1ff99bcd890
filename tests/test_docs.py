"""Documentation stays true: every setting documented, public surface explicit, and the
README and docs/ pages link to what exists, name real commands and real settings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote

import typer.main
from markdown_it import MarkdownIt
from markdown_it.token import Token
from typer.core import TyperGroup

import footnoted
from conftest import ROOT
from footnoted.cli import app
from footnoted.settings import Settings

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BLOCKS = {"", "bash", "sh", "shell", "console"}  # fences whose lines are commands
# Variables named in the docs that are not settings: scripts/demo reads these itself
# (docs/development.md says so); footnoted's Settings never sees them.
NOT_SETTINGS = {"FOOTNOTED_DEMO_HOST", "FOOTNOTED_DEMO_PORT", "FOOTNOTED_DEMO_SETUP"}

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
# `footnoted` where a shell reads a command: a line's start (after a `$ ` prompt), after
# a pipe, `&&`, `||`, `;` or `$(`, also as a path (`.venv/bin/footnoted`).
_COMMAND = re.compile(r"(?:^|[|;&(])\s*(?:\$\s+)?(?:[\w.~/-]*/)?footnoted(?=\s|$)")
_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "&"}
_VARIABLE = re.compile(r"\bFOOTNOTED_[A-Z0-9_]+\*?")


def tokens(page: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(page.read_text())


def inline_children(page: Path) -> Iterator[Token]:
    for token in tokens(page):
        yield from token.children or ()


def heading_text(inline: Token) -> str:
    """A heading's text as GitHub renders it: markup gone, code spans' text kept."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    stream = tokens(page)
    for opening, inline in pairwise(stream):
        if opening.type != "heading_open":
            continue
        base = slug(heading_text(inline))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")  # GitHub numbers repeats
    return found


def links(page: Path) -> Iterator[str]:
    for child in inline_children(page):
        target = child.attrs.get("href") if child.type == "link_open" else None
        if child.type == "image":
            target = child.attrs.get("src")
        if isinstance(target, str):
            yield target


def broken_links(page: Path) -> list[str]:
    """The page's relative links whose file (or heading) is missing."""
    broken = []
    for target in links(page):
        if _SCHEME.match(target) or target.startswith("//"):
            continue  # another site
        path, _, anchor = target.partition("#")
        file = (page.parent / unquote(path)).resolve() if path else page
        where = f"{page.relative_to(ROOT)}: ({target})"
        if not file.exists() or not file.is_relative_to(ROOT):
            broken.append(f"{where} names no file in the repository")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{where}: {file.name} has no heading #{anchor}")
    return broken


def shell_lines(page: Path) -> Iterator[str]:
    """Every line of the page's shell code blocks, and every inline code span that
    starts with ``footnoted ``: the commands a reader would type."""
    stream = tokens(page)
    for token in stream:
        if token.type == "fence" and token.info.split(" ")[0] in SHELL_BLOCKS:
            yield from token.content.splitlines()
        for child in token.children or ():
            if child.type == "code_inline" and child.content.startswith("footnoted "):
                yield child.content


def commands(line: str) -> Iterator[list[str]]:
    """The words after each ``footnoted`` a shell would run in ``line`` (up to the
    next operator; comments dropped)."""
    line = re.sub(r"(^|\s)#.*", "", line)
    for match in _COMMAND.finditer(line):
        words = []
        for word in line[match.end() :].split():
            if word in _OPERATORS:
                break
            words.append(word)
        yield words


def is_placeholder(word: str) -> bool:
    """``COMMAND``, ``…``: the docs' stand-ins, not names; and options."""
    return word.startswith("-") or word.isupper() or "…" in word or "..." in word


def unknown_commands(words: list[str], group: TyperGroup) -> list[str]:
    """What of ``footnoted WORDS…`` the CLI does not know; ``a|b`` lists alternatives."""
    if not words or is_placeholder(words[0]):
        return []
    unknown = []
    for name in words[0].split("|"):
        command = group.commands.get(name)
        if command is None:
            unknown.append(name)
        elif isinstance(command, TyperGroup):
            unknown += [f"{name} {n}" for n in unknown_commands(words[1:], command)]
    return unknown


def cli() -> TyperGroup:
    """The CLI's own parser: its commands, and each group's subcommands."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    return group


def test_every_setting_is_documented() -> None:
    doc = (ROOT / "docs" / "settings.md").read_text()
    for name in Settings.model_fields:
        assert f"`FOOTNOTED_{name.upper()}`" in doc, f"FOOTNOTED_{name.upper()} is undocumented"


def test_public_api_is_explicit() -> None:
    assert sorted(footnoted.__all__) == footnoted.__all__
    for name in footnoted.__all__:
        assert hasattr(footnoted, name), name


def test_readme_opens_with_the_two_commands() -> None:
    head = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert "make demo" in head
    assert "make test" in head


def test_every_integration_has_a_page_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    for page in ("openai", "langchain", "llm", "mcp", "open-webui"):
        assert (ROOT / "docs" / f"{page}.md").is_file(), page
        assert f"(docs/{page}.md)" in readme, f"README does not link docs/{page}.md"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    for page in PAGES[1:]:
        assert f"(docs/{page.name})" in readme, f"README does not link docs/{page.name}"


def test_relative_links_point_at_files_and_headings_that_exist() -> None:
    broken = [problem for page in PAGES for problem in broken_links(page)]
    assert not broken, "\n".join(broken)


def test_the_slugs_are_githubs() -> None:
    assert slug("Measured (2 CPU cores, shared)") == "measured-2-cpu-cores-shared"
    assert slug("2. PostgreSQL and several workers") == "2-postgresql-and-several-workers"
    assert slug("The `llm` CLI") == "the-llm-cli"
    assert "use" in anchors(ROOT / "README.md")


def test_every_footnoted_command_in_the_docs_is_a_real_one() -> None:
    group = cli()
    wrong = [
        f"{page.relative_to(ROOT)}: footnoted {name!r} in {line.strip()!r}"
        for page in PAGES
        for line in shell_lines(page)
        for words in commands(line)
        for name in unknown_commands(words, group)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_command_check_sees_commands_where_a_shell_does() -> None:
    group = cli()
    assert list(commands('echo "x" | footnoted ask - # comment')) == [["ask", "-"]]
    assert list(commands("$ .venv/bin/footnoted db migrate")) == [["db", "migrate"]]
    assert list(commands("pip install footnoted && footnoted serve")) == [["serve"]]
    both = [["docs", "list"], ["ask", "-"]]
    assert list(commands("footnoted docs list | footnoted ask -")) == both
    assert list(commands("llm -m footnoted 'a question'")) == []
    assert unknown_commands(["eval", "squad|beir"], group) == []
    assert unknown_commands(["bench", "index", "--size", "5"], group) == []
    assert unknown_commands(["docs", "lst"], group) == ["docs lst"]
    assert unknown_commands(["serv"], group) == ["serv"]
    assert unknown_commands(["COMMAND", "--help"], group) == []


def test_every_footnoted_variable_in_the_docs_is_a_setting() -> None:
    settings = {f"FOOTNOTED_{name.upper()}" for name in Settings.model_fields}
    unknown = []
    for page in PAGES:
        for name in sorted(set(_VARIABLE.findall(page.read_text()))):
            if name.endswith("*"):  # `FOOTNOTED_LLM_*`: a family of settings
                known = any(s.startswith(name[:-1]) for s in settings)
            else:
                known = name in settings or name in NOT_SETTINGS
            if not known:
                unknown.append(f"{page.relative_to(ROOT)}: {name}")
    assert not unknown, "\n".join(unknown)


_FOOTNOTE = re.compile(r"[¹²³⁴⁵⁶⁷⁸⁹⁰]")


def table_rows(page: Path) -> dict[str, list[str]]:
    """Every table body row of ``page``, by its first cell: the other cells' markdown
    (footnote marks left out)."""
    rows: dict[str, list[str]] = {}
    cells: list[str] = []
    body = False
    for token in tokens(page):
        if token.type in ("tbody_open", "tbody_close"):
            body = token.type == "tbody_open"
        elif body and token.type == "tr_open":
            cells = []
        elif body and token.type == "inline":
            cells.append(_FOOTNOTE.sub("", token.content).strip())
        elif body and token.type == "tr_close" and cells:
            rows[cells[0]] = cells[1:]
    return rows


def test_the_readmes_quality_rows_are_the_quality_pages() -> None:
    """The README's measured table repeats docs/quality.md's: same measures, the same
    numbers now and the same targets, so the two cannot drift apart."""
    readme = table_rows(ROOT / "README.md")
    quality = table_rows(ROOT / "docs" / "quality.md")
    shared = [measure for measure in readme if measure in quality]
    assert len(shared) >= 13, shared
    for measure in shared:
        measured, target = readme[measure]
        _before, now, wanted = quality[measure]
        assert (measured, target) == (now, wanted), measure
