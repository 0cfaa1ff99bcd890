"""A model's Markdown made safe by parsing it (``answering/safe_markdown.py``): every
hostile form of :mod:`hostile` comes out with no live script or link, whole or streamed
token by token, and what a model writes for people (emphasis, lists, code, markers,
links to the sources) comes out as it was."""

from __future__ import annotations

import random

import pytest

from footnoted.answering.llm import markdown as safe_markdown
from footnoted.answering.llm.markdown import SafeMarkdown, SafeStream, escape_all
from hostile import FORMS, live_links

OK = "https://docs.example/ok"


@pytest.fixture(autouse=True)
def no_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safe_markdown, "PACE_S", 0.0)  # every token is a chance to send


def stream(text: str, sources: int = 3, urls: tuple[str, ...] = (), seed: int = 0) -> list[str]:
    """The states a client sees while ``text`` streams in pieces of 1 to 6 characters."""
    rnd = random.Random(seed)
    cleaner = SafeStream(sources, urls)
    states, sent = [], ""
    at = 0
    while at < len(text):
        step = rnd.randint(1, 6)
        sent += cleaner.feed(text[at : at + step])
        states.append(sent)
        at += step
    sent += cleaner.flush()
    assert sent == cleaner.text  # what was streamed is the answer
    return [*states, sent]


def test_the_corpus_is_hostile() -> None:
    """Each form, as the model wrote it, is a live script or link in a renderer (all but
    four encodings that these renderers leave dead, kept because others may not)."""
    live = [form for form in FORMS if live_links(form)]
    assert len(FORMS) >= 60 and len(live) >= 60


@pytest.mark.parametrize("form", FORMS)
def test_no_form_survives_whole(form: str) -> None:
    out, _ = SafeMarkdown(3, [OK]).render(f"Refunds take 10 days [1].\n\n{form}\n\nDone [2].")
    assert live_links(out) == [], out
    assert "Refunds take 10 days [1]." in out


@pytest.mark.parametrize("form", FORMS)
def test_no_form_survives_streamed_in_pieces(form: str) -> None:
    text = f"Refunds take 10 days [1]. {form} and more text after it [2].\n\n{form}"
    for seed in range(3):
        for state in stream(text, urls=(OK,), seed=seed):
            assert live_links(state) == [], state


def test_all_forms_at_once_streamed() -> None:
    text = "\n\n".join(FORMS)
    states = stream(text, urls=(OK,))
    assert all(live_links(s) == [] for s in states)


def test_people_markdown_comes_out_as_written() -> None:
    text = (
        "Annual plans are refunded in **full** within 30 days [1].\n\n"
        "The policy covers:\n\n1. *Refunds*: annual plans [1].\n2. Access until the end [2].\n"
        "3. Data kept for `60 days`.\n\n- one\n- two\n\n```\ncode [x](y)\n```\n\nThat is all [3]."
    )
    final = stream(text)[-1]
    assert final == text


def test_markers_are_renumbered_densely_in_order_of_first_use() -> None:
    renumbered = stream("A [3]. B [1][3]. C [2-3]. D [1, 2].")[-1]
    assert renumbered == "A [1]. B [2][1]. C [3][1]. D [2][3]."
    assert stream("Kept for 60 days [2]. More [99].")[-1] == "Kept for 60 days [1]. More."


def test_a_partial_marker_or_link_is_never_sent_before_it_is_complete() -> None:
    states = stream("Kept for 60 days [2]. See [the doc](https://evil.example/a) too.", seed=4)
    assert not any(s.endswith("[") or "evil" in s for s in states)
    assert states[-1] == "Kept for 60 days [1]. See the doc too."


def test_only_links_to_the_sources_stay() -> None:
    text = (
        "See [x](https://evil.example/a) and ![i](http://evil.example/i.png) or "
        "https://evil.example/raw and [doc](https://docs.example/ok) <https://evil.example>."
    )
    final = stream(text, urls=(OK, "javascript:alert(1)"))[-1]
    assert "evil" not in final
    assert final == "See x and or and [doc](https://docs.example/ok)."


def test_a_text_no_rendering_can_make_safe_is_escaped_whole() -> None:
    assert escape_all("[a](b) <c>") == "\\[a\\]\\(b\\) \\<c\\>"
    assert live_links(escape_all("\n\n".join(FORMS))) == []
