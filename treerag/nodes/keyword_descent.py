"""Node: find the question's place in the keyword knowledge tree and add what is linked there."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.common import context_of, emit, time_left
from treerag.reasoning import get_reasoner, offline_reasoner
from treerag.retrievers.keyword_tree import keyword_context
from treerag.state import RagState, calls_left


async def descend_keywords(state: RagState, runtime: Runtime[Context]) -> dict:
    """Exact lookup on the question's normalized terms, agent descent otherwise (the root's).

    The path taken (and any multi-level jump) is recorded in the search tree and streamed;
    the infos linked to the matched keyword join the answer context. A model agent's calls
    count as the run's and may spend only what the run has left (`state.budget.calls_left`).
    """
    ctx = context_of(runtime)
    if state.get("error") or ctx.structure == "none":
        return {}
    agent = get_reasoner(ctx).keyword_agent(max_calls=calls_left(state))
    try:
        note = await asyncio.wait_for(
            keyword_context(ctx, state["question"], agent), time_left(state.get("deadline"))
        )
    except TimeoutError:  # a model agent past the question's deadline: the lexical one
        note = await keyword_context(ctx, state["question"], offline_reasoner(ctx).keyword_agent())
    calls = {"llm_calls": getattr(agent, "calls", 0)}  # a lexical agent calls no model
    if note is None:
        return calls
    emit(
        "keyword_descended",
        thread_id=state.get("thread_id", ""),
        root_thread_id=state.get("root_thread_id", ""),
        depth=0,
        **{k: v for k, v in note.items() if k != "text"},
    )
    return {"context_notes": [note], **calls}
