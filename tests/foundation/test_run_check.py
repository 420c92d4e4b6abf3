"""The server's check of a run's request context (no server: the function it calls)."""

from __future__ import annotations

import asyncio
from uuid import uuid5

import pytest

from treerag.server.identity import Identity
from treerag.server.run_check import NAMESPACE_GRAPH, check_server_run


def reason(context: object, identity: Identity | None = None) -> str | None:
    """The refusal of a rag run asking a good question with this request context."""
    value = {"assistant_id": "rag", "kwargs": {"input": {"question": "Who?"}, "context": context}}
    return asyncio.run(check_server_run(value, identity))


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({"top_k": 0}, "TREERAG_TOP_K=0 must be at least 1 (set by this run's settings: top_k)"),
        ({"top_k": "3"}, "setting top_k='3' is not a valid int"),
        ({"top_k": True}, "setting top_k=True is not a valid int"),
        ({"dense_weight": "high"}, "setting dense_weight='high' is not a valid float"),
        ({"search_mode": "fuzzy"}, "setting search_mode='fuzzy' is not one of"),
        ({"chat_model": "gpt-4o"}, "expected 'provider:model'"),
        (["top_k", 0], "its context must be a JSON object"),
    ],
)
def test_bad_run_contexts_are_refused_with_the_setting_named(monkeypatch, context, expected):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    found = reason(context)
    assert found is not None and found.startswith("the run was not started: ")
    assert expected in found


def test_good_contexts_and_keys_the_graph_ignores_pass(monkeypatch):
    monkeypatch.delenv("TREERAG_TOP_K", raising=False)
    assert reason({}) is None
    assert reason({"top_k": 3, "max_depth": 1, "dense_weight": 1}) is None
    # The server copies `configurable` into the context; keys that are no setting are dropped.
    assert reason({"thread_id": "t", "langgraph_auth_user": None}) is None
    assert reason({"top_k": 3}, Identity(name="ann", tenant="acme")) is None


def test_the_environment_is_checked_under_the_context(monkeypatch):
    monkeypatch.setenv("TREERAG_TOP_K", "0")
    assert reason({}) == "the run was not started: TREERAG_TOP_K=0 must be at least 1"
    assert reason({"top_k": 2}) is None  # the run's own setting wins, and is good


RAG, CHAT = (str(uuid5(NAMESPACE_GRAPH, g)) for g in ("rag", "chat"))
"""The served graphs' own assistants, as the server names them in a run's event."""


def input_reason(assistant: str, run_input: object, context: object = None) -> str | None:
    value = {"assistant_id": assistant, "kwargs": {"input": run_input, "context": context or {}}}
    return asyncio.run(check_server_run(value, None))


@pytest.mark.parametrize(
    ("assistant", "run_input", "context", "expected"),
    [
        (RAG, {"question": ""}, {}, "the question is empty"),
        (RAG, {"question": " \n"}, {}, "the question is empty"),
        (RAG, {}, {}, 'the rag graph\'s input has no question: send {"question": "…"}'),
        (RAG, {"question": 42}, {}, "the question must be text, not int (42)"),
        (RAG, {"question": "x" * 4001}, {}, "over the limit of 4,000"),
        (RAG, {"question": "x" * 51}, {"max_question_chars": 50}, "over the limit of 50"),
        (RAG, {"question": "ok"}, {"topk": 3}, "unknown setting 'topk' (did you mean 'top_k'?)"),
        (RAG, {"question": "ok"}, {"chat_model": "local:/nope.gguf"}, "no such GGUF file"),
        (CHAT, {"messages": [{"type": "human", "content": ""}]}, {}, "the question is empty"),
        (CHAT, {"messages": [{"type": "human", "content": 3}]}, {}, "must be text, not int"),
        (CHAT, {"messages": []}, {}, "the messages hold no question"),
        (CHAT, {"question": "ok"}, {}, "the chat graph's input has no messages"),
        ("rag", "a bare string", {}, "the rag graph's input has no question"),
    ],
)
def test_bad_run_inputs_are_refused(monkeypatch, assistant, run_input, context, expected):
    monkeypatch.setenv("TREERAG_MAX_QUESTION_CHARS", "4000")
    found = input_reason(assistant, run_input, context)
    assert found is not None and found.startswith("the run was not started: ")
    assert expected in found, found


def test_good_inputs_and_runs_without_input_pass(monkeypatch):
    monkeypatch.setenv("TREERAG_MAX_QUESTION_CHARS", "4000")
    assert input_reason(RAG, {"question": "Who?"}) is None
    assert input_reason(RAG, {"question": "x" * 4000}) is None
    assert input_reason(CHAT, {"messages": [{"role": "user", "content": "Who?"}]}) is None
    # No input is refused, unless it resumes (a command); its settings are still checked.
    assert "the run has no input" in (input_reason(RAG, None) or "")
    resumed = {"assistant_id": RAG, "kwargs": {"input": None, "command": {"resume": "go"}}}
    assert asyncio.run(check_server_run(resumed, None)) is None
    resumed["kwargs"]["context"] = {"top_k": 0}
    assert "TREERAG_TOP_K=0" in (asyncio.run(check_server_run(resumed, None)) or "")
    # An assistant of its own is read by the input's shape.
    assert input_reason("another-assistant", {"messages": "Who?"}) is None
    assert input_reason("another-assistant", {"messages": ""}) is not None
