"""Hostile Markdown a model may write, and what a renderer makes of a text.

:data:`FORMS` starts from the six forms found live (a titled link, a nested link, an
autolink, an entity-encoded scheme, a reference definition, a ``data:`` link) and adds
the link and script forms of OWASP's XSS filter evasion cheat sheet as Markdown and raw
HTML can carry them. :func:`live_links` renders a text with two CommonMark renderers
that keep whatever they are given (cmark-gfm, GitHub's C implementation, in its unsafe
mode; markdown-it-py with every link scheme let through) and returns every address or
script that would be live in the HTML.
"""

from __future__ import annotations

import html
import re

import cmarkgfm
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

J = "javascript:alert(1)"
FORMS: list[str] = [
    # the six found live
    f'[j]({J} "t")',
    f"[a [b]({J}) c]()",
    f"<{J}>",
    "[j](java&#x73;cript:alert(1))",
    f"[r]: {J}\n\n[r]",
    "[j](data:text/html,<script>alert(1)</script>)",
    # case, spacing, brackets and escapes
    "[j](JaVaScRiPt:alert(1))",
    f"[j](  {J}  )",
    f"[j](<{J}>)",
    f"[j]({J} 'title')",
    f"[j]({J} (title))",
    "[j](javascript:alert\\(1\\))",
    f"[j]({J}#https://ok.example/doc)",
    f"[\\[j\\]]({J})",
    f"[j](\n{J}\n)",
    f'[j]({J}\n"t")',
    # entities and percent-encoding in the scheme
    "[j](javascript&#58;alert(1))",
    "[j](javascript&colon;alert(1))",
    "[j](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
    "[j](&#x6A;avascript:alert(1))",
    "[j](jav&#x09;ascript:alert(1))",
    "[j](jav&#x0A;ascript:alert(1))",
    "[j](java%73cript:alert(1))",
    "[j](%6A%61%76%61script:alert(1))",
    # other schemes
    "[j](vbscript:msgbox(1))",
    "[j](VBScript:msgbox(1))",
    "[j](file:///etc/passwd)",
    "[j](DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<vbscript:msgbox(1)>",
    "<data:text/html,x>",
    "<file:///etc/passwd>",
    # images
    f"![i]({J})",
    "![i](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    f"[![a](https://ok.example/doc)]({J})",
    # references in every shape
    f"[j][ref]\n\n[ref]: {J}",
    f'[ref][]\n\n[ref]: {J} "t"',
    f"[ref]\n\n[REF]: <{J}>",
    f"- [foo]\n\n[foo]: {J}",
    f"[1]: {J}\n\nRefunds take 10 days [1].",
    f"Refunds [1].\n\n   [1]:\n   {J}",
    # markers as link text
    f"Refunds take 10 days [1]({J}).",
    f"[[1]]({J})",
    # containers
    f"> [j]({J})",
    f"# [j]({J})",
    f"*[j]({J})*",
    f"1. [j]({J})\n2. ok",
    f"| h |\n|---|\n| [j]({J}) |",
    f"| a | b |\n|---|---|\n| `x | [j]({J}) | y` |",
    f"[ok](https://ok.example/doc)[k]({J})",
    # raw HTML (OWASP)
    '<a href="javascript:alert(1)">x</a>',
    "<a href=javascript:alert(1)>x</a>",
    '<a href="&#x6A;avascript:alert(1)">x</a>',
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    '<iframe src="javascript:alert(1)"></iframe>',
    "<script>alert(1)</script>",
    "<IMG SRC=\"jav&#x09;ascript:alert('XSS');\">",
    '<div>\n<a href="javascript:alert(1)">x</a>\n</div>',
    '<details open ontoggle="alert(1)">',
    '<math><a xlink:href="javascript:alert(1)">x</a></math>',
    "<body onload=alert(1)>",
    '<object data="javascript:alert(1)">',
    '<form action="javascript:alert(1)"><button>x</button></form>',
    "<!-- --><script>alert(1)</script>",
    "<style>@import 'javascript:alert(1)';</style>",
    f'[j]({J} "t")' + "<b onmouseover=alert(1)>x</b>",
]
BAD_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
_ATTRS = ("href", "src", "action", "formaction", "data", "xlink:href", "background")
_SCRIPTED = ("script", "iframe", "object", "embed", "svg", "math", "style", "form", "details")


def _markdown_it() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable(["table", "linkify"])
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


MARKDOWN_IT = _markdown_it()


def rendered(markdown: str) -> list[str]:
    """The HTML of ``markdown`` from both renderers."""
    gfm = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return [gfm, MARKDOWN_IT.render(markdown)]


def live_links(markdown: str) -> list[str]:
    """Every hostile address, script element or event handler the HTML of ``markdown``
    would hold in either renderer."""
    found: list[str] = []
    for page in rendered(markdown):
        for node in LexborHTMLParser(page).css("*"):
            if node.tag in _SCRIPTED:
                found.append(f"<{node.tag}>")
            for name, value in node.attributes.items():
                if name.lower().startswith("on"):
                    found.append(f"{name}=")
                if name.lower() in _ATTRS and value is not None:
                    target = re.sub(r"[\x00-\x20]", "", html.unescape(value)).lower()
                    if target.startswith(BAD_SCHEMES):
                        found.append(f"{name}={value}")
    return found
