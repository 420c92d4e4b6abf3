"""The rag graph checkpointed in Postgres: the tree rebuilds from it and child threads read back.

Needs a reachable server named by `TREERAG_TEST_POSTGRES_URI`
(e.g. `postgresql://postgres@127.0.0.1:5432/treerag_test`); `.ci/run` starts a throwaway one.
Without it the test is skipped, except in CI (`CI=true`), where it fails.
"""

from __future__ import annotations

import os
import uuid

import pytest

from treerag.api import ask, tree
from treerag.checkpointing import open_checkpointer

ENV = "TREERAG_TEST_POSTGRES_URI"
# Read at import: the autouse `_isolated_env` fixture in tests/conftest.py removes every
# TREERAG_* variable before each test runs.
_URI = os.environ.get(ENV, "").strip()


@pytest.fixture
def postgres_uri() -> str:
    uri = _URI
    if not uri:
        reason = (
            f"{ENV} is not set: no Postgres server to test the checkpointer against "
            "(`bash .ci/run` starts a throwaway one)"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    if not uri.startswith(("postgres://", "postgresql://")):
        pytest.fail(f"{ENV} must be a postgres:// or postgresql:// URI, got {uri!r}")
    pytest.importorskip(
        "langgraph.checkpoint.postgres.aio",
        reason="pip install 'treerag[postgres]' (langgraph-checkpoint-postgres)",
    )
    return uri


async def test_tree_and_child_threads_round_trip_through_postgres(make_ctx, postgres_uri):
    ctx = make_ctx(checkpointer_uri=postgres_uri, max_depth=1, top_k=5)
    assert ctx.resolved_checkpointer_uri == postgres_uri
    thread_id = f"pgtest-{uuid.uuid4().hex}"
    try:
        result = await ask(
            # Three hops: the root holds the first, so the tree recurses (a two-hop question
            # whose answer and bridge share a document is answered at the root).
            "Which guild built the ship commanded by the man who signed the Accord of "
            "Quillhaven on behalf of Varunhal?",
            ctx,
            thread_id=thread_id,
        )
        assert result["thread_id"] == thread_id
        assert result["answer"] and not result["error"]
        assert result["reasoner"] == "offline-heuristic-v2"

        rebuilt = await tree(thread_id, ctx)
        assert rebuilt == result["tree"]

        children = [c for c in result["tree"]["chunks"] if c.get("child_thread_id")]
        assert children, "the offline reasoner should have recursed one level"
        for chunk in children:
            assert chunk["child_thread_id"] == f"{thread_id}/{chunk['rank']}"
            child = await tree(chunk["child_thread_id"], ctx)
            assert child is not None
            assert child["question"] == chunk["followup"]
            assert child["depth"] == 1
    finally:
        async with open_checkpointer(ctx) as saver:
            threads = {thread_id}
            async for item in saver.alist(None):
                tid = item.config["configurable"]["thread_id"]
                if tid.startswith(thread_id + "/"):
                    threads.add(tid)
            for tid in threads:
                await saver.adelete_thread(tid)
