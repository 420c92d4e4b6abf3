"""Inputs refused at the door: a question or setting a run cannot take stops it before it starts.

The CLI exits 2 with one sentence, the Python API raises, and in every case nothing is
recorded: `treerag runs` stays empty. (The server's side is tests/clients/
test_server_preflight.py; the request checks alone are tests/foundation/test_run_check.py.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.foundation.conftest import write_corpus
from treerag.api import ask, runs
from treerag.cli import app
from treerag.context import Context, SettingsError
from treerag.ingest.indexer import ingest
from treerag.preflight import QuestionError, chat_question, check_question, check_setting_names

runner = CliRunner()
LIMIT = 4000
TOO_LONG = "Who founded the guild? " * 200  # 4,600 characters


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> str:  # type: ignore[no-untyped-def]
    docs = write_corpus(tmp_path_factory.mktemp("docs"))
    data = str(tmp_path_factory.mktemp("data"))
    ingest([docs], Context(data_dir=data))
    return data


@pytest.fixture(autouse=True)
def _limit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TREERAG_MAX_QUESTION_CHARS", str(LIMIT))


def recorded(data_dir: str) -> list[dict[str, Any]]:
    return asyncio.run(runs(Context(data_dir=data_dir)))


def said(output: str) -> str:
    return " ".join(output.split())


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "error: the question is empty"),
        ("   \n ", "error: the question is empty"),
        (TOO_LONG, "the question is 4,600 characters long, over the limit of 4,000"),
    ],
    ids=["empty", "blank", "too-long"],
)
def test_cli_ask_refuses_the_question_and_records_nothing(data_dir, question, message) -> None:  # type: ignore[no-untyped-def]
    for extra in ([], ["--json"]):
        result = runner.invoke(app, ["ask", question, "--data-dir", data_dir, *extra])
        assert result.exit_code == 2, result.output
        assert message in said(result.output)
        assert "answer" not in result.output and "╭" not in result.output  # no answer box
    assert recorded(data_dir) == []


def test_cli_ask_refuses_a_model_file_that_does_not_exist(data_dir, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TREERAG_CHAT_MODEL", "local:/nope.gguf")
    result = runner.invoke(app, ["ask", "Who founded the guild?", "--data-dir", data_dir])
    assert result.exit_code == 2, result.output
    assert "TREERAG_CHAT_MODEL=local:/nope.gguf: no such GGUF file" in said(result.output)
    assert "╭" not in result.output
    assert recorded(data_dir) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", "Who?", "-k", "0"], "error: -k/--top-k 0 must be at least 1"),
        (["ask", "Who?", "--top-k", "0"], "error: -k/--top-k 0 must be at least 1"),
        (["search", "guild", "-k", "0"], "error: -k/--top-k 0 must be at least 1"),
        (["ask", "Who?", "-k", "-1"], "error: -k/--top-k -1 must not be negative"),
        (["ask", "Who?", "--max-depth", "-1"], "error: --max-depth -1 must not be negative"),
    ],
)
def test_a_bad_option_is_named_as_the_option(data_dir, args, message) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, [*args, "--data-dir", data_dir])
    assert result.exit_code == 2, result.output
    assert message in said(result.output) and "TREERAG_" not in result.output
    assert recorded(data_dir) == []


def test_the_same_value_from_the_environment_names_the_variable(data_dir, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TREERAG_TOP_K", "0")
    result = runner.invoke(app, ["ask", "Who?", "--data-dir", data_dir, "--max-depth", "1"])
    assert result.exit_code == 2, result.output
    assert "error: TREERAG_TOP_K=0 must be at least 1" in said(result.output)


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "the question is empty"),
        (" \t", "the question is empty"),
        (None, "no question was given"),
        (42, "the question must be text, not int (42)"),
        (TOO_LONG, "over the limit of 4,000 (TREERAG_MAX_QUESTION_CHARS)"),
    ],
    ids=["empty", "blank", "none", "int", "too-long"],
)
def test_api_ask_raises_before_recording_anything(data_dir, question, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QuestionError) as caught:
        asyncio.run(ask(question, Context(data_dir=data_dir)))
    assert isinstance(caught.value, ValueError) and message in str(caught.value)
    assert recorded(data_dir) == []


def test_api_ask_refuses_a_model_file_that_does_not_exist(data_dir) -> None:  # type: ignore[no-untyped-def]
    ctx = Context(data_dir=data_dir, chat_model="local:/nope.gguf")
    with pytest.raises(SettingsError, match="no such GGUF file"):
        asyncio.run(ask("Who founded the guild?", ctx))
    assert recorded(data_dir) == []


def test_the_limit_is_a_setting() -> None:
    check_question("x" * 10, Context(max_question_chars=10))
    with pytest.raises(QuestionError, match="11 characters long, over the limit of 10"):
        check_question("x" * 11, Context(max_question_chars=10))


def test_the_chat_refuses_a_turn_and_goes_on_with_nothing_recorded(data_dir) -> None:  # type: ignore[no-untyped-def]
    lines = f"{TOO_LONG}\n/threads\n/quit\n"
    result = runner.invoke(app, ["chat", "--data-dir", data_dir, "--max-depth", "1"], input=lines)
    assert result.exit_code == 0, result.output
    # The prompt strips the line's trailing space: 4,599 characters.
    assert "error: the question is 4,599 characters long, over the limit of 4,000" in said(
        result.output
    )
    assert "no chat threads yet" in result.output  # the chat went on; the turn left nothing
    assert recorded(data_dir) == []


def test_unknown_setting_names_get_the_closest_known_one() -> None:
    check_setting_names(["top_k", "max_depth"])
    with pytest.raises(SettingsError) as caught:
        check_setting_names(["topk"])
    assert str(caught.value) == "unknown setting 'topk' (did you mean 'top_k'?)"
    with pytest.raises(SettingsError) as caught:
        check_setting_names(["max_depht", "zzz"])
    assert str(caught.value) == "unknown settings 'max_depht' (did you mean 'max_depth'?), 'zzz'"


@pytest.mark.parametrize(
    ("messages", "question"),
    [
        ([{"type": "human", "content": "first"}, {"type": "ai", "content": "a"}], "first"),
        ([{"role": "user", "content": [{"type": "text", "text": "parts"}]}], "parts"),
        ("plain", "plain"),
        ([("human", "pair")], "pair"),
        ([{"type": "human", "content": 7}], 7),
    ],
)
def test_the_chat_question_is_the_last_human_message(messages, question) -> None:  # type: ignore[no-untyped-def]
    from langchain_core.messages import HumanMessage

    assert chat_question(messages) == question
    assert chat_question([HumanMessage(content="object")]) == "object"
    with pytest.raises(QuestionError, match="hold no question"):
        chat_question([{"type": "ai", "content": "only an answer"}])
