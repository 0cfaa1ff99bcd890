"""The command line, run as a real process against a real data directory."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console

from conftest import SAMPLES, write
from footnoted import Footnoted
from footnoted.cli import ask
from footnoted.cli.render import AnswerPrinter
from footnoted.settings import Settings


def run(home: Path, *args: str, stdin: str | int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "200"}
    feed = {"input": stdin} if isinstance(stdin, str) else {"stdin": stdin}
    return subprocess.run(
        [sys.executable, "-m", "footnoted", *args],
        capture_output=True, text=True, env=env, timeout=300, check=False, **feed,
    )  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli") / "home"
    result = run(home, "ingest", str(SAMPLES))
    assert result.returncode == 0, result.stderr
    assert "3 added" in result.stdout
    return home


def test_ingest_reports_bad_files_one_line_each(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "ok.txt", "This document is fine.")
    write(tmp_path / "docs" / "empty.md", "   \n")
    (tmp_path / "docs" / "bin.txt").write_bytes(b"\x00\x01\x02binary\x00" * 50)
    result = run(tmp_path / "home", "ingest", str(tmp_path / "docs"), str(tmp_path / "nope"))
    assert result.returncode == 1
    assert "1 added" in result.stdout and "3 failed" in result.stdout
    failures = [
        line for line in result.stderr.splitlines() if line.startswith(("failed", "missing"))
    ]
    assert len(failures) == 3
    assert any("empty.md" in f for f in failures)
    assert any("bin.txt" in f and "unsupported_type" in f for f in failures)
    assert any("nope" in f for f in failures)


def test_ask_prints_answer_then_sources_and_a_summary_on_stderr(home: Path) -> None:
    result = run(home, "ask", "How are annual plans refunded?")
    assert result.returncode == 0, result.stderr
    answer, _, sources = result.stdout.partition("Sources")
    assert "[1]" in answer and "refunded in full" in answer
    exact = re.search(
        r"^Answer: (.+?)  \((grounded|partly grounded, check the quote|weak evidence): "
        r"confidence \d+%\)$", answer, re.M,
    )  # fmt: skip
    assert exact is not None and exact.group(1) in answer.splitlines()[0]
    assert "1. Northwind Cloud Customer Handbook — Section" in sources
    summary = result.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"answered from \d sources? \(in this process, [\d.]+ s\)", summary)


def test_a_comparison_quotes_each_document_and_flags_what_the_reader_cannot_vouch_for(
    home: Path,
) -> None:
    result = run(
        home, "ask", "Do the Data Retention Policy and the Northwind Cloud Customer Handbook "
        "both say how long deleted files are kept?",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    answer, _, sources = result.stdout.partition("Sources")
    assert answer.startswith("Deleted files stay in the trash for 30 days. [1]")
    assert "Answer:" not in answer  # no span is the answer to a comparison
    assert re.search(r"^\((partly grounded, check the quote|weak evidence): confidence \d+%\)$",
                     answer, re.M), answer  # fmt: skip
    assert "1. Data Retention Policy" in sources
    assert "2. Northwind Cloud Customer Handbook" in sources


def test_a_refusal_exits_3_with_its_message_on_stdout(home: Path) -> None:
    result = run(home, "ask", "Who painted the Mona Lisa?")
    assert result.returncode == 3
    assert result.stdout.startswith("I couldn't find the answer to that in the documents")
    assert "\n" not in result.stdout.strip()  # one line, never wrapped at the terminal's width
    assert re.search(r"^refused: .*threshold 0\.35 \(in this process", result.stderr, re.M)


def test_the_summary_is_one_line_however_long(capsys: pytest.CaptureFixture[str]) -> None:
    refusal = {"type": "refusal", "evidence": {"reason": "unnamed", "missing": ["Uber"],
               "max_score": 0.6712, "threshold": 0.35}}  # fmt: skip
    with pytest.raises(typer.Exit) as stopped:
        ask._summary(refusal, "server http://127.0.0.1:8792", 0.09)
    assert stopped.value.exit_code == 3
    said = capsys.readouterr().err
    assert said == (
        "refused: unnamed (Uber), best match 0.67, threshold 0.35 "
        "(server http://127.0.0.1:8792, 0.09 s)\n"
    )  # not wrapped at 80 columns: a script reads it


@pytest.mark.parametrize("argv", [["ask", "-"], ["ask"]], ids=["dash", "no-argument"])
def test_ask_reads_the_question_from_stdin(home: Path, argv: list[str]) -> None:
    result = run(home, *argv, "--json", stdin="How long is data kept after an account is closed?\n")
    assert result.returncode == 0, result.stderr
    assert "60 days" in json.loads(result.stdout)["answer"]


def test_ask_without_a_question_at_a_terminal_is_a_usage_error(tmp_path: Path) -> None:
    primary, terminal = os.openpty()
    try:
        result = run(tmp_path / "home", "ask", stdin=terminal)
    finally:
        os.close(primary)
        os.close(terminal)
    assert result.returncode == 2
    assert "give a question, or - to read it from standard input" in result.stderr


def test_ask_json_prints_the_answer_object(home: Path) -> None:
    result = run(home, "ask", "How long is data kept after an account is closed?", "--json")
    payload = json.loads(result.stdout)
    assert payload["type"] == "answer"
    assert "60 days" in payload["answer"]
    assert payload["citations"][0]["document_title"] == "Data Retention Policy"
    assert payload["referenced_indices"][0] == 1


def test_ask_json_refusal(home: Path) -> None:
    result = run(home, "ask", "Who painted the Mona Lisa?", "--json")
    assert result.returncode == 3
    payload = json.loads(result.stdout)
    assert payload["type"] == "refusal"
    assert payload["suggestions"] == ["Rephrase your question"]
    assert payload["evidence"]["threshold"] == 0.35


def test_docs_disable_enable_and_errors(home: Path) -> None:
    listing = run(home, "docs", "list")
    assert "Data Retention Policy" in listing.stdout
    ids = [d["id"] for d in json.loads(run(home, "docs", "list", "--json").stdout)]
    assert len(ids) == 3
    assert run(home, "docs", "disable", ids[0]).returncode == 0
    assert run(home, "docs", "enable", ids[0][:10]).returncode == 0
    bad = run(home, "docs", "disable", "zzzz")
    assert bad.returncode == 1 and "matches 0 documents" in bad.stderr


def test_empty_question_is_a_clear_error(home: Path) -> None:
    result = run(home, "ask", "   ")
    assert result.returncode == 1
    assert "[empty_question]" in result.stderr


def test_help_reads_like_prose_on_every_command() -> None:
    """No ``<str>``/``<bool>``/``<int range>`` type tags: metavars, or nothing for flags."""
    from typer.main import get_command
    from typer.testing import CliRunner

    from footnoted.cli import app

    def paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
        yield path
        for name, sub in getattr(command, "commands", {}).items():
            yield from paths(sub, (*path, name))

    runner = CliRunner()
    seen = 0
    for path in paths(get_command(app)):
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        tags = re.findall(r"<[a-z_\[\]| ]+>", result.output)
        assert not tags, (path, tags)
        seen += 1
    assert seen > 20
    ask_help = runner.invoke(app, ["ask", "--help"], env={"COLUMNS": "200"}).output
    assert "--collection  -c      NAME" in ask_help and "3 refused" in ask_help


def test_an_interrupted_ingest_goes_on_where_it_stopped(tmp_path: Path) -> None:
    import signal
    import sqlite3
    import time

    docs = tmp_path / "docs"
    for i in range(400):
        body = " ".join(f"Ledger {i} line {j} records the orchard's harvest." for j in range(30))
        write(docs / f"ledger-{i:03d}.md", f"# Ledger {i}\n\n{body}\n")
    home = tmp_path / "home"
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "200"}
    # Ctrl-C's default: a shell ignores SIGINT in the jobs it starts in the background
    # (as CI may run this), and the child would inherit that and never be interrupted
    proc = subprocess.Popen(
        [sys.executable, "-m", "footnoted", "ingest", str(docs)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip

    def stored() -> int:
        try:
            with sqlite3.connect(home / "footnoted.db") as db:
                return int(db.execute("SELECT count(*) FROM documents").fetchone()[0])
        except sqlite3.Error:
            return 0

    deadline = time.monotonic() + 240
    while stored() == 0 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, errors = proc.communicate(timeout=120)
    before = stored()
    assert proc.returncode == 130, (out, errors)
    assert 0 < before < 400
    assert f"Interrupted: {before} of 400 files are stored" in " ".join(errors.split())

    again = run(home, "ingest", str(docs))
    assert again.returncode == 0, again.stderr
    assert f"{400 - before} added, 0 replaced, {before} unchanged, 0 failed" in again.stdout
    assert "files/s" in again.stderr
    with sqlite3.connect(home / "footnoted.db") as db:
        ready = db.execute("SELECT count(*) FROM documents WHERE status = 'ready'").fetchone()[0]
        chunks = db.execute("SELECT count(*), count(DISTINCT id) FROM chunks").fetchone()
    assert ready == 400 and chunks[0] == chunks[1] > 0


SALES = "Region,2021,2022,2023\nNorth,1200,1350,1490\nSouth,980,1010,1125\nEast,1500,1620,1710\n"
SALES_QUESTION = "What were the South region's sales in 2022?"


def in_terminal(home: Path, *args: str) -> tuple[int, str]:
    """``footnoted`` with its standard output on a pseudo-terminal 100 columns wide, as
    a person at a terminal runs it: its exit status and what the terminal was sent."""
    leader, follower = os.openpty()
    env = {**os.environ, "FOOTNOTED_HOME": str(home), "COLUMNS": "100", "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "footnoted", *args],
        stdout=follower, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    os.close(follower)
    sent = b""
    while True:
        try:
            got = os.read(leader, 65536)
        except OSError:  # the process closed its end
            break
        if not got:
            break
        sent += got
    os.close(leader)
    return process.wait(timeout=300), re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", sent.decode())


@pytest.fixture(scope="module")
def sales_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli-sales") / "home"
    docs = tmp_path_factory.mktemp("cli-sales-docs")
    result = run(home, "ingest", str(write(docs / "sales.csv", SALES)))
    assert result.returncode == 0, result.stderr
    return home


def test_a_table_answer_is_a_table_at_a_terminal_and_markdown_when_piped(sales_home: Path) -> None:
    piped = run(sales_home, "ask", SALES_QUESTION)
    assert piped.returncode == 0, piped.stderr
    answer = piped.stdout.partition("Sources")[0]
    assert "| Region | 2021 | 2022 | 2023 |" in answer  # for a script, as the API gives it
    assert "| South | 980 | 1010 | 1125 |" in answer
    status, shown = in_terminal(sales_home, "ask", SALES_QUESTION)
    assert status == 0
    table = shown.partition("Sources")[0]
    assert "|" not in table and "---" not in table  # no Markdown left on the screen
    lines = [line.rstrip() for line in table.splitlines()]
    head = next(line for line in lines if line.lstrip().startswith("Region"))
    row = next(line for line in lines if line.lstrip().startswith("South"))
    assert head.split() == ["Region", "2021", "2022", "2023"]
    assert row.split() == ["South", "980", "1010", "1125"]
    for year, figure in (("2021", "980"), ("2022", "1010"), ("2023", "1125")):
        assert head.index(year) + len(year) == row.index(figure) + len(figure)  # right-aligned
    assert "[1]" in table and "1. sales" in shown.partition("Sources")[2]


def test_a_table_answer_without_citations_is_shown_at_a_terminal(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A collection with citations off streams no sources after the answer: the table
    the answer ends with is still drawn (nothing held back is lost)."""
    home = tmp_path_factory.mktemp("cli-uncited") / "home"
    docs = tmp_path_factory.mktemp("cli-uncited-docs")
    assert run(home, "ingest", str(write(docs / "sales.csv", SALES))).returncode == 0
    with Footnoted(Settings(home=home)) as fn:
        fn.update_collection_settings("default", {"enable_citations": False})
    status, shown = in_terminal(home, "ask", SALES_QUESTION)
    assert status == 0
    row = next(line for line in shown.splitlines() if line.lstrip().startswith("South"))
    assert row.split() == ["South", "980", "1010", "1125"]
    assert "Sources" not in shown and "[1]" not in shown


def test_lines_that_open_with_a_bar_and_are_no_table_print_as_they_are() -> None:
    for text in ("| --- |", "Columns:\n| --- | --- |\nend"):  # a rule alone heads nothing
        console = Console(force_terminal=True, width=100, record=True)
        printer = AnswerPrinter(console)
        printer.feed(text)
        printer.close()
        assert console.export_text() == text + ("\n" if text.endswith("|") else "")


def test_a_column_of_figures_with_a_dash_for_none_is_set_right() -> None:
    table = "| | 2021 |\n| --- | --- |\n| Revenue | 3,208,323 |\n| Other | — |\n"
    console = Console(force_terminal=True, width=60, record=True)
    printer = AnswerPrinter(console)
    printer.feed(table)
    printer.close()
    lines = console.export_text().splitlines()
    revenue = next(line for line in lines if "Revenue" in line).rstrip()
    other = next(line for line in lines if "Other" in line).rstrip()
    head = next(line for line in lines if "2021" in line).rstrip()
    assert len(revenue) == len(other) == len(head), lines  # the year, its amount, the dash


def test_the_exact_answer_is_bold_in_its_cell(sales_home: Path) -> None:
    with Footnoted(Settings(home=sales_home)) as fn:
        result = fn.answer(SALES_QUESTION)
    assert result.answer is not None, result.refusal
    text = result.answer.text
    span = next(s for s in result.answer.spans if s.exact_start is not None)
    assert text[span.exact_start : span.exact_end] == "1010"
    console = Console(force_terminal=True, color_system="standard", width=100, record=True)
    printer = AnswerPrinter(console, (span.exact_start, span.exact_end))
    for at in range(0, len(text), 5):  # as it streams, five characters at a time
        printer.feed(text[at : at + 5])
    printer.close()
    styled = console.export_text(styles=True, clear=False)
    assert re.search(r"\x1b\[1;4m1010\x1b\[0m", styled), styled  # that cell alone
    assert console.export_text().count("1010") == 1
