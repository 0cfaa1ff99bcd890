"""``footnoted ask``: one question, answered by a running server or in this process.

The answer (or the refusal) goes to standard output, a one-line summary to standard
error. Exit status: 0 answered, 3 refused, 1 an error, 2 a usage error.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..answering.question import Question
from ..errors import FootnotedError
from ..service.facade import Footnoted
from ..settings import Settings
from .errors import failure
from .remote import ask_server, cli_token, running_server
from .render import AnswerPrinter

REFUSED = 3  # exit status of a refusal: the documents do not hold the answer

out = Console()
err = Console(stderr=True)


def ask(
    question: Annotated[
        str | None,
        typer.Argument(
            metavar="QUESTION",
            show_default=False,
            help="Your question; - (or none, with input piped in) reads it from standard input.",
        ),
    ] = None,
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", metavar="NAME", help="Collection (knowledge base)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON answer object.")] = False,
    server: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Ask this footnoted server (default: FOOTNOTED_SERVER, else the server "
            "running on this home, else answer here, loading the model).",
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            metavar="TOKEN",
            help="API token for the server (default: FOOTNOTED_TOKEN, else this home's own).",
        ),
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="Answer in this process even when a server runs.")
    ] = False,
) -> None:
    """Answer a question from the documents, with footnotes — or refuse.

    Prints the answer, then a one-line summary on standard error. Exit status: 0
    answered, 3 refused (the documents do not hold the answer), 1 an error, 2 a usage
    error.
    """
    text = read_question(question)
    began = time.monotonic()
    try:
        settings = Settings()
        url = None if local else server or settings.server or running_server(settings.home)
        if url:
            payload = _remote(settings, url, token or settings.token, text, collection)
            _print(payload, as_json)
        else:
            payload = _local(settings, text, collection, as_json)
    except FootnotedError as exc:
        raise failure(err, exc) from exc
    _summary(payload, f"server {url}" if url else "in this process", time.monotonic() - began)


def read_question(question: str | None) -> str:
    """The argument, or standard input for ``-`` (or no argument, with input piped in)."""
    if question is not None and question != "-":
        return question
    if question is None and (sys.stdin is None or sys.stdin.isatty()):
        raise typer.BadParameter(
            "give a question, or - to read it from standard input", param_hint="QUESTION"
        )
    return sys.stdin.read() if sys.stdin is not None else ""


def _remote(
    settings: Settings, url: str, token: str | None, question: str, collection: str | None
) -> dict[str, Any]:
    try:
        return ask_server(url, token or cli_token(settings), question, collection)
    except FootnotedError as exc:
        if exc.status != 401:
            raise
        if token:
            exc.message += " (check --token or FOOTNOTED_TOKEN)"
            raise
    # The home's token was revoked, or issued by another database: issue a new one.
    return ask_server(url, cli_token(settings, renew=True), question, collection)


@contextmanager
def _service(settings: Settings) -> Iterator[Footnoted]:
    with err.status("Loading the models (footnoted serve keeps them loaded)…"):
        fn = Footnoted(settings)
        try:
            fn.warm_up()
        except BaseException:
            fn.close()
            raise
    with fn:
        yield fn


def _local(
    settings: Settings, question: str, collection: str | None, as_json: bool
) -> dict[str, Any]:
    """Answer here; returns the answer object (only its type and references when streamed)."""
    from ..answering.citations import sources_block
    from ..api.wire import answer_here, refusal_payload
    from ..models import Delta, Failed, Notice, Refusal, Sources

    with _service(settings) as fn:
        if as_json:
            payload = answer_here(fn, question, collection)
            _print(payload, as_json)
            return payload
        payload = {"type": "answer", "referenced_indices": []}
        streamed: list[str] = []
        printer = AnswerPrinter(out)
        closed = False  # the answer's end printed: at its sources, or at its end without them
        for event in fn.ask(Question(question, collection)):
            if isinstance(event, Refusal):
                fn.log_refusal(question, collection, event)
                payload = refusal_payload(event)
                _print(payload, as_json)
            elif isinstance(event, Notice):
                err.print(f"[dim]{escape(event.message)}[/dim]", highlight=False)
            elif isinstance(event, Failed):
                printer.close()
                out.print()
                raise FootnotedError(event.message, code=event.code)
            elif isinstance(event, Delta):
                streamed.append(event.text)
                printer.feed(event.text)
                sys.stdout.flush()
            elif isinstance(event, Sources):
                printer.close()
                out.print()
                closed = True
                payload["referenced_indices"] = list(event.referenced_indices)
                spans = [x.to_dict() for x in event.spans]
                _exact("".join(streamed), spans, event.grounding)
                if event.referenced_indices:
                    out.print("\n[bold]Sources[/bold]")
                    block = sources_block(event.citations, event.referenced_indices)
                    out.print(block, markup=False, highlight=False, soft_wrap=True)
        if streamed and not closed:  # citations off: no sources end the answer
            printer.close()
            out.print()
        return payload


def _print(payload: dict[str, Any], as_json: bool) -> None:
    """Print an answer object: as JSON, or as the answer and its Sources block."""
    from ..answering.citations import sources_block
    from ..models import Citation

    if as_json:
        out.print_json(json.dumps(payload, ensure_ascii=False))
        return
    if payload["type"] == "refusal":
        out.print(f"[yellow]{escape(payload['message'])}[/yellow]", highlight=False, soft_wrap=True)
        return
    for key in ("warning", "notice"):
        if payload.get(key):
            err.print(f"[dim]{escape(payload[key])}[/dim]", highlight=False)
    printer = AnswerPrinter(out, _exact_range(payload.get("spans") or []))
    printer.feed(payload["answer"])
    printer.close()
    out.print()
    _exact(payload["answer"], payload.get("spans") or [], payload.get("grounding"))
    referenced = payload.get("referenced_indices") or []
    if referenced:
        citations = [Citation.from_dict(c) for c in payload["citations"]]
        out.print("\n[bold]Sources[/bold]")
        block = sources_block(citations, referenced)
        out.print(block, markup=False, highlight=False, soft_wrap=True)


def _exact_range(spans: list[dict[str, Any]]) -> tuple[int, int] | None:
    lead = next((s for s in spans if s.get("exact_start") is not None), None)
    return None if lead is None else (lead["exact_start"], lead["exact_end"])


_LABELS = {  # how each label reads on the terminal (docs/api.md says what each means)
    "grounded": ("grounded", "green"),
    "partly": ("partly grounded, check the quote", "dim"),
    "weak": ("weak evidence", "yellow"),
}


def _exact(
    text: str, spans: list[dict[str, Any]], grounding: Mapping[str, float | str] | None
) -> None:
    """``Answer: …`` (the exact answer) and how the answer is shown: its label
    (``grounding.label``) and confidence. A grounded answer with no exact span, such as
    a comparison's, needs no line."""
    where = _exact_range(spans)
    label = None if grounding is None else grounding.get("label")
    confidence = None if grounding is None else grounding.get("confidence")
    if not isinstance(label, str) or (where is None and label == "grounded"):
        return
    line = Text("\n")
    if where is not None:
        line.append("Answer: ", style="bold")
        line.append(text[where[0] : where[1]] + "  ")
    share = f": confidence {confidence:.0%}" if isinstance(confidence, float | int) else ""
    words, style = _LABELS.get(label, _LABELS["weak"])
    line.append(f"({words}{share})", style=style)
    out.print(line, soft_wrap=True)


def _summary(payload: dict[str, Any], where: str, seconds: float) -> None:
    """One line on standard error, never wrapped at the terminal's width (a script reads
    it); a refusal exits with ``REFUSED``."""
    took = f"({where}, {seconds:.2f} s)"
    if payload["type"] == "refusal":
        ev = payload["evidence"]
        reason = ev.get("reason")
        why = [] if reason in (None, "below_threshold") else [reason]
        if reason == "unnamed" and ev.get("missing"):
            why = [f"unnamed ({', '.join(ev['missing'])})"]  # what the passages lack
        if ev.get("max_score") is not None:
            why.append(f"best match {ev['max_score']:.2f}")
        why.append(f"threshold {ev['threshold']:.2f}")
        err.print(f"refused: {', '.join(why)} {took}", highlight=False, soft_wrap=True)
        raise typer.Exit(REFUSED)
    n = len(payload.get("referenced_indices") or [])
    said = f"answered from {n} source{'' if n == 1 else 's'} {took}"
    err.print(said, highlight=False, soft_wrap=True)
