"""Node: retrieve the chunks for this run's question."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Collection, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.common import context_of, emit, thread_of
from treerag.retrievers.chunk_store import EmptyStoreError
from treerag.retrievers.sources import gather
from treerag.server.scope import require_active
from treerag.state import RagState, run_share
from treerag.text import READING, proper_names
from treerag.text.cased import with_names_cased


def allocate(
    ctx: Context,
    questions: list[str],
    seen: Collection[str],
    seeds: Sequence[str] = (),
    revisit: Collection[str] = (),
) -> list[list[dict[str, Any]]]:
    """Fetch the chunks of a level's sub-runs, in order, so that no two of them share one.

    Each follow-up takes its candidates (`sources.gather`) that neither the tree on the way here
    (`seen`) nor an earlier sibling holds; the graph walk of each starts from the partial
    chunk that asked it (`seeds[i]`), so a follow-up about a bridge entity reaches the
    passages about that entity, even one the parent judged irrelevant to its own question
    (`revisit`). Done once, by the parent, before the sub-runs start: the
    split does not depend on which sub-run runs first, so the same question over the same
    documents always grows the same tree.
    """
    taken = set(seen)
    fetched = []
    for i, question in enumerate(questions):
        chunks = gather(ctx, question, taken, seeds[i : i + 1], revisit, widen=False)
        taken.update(c["chunk_id"] for c in chunks)
        fetched.append(chunks)
    return fetched


async def retrieve_chunks(
    state: RagState, config: RunnableConfig, runtime: Runtime[Context]
) -> dict:
    """Retrieve top-k chunks; record this run's place in the tree and its call budget."""
    await require_active(config)
    ctx = context_of(runtime)
    thread_id = thread_of(config)
    root = state.get("root_thread_id") or thread_id
    tree = {"thread_id": thread_id, "root_thread_id": root, "depth": state.get("depth", 0)}
    emit(
        "run_started",
        **tree,
        question=state["question"],
        parent_thread_id=state.get("parent_thread_id", ""),
        parent_chunk_id=state.get("parent_chunk_id", ""),
    )
    unread: list[str] = []
    try:
        if state.get("depth", 0) and "prefetched" in state:
            chunks = list(state["prefetched"])
        else:
            chunks = await asyncio.to_thread(gather, ctx, state["question"], unread=unread)
        error = ""
    except EmptyStoreError as exc:
        chunks, error = [], str(exc)
    question = state["question"]
    if not state.get("depth", 0):
        # Off the event loop: the names' reader loads its lexicon from disk the first time.
        question = await asyncio.to_thread(_read_with_names, question, chunks)
    emit(
        "chunks_retrieved",
        **tree,
        chunks=[
            {
                k: c[k]
                for k in ("chunk_id", "rank", "title", "source", "retrieval_score", "found_by")
                if k in c
            }
            for c in chunks
            if not c.get("reserve")  # announced when released (`nodes.reserve`)
        ],
    )
    return {
        "thread_id": thread_id,
        "root_thread_id": root,
        "depth": state.get("depth", 0),
        "chunks": {"replace": chunks},
        "error": error,
        "unread_stores": unread,
        **({"question": question} if question != state["question"] else {}),
        **run_start(state, ctx),
    }


def _read_with_names(question: str, chunks: Sequence[dict[str, Any]]) -> str:
    """The root question with its chunks' names written as they write them (`text.cased`).

    "who founded the school jasper quill attended" is read as naming Jasper Quill.
    """
    if not re.search(r"[a-z]", question):
        return question
    names = [c.get("title", "") for c in chunks]
    names += [n for c in chunks for n in proper_names(c.get("text", ""), READING)]
    return with_names_cased(question, names, [c.get("text", "") for c in chunks])


def run_start(state: RagState, ctx: Context) -> dict[str, Any]:
    """What a run starts afresh: its budget, its count, its notes and (the root) its clock.

    A thread's checkpoint holds the last run's values, and a new run on that thread begins
    from them: this step is where each run starts its own (a resumed run never comes back
    here). A root run's budget and deadline are its own; a sub-run's are what its parent
    granted and its root's deadline, which its input carries.
    """
    depth = state.get("depth", 0)
    return {
        "call_share": run_share(state.get("call_share", 0) if depth else 0, ctx.max_llm_calls),
        "llm_calls": {"replace": 0},
        "context_notes": {"replace": []},
        "deadline": (depth and state.get("deadline")) or time.time() + ctx.run_timeout_s,
    }
