"""Settings and models are checked once before a run starts; a refused run leaves no trace."""

from __future__ import annotations

import asyncio

import pytest
from typer.testing import CliRunner

from tests.foundation.conftest import write_corpus
from treerag.api import ask, runs
from treerag.cli import app
from treerag.context import Context, SettingsError
from treerag.ingest.indexer import ingest
from treerag.preflight import check_run

runner = CliRunner()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> str:  # type: ignore[no-untyped-def]
    docs = write_corpus(tmp_path_factory.mktemp("docs"))
    data = str(tmp_path_factory.mktemp("data"))
    ingest([docs], Context(data_dir=data))
    return data


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TREERAG_TOP_K": "0"}, "TREERAG_TOP_K=0 must be at least 1"),
        ({"TREERAG_NEXT_K": "-1"}, "setting next_k=-1 must not be negative"),
        ({"TREERAG_STRUCTURE_K": "-2"}, "setting structure_k=-2 must not be negative"),
        ({"TREERAG_CHAT_MODEL": "openai:gpt-4o-mini"}, "OPENAI_API_KEY is not set"),
        ({"TREERAG_CHAT_MODEL": "gpt-4o-mini"}, "expected 'provider:model'"),
        ({"TREERAG_CHUNK_OVERLAP": "900"}, "must be smaller than TREERAG_CHUNK_SIZE"),
    ],
)
def test_cli_ask_refuses_before_drawing_and_records_no_run(
    data_dir: str, monkeypatch, env: dict[str, str], message: str
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = runner.invoke(app, ["ask", "Who founded the guild?", "--data-dir", data_dir])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert message in said
    assert "answer" not in said and "…" not in said  # no answer box, no pending chunks
    for name in env:
        monkeypatch.delenv(name)
    assert asyncio.run(runs(Context(data_dir=data_dir))) == []


def test_api_ask_refuses_before_the_checkpointer(data_dir: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ctx = Context(data_dir=data_dir, top_k=0, chat_model="openai:gpt-4o-mini")
    with pytest.raises(SettingsError) as caught:
        asyncio.run(ask("Who founded the guild?", ctx))
    assert "TREERAG_TOP_K=0" in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)
    assert asyncio.run(runs(Context(data_dir=data_dir))) == []


def test_good_settings_pass(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    check_run(Context(chat_model="openai:gpt-4o-mini"))
    check_run(Context())


def test_search_refuses_top_k_0(data_dir: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TREERAG_TOP_K", "0")
    result = runner.invoke(app, ["search", "guild", "--data-dir", data_dir])
    assert result.exit_code == 2 and "TREERAG_TOP_K=0 must be at least 1" in result.output


def test_models_that_need_no_key_pass_without_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The local model server and the in-process embedders run with no OPENAI_API_KEY."""
    from treerag.context import Context
    from treerag.preflight import check_run

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for chat in ("local", "local:qwen2.5-coder-1.5b"):
        for embedder in ("minilm", "use-m3", "e5-small"):
            check_run(Context(chat_model=chat, embedding_model=embedder))


def test_an_unknown_prompt_override_is_a_settings_error(tmp_path):
    from treerag.context import SettingsError
    from treerag.preflight import check_run

    with pytest.raises(SettingsError, match=r"names no prompt 'keyword' \(the prompts: answer"):
        check_run(Context(data_dir=str(tmp_path), prompt_overrides={"keyword": "x"}))
    check_run(Context(data_dir=str(tmp_path), prompt_overrides={"judge": "x {question}"}))
