"""The server's check of a run's request context (no server: the function it calls)."""

from __future__ import annotations

import asyncio

import pytest

from treerag.server.identity import Identity
from treerag.server.run_check import check_server_run


def reason(context: object, identity: Identity | None = None) -> str | None:
    return asyncio.run(check_server_run({"kwargs": {"context": context}}, identity))


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
