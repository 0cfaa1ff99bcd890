"""Real clients against a real ``footnoted serve``: LangChain's ``ChatOpenAI`` and the
``llm`` CLI, and the docs pages for them and for Open WebUI. Each test asserts what the
client's user sees of a cited answer and of a refusal."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from langchain_core.messages import BaseMessage
from langchain_openai import ChatOpenAI

from docshelpers import run_bash, run_python
from servedhelpers import BIN, NOT_COVERED, QUESTION, REFUSAL, Served, served

pytestmark = pytest.mark.slow

SOURCES = "\n\nSources:\n1. Data Retention Policy — Section Data Retention Policy > Closed accounts"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served(tmp_path_factory.mktemp("clients") / "home") as s:
        yield s


def cited(text: str) -> None:
    """The answer with its [1] marker, then the Sources block: what every client shows."""
    answer, sources, rest = text.partition(SOURCES)
    assert sources and not rest.strip(), text
    assert "60 days" in answer and answer.rstrip().endswith("[1]")


# ---- LangChain -----------------------------------------------------------------------------


def chat_openai(server: Served, **options: Any) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.url + "/v1", api_key=server.token, max_retries=0, **options)  # type: ignore[arg-type]


def annotations(message: BaseMessage) -> list[dict[str, Any]]:
    return [
        dict(note)
        for block in message.content_blocks
        if block["type"] == "text"
        for note in block.get("annotations", [])
    ]


def is_refusal(message: BaseMessage) -> bool:
    """The Responses API's refusal part: a ``refusal`` block from langchain-core 1.8 on,
    a ``non_standard`` one wrapping it before."""
    return any(
        b["type"] == "refusal"
        or (b["type"] == "non_standard" and b["value"].get("type") == "refusal")
        for b in message.content_blocks
    )


def summed(llm: ChatOpenAI, question: str) -> BaseMessage:
    whole: Any = None
    for chunk in llm.stream(question):
        whole = chunk if whole is None else whole + chunk
    assert whole is not None
    message: BaseMessage = whole
    return message


@pytest.mark.parametrize("how", ["invoke", "stream"])
def test_langchain_responses_api_carries_citations_as_standard_annotations(
    server: Served, how: str
) -> None:
    llm = chat_openai(server, model="default", use_responses_api=True)
    reply = llm.invoke(QUESTION) if how == "invoke" else summed(llm, QUESTION)
    cited(reply.text)
    notes = annotations(reply)
    assert notes and all(n["type"] == "citation" for n in notes)
    for note in notes:
        assert reply.text[note["start_index"] : note["end_index"]] == "[1]"
        assert note["title"] == "Data Retention Policy"
        assert note["url"].startswith(f"{server.url}/api/documents/")
    assert not is_refusal(reply)


@pytest.mark.parametrize("how", ["invoke", "stream"])
def test_langchain_responses_api_marks_a_refusal(server: Served, how: str) -> None:
    llm = chat_openai(server, model="default", use_responses_api=True)
    reply = llm.invoke(NOT_COVERED) if how == "invoke" else summed(llm, NOT_COVERED)
    assert reply.text.startswith(REFUSAL) and "Sources" not in reply.text
    assert is_refusal(reply) and not annotations(reply)


def test_langchain_chat_completions_show_the_sources_block(server: Served) -> None:
    chat = chat_openai(server, model="default")
    reply = chat.invoke(QUESTION)
    cited(reply.text)
    assert reply.additional_kwargs["refusal"] is None
    assert summed(chat, QUESTION).text == reply.text  # streamed: the same text
    refused = chat.invoke(NOT_COVERED)
    assert refused.text.startswith(REFUSAL) and refused.additional_kwargs["refusal"] == refused.text
    streamed = summed(chat, NOT_COVERED)  # the sentence; LangChain keeps no mark here
    assert streamed.text == refused.text


def test_langchain_without_a_model_gets_model_not_found(server: Served) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        chat_openai(server).invoke(QUESTION)  # LangChain's default: gpt-4o-mini
    assert caught.value.code == "model_not_found" and "default" in caught.value.message


# ---- the llm CLI -----------------------------------------------------------------------------


def llm_home(server: Served, where: Path) -> dict[str, str]:
    """llm configured as its users do: extra-openai-models.yaml and a stored key."""
    where.mkdir(exist_ok=True)
    (where / "extra-openai-models.yaml").write_text(
        f'- model_id: footnoted\n  model_name: default\n  api_base: "{server.url}/v1"\n'
        "  api_key_name: footnoted\n"
    )
    env = {**os.environ, "LLM_USER_PATH": str(where)}
    keys = llm(env, "keys", "set", "footnoted", "--value", server.token)
    assert keys.returncode == 0, keys.stderr
    return env


def llm(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "llm"), *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_llm_streams_the_answer_with_its_sources(server: Served, tmp_path: Path) -> None:
    env = llm_home(server, tmp_path / "llm")
    streamed = llm(env, "-m", "footnoted", QUESTION)  # llm streams by default
    assert streamed.returncode == 0, streamed.stderr
    cited(streamed.stdout)
    whole = llm(env, "-m", "footnoted", "--no-stream", QUESTION)
    assert whole.stdout == streamed.stdout
    logged = json.loads(llm(env, "logs", "-n", "1", "--json").stdout)[0]
    assert logged["response"] == streamed.stdout.rstrip("\n")  # kept with its Sources


def test_llm_shows_a_refusal_as_its_sentence(server: Served, tmp_path: Path) -> None:
    env = llm_home(server, tmp_path / "llm")
    refused = llm(env, "-m", "footnoted", NOT_COVERED)
    assert refused.returncode == 0, refused.stderr
    assert refused.stdout.startswith(REFUSAL) and "Sources" not in refused.stdout


# ---- the docs pages' examples ------------------------------------------------------------------


def test_the_langchain_page_example_runs(server: Served) -> None:
    run = run_python("langchain.md", server)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.count(SOURCES) == 3, out  # invoke, stream, chat completions
    assert f"[1] Data Retention Policy {server.url}/api/documents/" in out
    assert "streamed citations: ['Data Retention Policy']" in out
    assert f"Refused: {REFUSAL}" in out and f"refusal: {REFUSAL}" in out


def test_the_llm_page_blocks_run(server: Served, tmp_path: Path) -> None:
    run = run_bash("llm.md", server, LLM_USER_PATH=str(tmp_path / "llm"))
    assert run.returncode == 0, run.stderr
    answer, _, refusal = run.stdout.partition(SOURCES)
    cited(answer + SOURCES)
    assert refusal.strip().startswith(REFUSAL)


def test_the_open_webui_check_runs(server: Served) -> None:
    run = run_bash("open-webui.md", server)
    assert run.returncode == 0, run.stderr
    models, end = json.JSONDecoder().raw_decode(run.stdout)  # the first curl's JSON
    assert "default" in [m["id"] for m in models["data"]]
    stream = run.stdout[end:]
    chunks = [json.loads(line[6:]) for line in stream.splitlines() if line.startswith("data: {")]
    cited("".join(c["choices"][0]["delta"].get("content") or "" for c in chunks))
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and "citations" in chunks[-1]
    assert stream.rstrip().endswith("data: [DONE]")
