"""Node: retrieve the chunks for this run's question."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.common import context_of, emit, thread_of
from treerag.reasoning.ledger import TreeLedger, ledger_for
from treerag.retrievers.chunk_store import EmptyStoreError
from treerag.server.scope import require_active
from treerag.state import RagState

FETCH_ATTEMPTS = 3


def _search(ctx: Context, question: str, skip: int = 0) -> list[dict[str, Any]]:
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    retriever = from_context(ChunkStore(ctx, get_embeddings(ctx)), topk=ctx.top_k + skip)
    return [
        {
            "chunk_id": doc.id,
            "rank": rank,
            "title": doc.metadata.get("title", ""),
            "source": doc.metadata.get("source", ""),
            "text": doc.page_content,
            "retrieval_score": round(score, 6),
        }
        for rank, (doc, score) in enumerate(retriever.get_similar_chunk_with_score(question), 1)
    ]


def _fresh(ctx: Context, question: str, ledger: TreeLedger, depth: int) -> list[dict[str, Any]]:
    """The first top_k hits no other run of the tree fetched, ranked 1..k again.

    Sub-runs of a tree share what their siblings and ancestors found: a chunk is fetched and
    judged once per tree, and a sub-run looks further down its own hit list instead (as far
    as the tree has fetched; again when parallel siblings claimed the same hits first).
    """
    kept: dict[str, dict[str, Any]] = {}
    for _ in range(FETCH_ATTEMPTS):
        window = ctx.top_k + (len(ledger.fetched) if depth else 0)
        hits = _search(ctx, question, window - ctx.top_k)
        wanted = [h["chunk_id"] for h in hits if h["chunk_id"] not in kept]
        claimed = set(ledger.fetch(wanted, ctx.top_k - len(kept)))
        kept.update((h["chunk_id"], h) for h in hits if h["chunk_id"] in claimed)
        if len(kept) >= ctx.top_k or len(hits) < window or not depth:
            break
    ordered = sorted(kept.values(), key=lambda h: h["rank"])
    return [{**h, "rank": rank} for rank, h in enumerate(ordered, 1)]


async def retrieve_chunks(
    state: RagState, config: RunnableConfig, runtime: Runtime[Context]
) -> dict:
    """Retrieve top-k chunks; record this run's place in the tree."""
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
    ledger = ledger_for(root, ctx.max_llm_calls)
    if not state.get("depth", 0):
        # The root reserves its own answer call; sub-runs are reserved by plan_followups.
        ledger.spend(1, force=True)
    try:
        chunks = await asyncio.to_thread(
            _fresh, ctx, state["question"], ledger, state.get("depth", 0)
        )
        error = ""
    except EmptyStoreError as exc:
        chunks, error = [], str(exc)
    emit(
        "chunks_retrieved",
        **tree,
        chunks=[
            {k: c[k] for k in ("chunk_id", "rank", "title", "source", "retrieval_score")}
            for c in chunks
        ],
    )
    return {
        "thread_id": thread_id,
        "root_thread_id": root,
        "depth": state.get("depth", 0),
        "chunks": {"replace": chunks},
        "error": error,
        "llm_calls": 0,
    }
