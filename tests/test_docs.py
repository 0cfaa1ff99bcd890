"""Documentation stays true: every setting documented, public surface explicit."""

from __future__ import annotations

import footnoted
from conftest import ROOT
from footnoted.settings import Settings


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
