"""Nodes: plan a level's follow-ups, and run a sub-RAG under a child thread_id."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Send

from treerag.context import Context
from treerag.nodes.common import context_of, emit
from treerag.nodes.followups import (
    Why,
    affordable,
    cap,
    dedupe,
    followable,
    not_asked_records,
    plan_subruns,
    stop_reason,
    subrun_tasks,
)
from treerag.nodes.relay import run_relayed
from treerag.nodes.retrieve import allocate
from treerag.reasoning import get_reasoner
from treerag.retrievers.sources import in_script_of, subrun_size
from treerag.state import ChunkRecord, RagState, SubRunTask, calls_left


async def plan_followups(state: RagState, runtime: Runtime[Context]) -> dict:
    """Pick the partial chunks that recurse, fetch their sub-runs' chunks, grant their calls.

    The rules, step by step, are in `treerag.nodes.followups`. The sub-runs' chunks are
    fetched here, in rank order (`retrieve.allocate`), so no two of them, nor they and the
    tree above them, hold the same chunk; a follow-up that finds nothing new is not asked.
    """
    ctx = context_of(runtime)
    # Reading the chunks is CPU work that may load the segmenter's tables: off the event loop.
    reasoner = get_reasoner(ctx)
    if reason := await asyncio.to_thread(stop_reason, state, ctx.max_depth, reasoner):
        return _not_asked(state, {}, reason)
    chosen, why = await asyncio.to_thread(choose_followups, state, ctx)
    if not chosen:
        return _not_asked(state, why)
    questions, fetched = await asyncio.to_thread(fetch_subruns, ctx, state, chosen)
    planned, unfound = plan_subruns(
        state.get("thread_id", ""), chosen, questions, fetched, calls_left(state)
    )
    skipped = _not_asked(state, {**why, **unfound})
    if not planned:
        return skipped
    asked = [*state.get("asked", []), state["question"], *(c["followup"] for c in chosen)]
    return {"chunks": [*planned, *skipped.get("chunks", [])], "asked": asked}


def choose_followups(state: RagState, ctx: Context) -> tuple[list[ChunkRecord], Why]:
    """The partial chunks whose follow-ups are asked, best rank first, and why not the others."""
    question = state["question"]
    candidates, why = followable(question, state.get("chunks", []))
    candidates, dropped = dedupe(candidates, [*state.get("asked", []), question])
    limit = affordable(calls_left(state), ctx.max_subqueries, subrun_size(ctx))
    chosen, capped = cap(candidates, limit, ctx.max_subqueries, ctx.max_llm_calls)
    return chosen, {**why, **dropped, **capped}


def fetch_subruns(
    ctx: Context, state: RagState, chosen: list[ChunkRecord]
) -> tuple[list[str], list[list[dict[str, Any]]]]:
    """The chosen follow-ups in the question's script, and the chunks each sub-run gets.

    Blocking (the passage graph, the retrievers): run it in a worker thread.
    """
    chunks = state.get("chunks", [])
    seen = [*state.get("seen_chunk_ids", []), *(c["chunk_id"] for c in chunks)]
    irrelevant = [c["chunk_id"] for c in chunks if not c.get("score")]
    questions = [in_script_of(ctx, c["followup"], state["question"]) for c in chosen]
    fetched = allocate(ctx, questions, seen, [c["chunk_id"] for c in chosen], irrelevant)
    return questions, fetched


def _not_asked(state: RagState, why: Why, reason: str = "") -> dict:
    """Record on each partial chunk why its follow-up has no sub-run; the tree shows it."""
    records = not_asked_records(state.get("chunks", []), why, reason)
    for record in records:
        emit(
            "followup_not_asked",
            thread_id=state.get("thread_id", ""),
            root_thread_id=state.get("root_thread_id", ""),
            depth=state.get("depth", 0),
            **record,
        )
    return {"chunks": records} if records else {}


def route_followups(state: RagState) -> list[Send]:
    """Send each planned follow-up to its own sub-run task, all in parallel (maybe none)."""
    return subrun_tasks(state)


def make_run_sub_rag(graph: Callable[[], Any]) -> Callable[..., Any]:
    """Build the sub-run node around a provider of the compiled rag graph it belongs to.

    The provider is handed in by the graph builder so that nodes never import graphs.
    """

    async def run_sub_rag(
        task: SubRunTask, config: RunnableConfig, runtime: Runtime[Context]
    ) -> dict:
        """Run the same graph on the follow-up question under the child's own thread_id."""
        ctx = context_of(runtime)
        child = task["child_thread_id"]
        root = task["root_thread_id"] or task["thread_id"]
        child_input = {
            "question": task["question"],
            "depth": task["depth"],
            "root_thread_id": root,
            "parent_thread_id": task["thread_id"],
            "parent_chunk_id": task["chunk"]["chunk_id"],
            "call_share": task.get("call_share", 0),
            "prefetched": task.get("prefetched", []),
            "seen_chunk_ids": task.get("seen_chunk_ids", []),
            "asked": task.get("asked", []),
            "deadline": task.get("deadline", 0.0),
        }
        emit(
            "subrun_started",
            thread_id=task["thread_id"],
            root_thread_id=root,
            chunk_id=task["chunk"]["chunk_id"],
            child_thread_id=child,
            question=task["question"],
            depth=task["depth"] - 1,
        )
        final = await run_relayed(graph(), dict(child_input), child, config, ctx)
        record = {
            "chunk_id": task["chunk"]["chunk_id"],
            "child_thread_id": child,
            "sub_answer": final.get("answer", ""),
            "sub_evidence": final.get("evidence", []),
            "sub_chain": final.get("chain", []),
            "sub_llm_calls": final.get("tree_llm_calls", 0),
        }
        emit(
            "subrun_finished",
            thread_id=task["thread_id"],
            root_thread_id=root,
            chunk_id=record["chunk_id"],
            child_thread_id=child,
            answer=record["sub_answer"],
            depth=task["depth"] - 1,
        )
        return {"chunks": [record]}

    return run_sub_rag
