"""A model's Markdown made safe by parsing it: only ``http(s)`` links to the sources live.

Whatever a model writes reaches clients that render Markdown (Open WebUI, LangChain apps,
MCP hosts, the Markdown export), so a link it writes is a link they show. Patterns cannot
know every form CommonMark gives a link (a title, nesting, an autolink, a reference
definition, an entity-encoded scheme, raw HTML), so the text is parsed with a CommonMark
parser (markdown-it-py, with GFM tables and strikethrough, and bare URLs recognised as
links) and written out again (mdformat's renderer):

- a link whose target is one of the answer's sources' ``http(s)`` URLs stays; any other
  becomes its text, and an autolink or bare URL to anywhere else goes;
- an image stays only when it is one of those URLs; raw HTML becomes escaped text;
- ``[N]`` markers are renumbered densely in order of first use, numbers that name no
  source dropped (:class:`Markers`);
- the result is parsed again and checked (:func:`unsafe`): no link, image or HTML other
  than those may come out, and a text that fails is written with every ASCII punctuation
  mark escaped instead, which no renderer turns into anything.

:class:`SafeStream` does this while tokens arrive: it sends the rendering of the text so
far up to a word boundary, once the rendering of that text no longer depends on what may
follow (closing an emphasis, a code span or a link would not change it) and the whole
of what was sent passes the check. Every state a client sees is checked text.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdformat.renderer import DEFAULT_RENDERERS, MDRenderer, RenderContext, RenderTreeNode

from ...lexical import MARKER
from ..citations import marker_numbers

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_SPACE_BEFORE_MARK = re.compile(r"[ \t]+([.,;:!?])")
PACE_S = 0.05  # the least time between two renderings while tokens stream


def escape_all(text: str) -> str:
    """Every ASCII punctuation mark backslash-escaped: CommonMark text with no structure."""
    return _PUNCTUATION.sub(r"\\\1", text)


class _Parser(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        return True  # every link is seen as one, whatever its scheme: this module judges


def _parser(renderer: type[Any] = RendererHTML) -> MarkdownIt:
    md = _Parser("commonmark", {"html": True, "linkify": True}, renderer_cls=renderer)
    md.enable(["table", "strikethrough", "linkify"]).disable("lheading")
    return md


@dataclass(slots=True)
class Markers:
    """``[N]`` renumbering: original source numbers in order of first use."""

    sources: int
    order: list[int] = field(default_factory=list)

    def rewrite(self, text: str) -> str:
        return MARKER.sub(self._marker, text)

    def _marker(self, m: re.Match[str]) -> str:
        out: list[str] = []
        for n in marker_numbers(m.group(1)):
            if not 1 <= n <= self.sources:
                continue
            if n not in self.order:
                self.order.append(n)
            new = f"[{self.order.index(n) + 1}]"
            if new not in out:
                out.append(new)
        return "".join(out)


class SafeMarkdown:
    """Renders model Markdown with only the allowed links; see the module's docstring."""

    def __init__(self, sources: int, allowed_urls: Sequence[str] = ()) -> None:
        self.sources = sources
        self._md = _parser(MDRenderer)
        self._md.options["mdformat"] = {"wrap": "keep", "number": True}
        self._md.options["store_labels"] = True  # a reference link's label, in its meta
        self._md.options["parser_extension"] = [self]
        self._md.options["codeformatters"] = {}
        self._md.core.ruler.push("footnoted_links", self._keep_allowed)
        self._check = _parser()
        normalise = self._md.normalizeLink
        self.allowed = {
            normalise(u): u for u in allowed_urls if u.lower().startswith(("http://", "https://"))
        }
        self.RENDERERS: Mapping[str, Any] = {
            "text": self._text,
            "link": self._link,
            "image": self._image,
            "html_inline": _html_inline,
            "html_block": _html_block,
            "bullet_list": _list,
            "ordered_list": _list,
            "s": _strikethrough,
            "table": _table,
        }
        self.POSTPROCESSORS: Mapping[str, Any] = {}
        self._markers = Markers(sources)

    def render(
        self, text: str, order: Sequence[int] = (), *, check: bool = True
    ) -> tuple[str, list[int]]:
        """``text`` made safe, and the source numbers in order of first use (continuing
        ``order``). Ends without a newline. ``check=False`` skips the check (a rendering
        only compared, never sent)."""
        self._markers = Markers(self.sources, list(order))
        out = self._md.render(text).rstrip("\n")
        if check and self.unsafe(out):
            self._markers = Markers(self.sources, list(order))
            out = escape_all(self._markers.rewrite(text).strip())
        return out, self._markers.order

    def blocks(self, text: str) -> list[int]:
        """The line each top-level block of ``text`` starts on."""
        return [
            t.map[0]
            for t in self._check.parse(text)
            if t.level == 0 and t.nesting >= 0 and t.map is not None
        ]

    def unsafe(self, text: str) -> bool:
        """Whether a renderer would make anything of ``text`` but the allowed links."""
        env: MutableMapping[str, Any] = {}
        tokens = self._check.parse(text, env)
        if env.get("references"):
            return True
        return any(self._forbidden(t) for t in _walk(tokens))

    def _forbidden(self, token: Token) -> bool:
        if token.type in ("html_inline", "html_block"):
            return True
        if token.type == "link_open":
            return str(token.attrGet("href")) not in self.allowed
        if token.type == "image":
            return str(token.attrGet("src")) not in self.allowed
        return False

    def _keep_allowed(self, state: StateCore) -> None:
        """A parser rule: links to anywhere but the sources become their text (autolinks
        and bare URLs go), images elsewhere go, and the spaces they leave are closed."""
        state.env.pop("references", None)  # the model's definitions: none is written out
        for block in state.tokens:
            if block.type == "inline" and block.children:
                block.children = _trimmed(_joined_text(self._allowed_only(block.children)))

    def _allowed_only(self, tokens: list[Token]) -> list[Token]:
        """Links kept, unwrapped or dropped whole; a reference link unwrapped keeps its
        brackets (``[1]`` after a model's ``[1]: …`` definition stays a marker)."""
        out: list[Token] = []
        links: list[str] = []  # per open link: "keep", "unwrap", "bracket" or "drop" it
        for token in tokens:
            if token.type == "link_open":
                links.append(self._fate(token))
                if links[-1] == "keep" and "drop" not in links:
                    out.append(token)
                elif links[-1] == "bracket" and "drop" not in links:
                    out.append(_text("["))
            elif token.type == "link_close":
                fate = links.pop()
                if "drop" not in links and fate in ("keep", "bracket"):
                    out.append(token if fate == "keep" else _text("]"))
            elif "drop" in links:
                continue
            elif token.type != "image" or str(token.attrGet("src")) in self.allowed:
                out.append(token)
        return out

    def _fate(self, link: Token) -> str:
        if str(link.attrGet("href")) in self.allowed:
            return "keep"
        if link.info == "auto":
            return "drop"  # an autolink or bare URL: its text is the address
        return "bracket" if link.meta.get("label") else "unwrap"

    # -- renderers (mdformat's node -> Markdown) -------------------------------------------
    def _text(self, node: RenderTreeNode, context: RenderContext) -> str:
        token = node.token
        assert token is not None
        token.content = _SPACE_BEFORE_MARK.sub(r"\1", self._markers.rewrite(token.content))
        out: str = DEFAULT_RENDERERS["text"](node, context)
        return out

    def _link(self, node: RenderTreeNode, context: RenderContext) -> str:
        url = self.allowed[str(node.attrs["href"])]  # the parser rule kept no other
        if node.info == "auto":
            return f"<{url}>"
        label = "".join(child.render(context) for child in node.children)
        return f"[{label}]({_destination(url)})"

    def _image(self, node: RenderTreeNode, context: RenderContext) -> str:
        url = self.allowed[str(node.attrs["src"])]
        alt = escape_all("".join(c.content for c in node.children))
        return f"![{alt}]({_destination(url)})"


def _destination(url: str) -> str:
    """A link destination as written: in angle brackets only when it needs them."""
    return f"<{url}>" if re.search(r"[\s()<>]", url) else url


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _joined_text(tokens: list[Token]) -> list[Token]:
    """Neighbouring text tokens as one (a marker split by an unwrapped link is whole)."""
    out: list[Token] = []
    for token in tokens:
        if token.type == "text" and out and out[-1].type == "text":
            out[-1].content += token.content
        else:
            out.append(token)
    return out


def _trimmed(tokens: list[Token]) -> list[Token]:
    """Text tokens without the doubled spaces, or the spaces at either end of the line,
    that removed links leave."""
    for i, token in enumerate(tokens):
        if token.type != "text":
            continue
        before = tokens[i - 1].type if i else "softbreak"
        after = tokens[i + 1].type if i + 1 < len(tokens) else "softbreak"
        text = re.sub(r"[ \t]{2,}", " ", token.content)
        if before in ("softbreak", "hardbreak"):
            text = text.lstrip(" \t")
        if after in ("softbreak", "hardbreak"):
            text = text.rstrip(" \t")
        if i + 1 < len(tokens) and tokens[i + 1].type == "text" and text.endswith(" "):
            tokens[i + 1].content = tokens[i + 1].content.lstrip(" \t")
        token.content = text
    return tokens


def _html_inline(node: RenderTreeNode, context: RenderContext) -> str:
    out: str = DEFAULT_RENDERERS["text"](node, context)  # the tag, as text
    return out


def _html_block(node: RenderTreeNode, context: RenderContext) -> str:
    lines = (line.strip() for line in node.content.strip("\n").split("\n"))
    return "\n".join(escape_all(line) for line in lines)


def _walk(tokens: Sequence[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        out.append(token)
        if token.children:
            out.extend(_walk(token.children))
    return out


def _list(node: RenderTreeNode, context: RenderContext) -> str:
    """A list, its items one line apart and numbered in order (mdformat's own would pad
    numbers or space the items out once the list grows, changing what was sent)."""
    ordered = node.type == "ordered_list"
    start = node.attrs.get("start", 1) if ordered else 1
    delimiter = node.markup if node.markup in (".", ")") else "."
    items = []
    for i, item in enumerate(node.children):
        marker = f"{int(str(start)) + i}{delimiter}" if ordered else (node.markup or "-")
        indent = " " * (len(marker) + 1)
        with context.indented(len(indent)):
            lines = item.render(context).split("\n")
        first = f"{marker} {lines[0]}" if lines[0] else marker
        items.append("\n".join([first, *(indent + line if line else "" for line in lines[1:])]))
    return "\n".join(items)


def _strikethrough(node: RenderTreeNode, context: RenderContext) -> str:
    return "~~" + "".join(child.render(context) for child in node.children) + "~~"


def _table(node: RenderTreeNode, context: RenderContext) -> str:
    """A GFM pipe table; a cell's pipes are escaped, inside code spans too (as GFM reads
    them), so no cell can spill into the next."""
    rows: list[list[str]] = []
    for section in node.children:
        for row in section.children:
            cells = ["".join(c.render(context) for c in cell.children) for cell in row.children]
            rows.append([c.replace("\\|", "|").replace("|", "\\|") for c in cells])
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    lines.insert(1, "| " + " | ".join(["---"] * width) + " |")
    return "\n".join(lines)


# -- streaming -------------------------------------------------------------------------------

_CLOSERS = {
    "*": ("*", "**", "***"),
    "_": ("_", "__"),
    "`": ("`", "``", "```"),
    "~": ("~~",),
    "[": ("](#)", "]"),
    "<": (">",),
}


class SafeStream:
    """Model tokens in, safe Markdown out; what was sent is always what ends the answer.

    Only the last top-level block of the text can still change, so the blocks before it
    are rendered once and kept (``_frozen``): each step renders the last block alone."""

    def __init__(self, sources: int, allowed_urls: Sequence[str] = ()) -> None:
        self.markdown = SafeMarkdown(sources, allowed_urls)
        self._raw = ""
        self._sent_raw = 0  # the raw text the sent text is the rendering of
        self.text = ""  # everything sent so far
        self.order: list[int] = []  # source numbers in order of first use, as sent
        self._last = 0.0
        self._frozen: tuple[str, str, list[int]] = ("", "", [])  # raw, rendering, order

    def feed(self, token: str) -> str:
        self._raw += token
        now = time.monotonic()
        if now - self._last < PACE_S:
            return ""
        self._last = now
        cut = max(self._raw.rfind(" "), self._raw.rfind("\n"))
        if cut <= self._sent_raw:
            return ""
        return self._advance(cut)

    def flush(self) -> str:
        """The rest of the answer, once the model is done."""
        frozen, last_raw = self._split(self._raw)
        last, order = self.markdown.render(last_raw, frozen[2], check=False)
        whole = _joined(frozen[1], last)
        if whole.startswith(self.text) and not self.markdown.unsafe(whole):
            return self._send(whole, len(self._raw), order)
        # the end changed how the start reads (a table's delimiter row, say): what was sent
        # stands, and the rest is rendered on its own after a paragraph break
        tail, order = self.markdown.render(self._raw[self._sent_raw :], self.order)
        whole = _joined(self.text, tail)
        if self.markdown.unsafe(whole):
            markers = Markers(self.markdown.sources, list(self.order))
            tail = escape_all(markers.rewrite(self._raw[self._sent_raw :]).strip())
            whole, order = _joined(self.text, tail), markers.order
        return self._send(whole, len(self._raw), order)

    def _advance(self, cut: int) -> str:
        frozen, last_raw = self._split(self._raw[:cut])
        last, order = self.markdown.render(last_raw, frozen[2], check=False)
        if not self._settled(last_raw, last, frozen[2]):
            return ""
        rendered = _joined(frozen[1], last)
        if not rendered.startswith(self.text) or self.markdown.unsafe(rendered):
            return ""
        return self._send(rendered, cut, order)

    def _split(self, raw: str) -> tuple[tuple[str, str, list[int]], str]:
        """The rendered blocks before the last one, and the last one's raw text."""
        starts = self.markdown.blocks(raw)
        prefix = "".join(raw.splitlines(keepends=True)[: starts[-1]]) if len(starts) > 1 else ""
        if prefix != self._frozen[0]:
            self._frozen = (prefix, *self.markdown.render(prefix, check=False))
        return self._frozen, raw[len(prefix) :]

    def _settled(self, raw: str, rendered: str, order: list[int]) -> bool:
        """Whether text that closes what ``raw`` leaves open would render it the same;
        only its last paragraph can be open."""
        last = raw[raw.rfind("\n\n") + 1 :]
        for opener, closers in _CLOSERS.items():
            if opener not in last:
                continue
            for closer in closers:
                closed, _ = self.markdown.render(raw + closer, order, check=False)
                if not closed.startswith(rendered):
                    return False
        return "|" not in last  # a table row waits for the line after it

    def _send(self, rendered: str, raw_end: int, order: list[int]) -> str:
        out = rendered[len(self.text) :]
        self.text, self._sent_raw, self.order = rendered, raw_end, order
        return out


def _joined(head: str, tail: str) -> str:
    return f"{head}\n\n{tail}" if head and tail else head or tail
