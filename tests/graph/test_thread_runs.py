"""A new run on a thread that ran before starts its own clock, notes and budget."""

from __future__ import annotations

import time

from treerag.checkpointing import open_checkpointer
from treerag.graphs.rag import builder
from treerag.retrievers.keyword_tree import derive_from_collection


async def _run(ctx, question: str, thread_id: str) -> dict:
    """Ask `question` on `thread_id` through the real SQLite checkpointer; its saved state."""
    config = {"configurable": {"thread_id": thread_id}}
    async with open_checkpointer(ctx) as saver:
        graph = builder.compile(checkpointer=saver)
        await graph.ainvoke({"question": question}, config, context=ctx)
        return (await graph.aget_state(config)).values


async def test_a_second_question_on_a_thread_starts_afresh(make_ctx):
    ctx = make_ctx(max_depth=0, top_k=3)
    derive_from_collection(ctx)  # the keyword descent leaves one note per run
    first = await _run(ctx, "墨衡书院是谁创办的？", "one-thread")
    started = time.time()
    second = await _run(ctx, "Who founded Quillhaven?", "one-thread")
    assert ctx.resolved_checkpointer_uri.endswith(".sqlite")
    assert [n["kind"] for n in first["context_notes"]] == ["keyword"]
    # Only the second run's own note, not the first's carried over.
    assert [n["kind"] for n in second["context_notes"]] == ["keyword"]
    assert second["context_notes"][0] != first["context_notes"][0]
    assert second["deadline"] >= started + ctx.run_timeout_s > first["deadline"]
    assert second["call_share"] == ctx.max_llm_calls
