"""Nodes: choose which partial chunks recurse, and run a sub-RAG under a child thread_id."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Send

from treerag.context import Context
from treerag.nodes.common import context_of, emit
from treerag.nodes.relay import run_relayed
from treerag.nodes.retrieve import allocate
from treerag.reasoning import get_reasoner
from treerag.reasoning.ledger import ledger_for
from treerag.reasoning.named import names_title
from treerag.reasoning.questions import is_new
from treerag.reasoning.reading import names_entity, subjects
from treerag.retrievers.sources import in_script_of, subrun_size
from treerag.state import ChunkRecord, RagState, SubRunTask


def child_thread_id(parent: str, chunk: ChunkRecord) -> str:
    """Derive a child's thread_id from its parent's and the chunk's rank: `root/2/1`."""
    return f"{parent}/{chunk['rank']}"


async def plan_followups(state: RagState, runtime: Runtime[Context]) -> dict:
    """Pick the partial chunks that recurse, fetch their sub-runs' chunks, share the budget.

    No recursion when any chunk scored 2 (seed 02's rule), at `max_depth`, or when the useful
    chunks hold the chain that answers the question (`Reasoner.in_hand`). Otherwise at most
    `max_subqueries` follow-ups, best retrieval rank first: those of chunks about what the
    question names only, when there are such (`reading.names_entity`); never one asked on
    the way here or by a sibling (nor a near-duplicate of one), nor one about a document the
    run holds (`held_bridge`); only as many as the run's
    share of the budget pays for (a sub-run costs a judge per candidate and answers by
    quoting, without a call). What is left of the share is split evenly among them, so the
    first branches cannot spend the budget of the later ones. The sub-runs' chunks are
    fetched here, in rank order (`retrieve.allocate`), so no two of them, nor they and the
    tree above them, hold the same chunk; a follow-up that finds nothing new is not asked. A
    partial chunk whose follow-up is not asked records why (`not_asked`, shown in the tree).
    """
    ctx = context_of(runtime)
    chunks = state.get("chunks", [])
    depth = state.get("depth", 0)
    if depth >= ctx.max_depth:
        return _not_asked(state, {}, f"depth limit (max_depth={ctx.max_depth})")
    if any(c.get("score") == 2 for c in chunks):
        return _not_asked(state, {}, "another chunk of this run answers the question")
    if chain := get_reasoner(ctx).in_hand(state["question"], chunks):
        return _not_asked(state, {}, f"the chunks hold the question's chain: {chain}")
    share = state.get("call_share") or ctx.max_llm_calls
    # The root's own answer is a call; a sub-run's answer quotes (`nodes.answer`): none.
    available = share - state.get("llm_calls", 0) - (0 if depth else 1)
    affordable = min(ctx.max_subqueries, available // subrun_size(ctx))
    asked = [*state.get("asked", []), state["question"]]
    chosen: list[ChunkRecord] = []
    why: dict[str, str] = {}
    partial = sorted(
        (c for c in chunks if c.get("score") == 1 and c.get("followup")), key=lambda c: c["rank"]
    )
    # The first hop is the document the question names: when such chunks ask follow-ups,
    # a chunk that only shares words with the question is not followed.
    first_hops = {c["chunk_id"] for c in partial if names_entity(state["question"], c)}
    for chunk in partial:
        if first_hops and chunk["chunk_id"] not in first_hops:
            why[chunk["chunk_id"]] = "a chunk about what the question names asks the next step"
        elif held := held_bridge(state["question"], chunk, chunks):
            why[chunk["chunk_id"]] = f"the run holds its bridge already: {held}"
        elif not is_new(chunk["followup"], asked):
            why[chunk["chunk_id"]] = "duplicate of an earlier question"
        elif len(chosen) >= affordable:
            why[chunk["chunk_id"]] = (
                f"max_subqueries={ctx.max_subqueries} reached"
                if len(chosen) >= ctx.max_subqueries
                else f"budget spent (max_llm_calls={ctx.max_llm_calls})"
            )
        else:
            asked.append(chunk["followup"])
            chosen.append(chunk)
    if not chosen:
        return _not_asked(state, why)
    seen = [*state.get("seen_chunk_ids", []), *(c["chunk_id"] for c in chunks)]
    irrelevant = [c["chunk_id"] for c in chunks if not c.get("score")]
    questions = await asyncio.to_thread(
        lambda: [in_script_of(ctx, c["followup"], state["question"]) for c in chosen]
    )
    fetched = await asyncio.to_thread(
        allocate, ctx, questions, seen, [c["chunk_id"] for c in chosen], irrelevant
    )
    ledger = ledger_for(
        state.get("root_thread_id") or state.get("thread_id", ""), ctx.max_llm_calls
    )
    planned = [
        ChunkRecord(
            chunk_id=chunk["chunk_id"],
            child_thread_id=child_thread_id(state.get("thread_id", ""), chunk),
            child_chunks=found,
            followup=question,
        )
        for chunk, found, question in zip(chosen, fetched, questions, strict=True)
        # A sub-run starts while the tree has calls left to judge with.
        if found and ledger.left > 0
    ]
    for record in planned:
        record["call_share"] = max(subrun_size(ctx), available // len(planned))
    started = {record["chunk_id"] for record in planned}
    for chunk, found in zip(chosen, fetched, strict=True):
        if chunk["chunk_id"] not in started:
            why[chunk["chunk_id"]] = (
                f"budget spent (max_llm_calls={ctx.max_llm_calls})"
                if found
                else "it finds no chunk the tree does not hold already"
            )
    skipped = _not_asked(state, why)
    if not planned:
        return skipped
    return {"chunks": [*planned, *skipped.get("chunks", [])], "asked": asked}


def held_bridge(question: str, chunk: ChunkRecord, chunks: list[ChunkRecord]) -> str:
    """The title of a useful chunk of this run that the chunk's follow-up asks about, or "".

    A follow-up goes after the bridge entity its chunk names; when this run already holds,
    judged useful, the document about that entity (its subject named by the follow-up and
    not by the question: `reading.subjects`), the sub-run would look for what the run has.
    The answer then reads the follow-up's answer in the run's own chunks (`build_evidence`).
    """
    followup = chunk.get("followup", "")
    for other in chunks:
        # Another document: a section of the chunk's own is no bridge it holds.
        if other.get("source") == chunk.get("source") or other.get("score", 0) <= 0:
            continue
        for subject in subjects(other.get("title", ""), other.get("text", "")):
            if names_title(followup, subject) and not names_title(question, subject):
                return subject
    return ""


def _not_asked(state: RagState, why: dict[str, str], reason: str = "") -> dict:
    """Record on each partial chunk why its follow-up has no sub-run; the tree shows it.

    `why` gives the reason by chunk id; `reason`, when given, holds for every partial chunk
    with a follow-up (depth limit, a chunk that answers, the question covered).
    """
    records = [
        ChunkRecord(chunk_id=c["chunk_id"], not_asked=why.get(c["chunk_id"], reason))
        for c in state.get("chunks", [])
        if c.get("score") == 1 and c.get("followup") and why.get(c["chunk_id"], reason)
    ]
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
    planned = [
        c for c in state.get("chunks", []) if c.get("child_thread_id") and "sub_answer" not in c
    ]
    # What the tree holds once this level's sub-runs have their chunks: theirs, this run's
    # and everything on the way here. Their own sub-runs look past all of it.
    seen = [
        *state.get("seen_chunk_ids", []),
        *(c["chunk_id"] for c in state.get("chunks", [])),
        *(f["chunk_id"] for c in planned for f in c.get("child_chunks", [])),
    ]
    return [
        Send(
            "run_sub_rag",
            SubRunTask(
                question=c["followup"],
                chunk=c,
                thread_id=state.get("thread_id", ""),
                root_thread_id=state.get("root_thread_id", ""),
                child_thread_id=c["child_thread_id"],
                depth=state.get("depth", 0) + 1,
                call_share=c.get("call_share", 0),
                prefetched=c.get("child_chunks", []),
                seen_chunk_ids=seen,
                asked=state.get("asked", []),
                deadline=state.get("deadline", 0.0),
            ),
        )
        for c in planned
    ]


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
