"""Node: rank the evidence of the whole subtree and write the cited answer."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.common import context_of, emit
from treerag.reasoning import EvidenceItem, get_reasoner
from treerag.reasoning.ledger import release
from treerag.state import ChunkRecord, RagState

SUPPORT_PER_CHUNK = 2


def rank_evidence(chunks: list[ChunkRecord], depth: int) -> list[dict[str, Any]]:
    """Rank this run's chunks and its sub-runs' evidence: score, then depth, then rank."""
    items: dict[str, dict[str, Any]] = {}
    for chunk in chunks:
        own = {
            "chunk_id": chunk["chunk_id"],
            "title": chunk.get("title", ""),
            "source": chunk.get("source", ""),
            "score": chunk.get("score", 0),
            "depth": depth,
            "rank": chunk.get("rank", 0),
            "text": chunk.get("text", ""),
        }
        for item in [own, *chunk.get("sub_evidence", [])]:
            best = items.get(item["chunk_id"])
            key = (-item["score"], item["depth"], item["rank"])
            if best is None or key < (-best["score"], best["depth"], best["rank"]):
                items[item["chunk_id"]] = item
    return sorted(items.values(), key=lambda i: (-i["score"], i["depth"], i["rank"]))


def build_evidence(chunks: list[ChunkRecord], budget_tokens: int) -> list[EvidenceItem]:
    """Number the useful chunks (score 2, then 1 with their sub-answers) within a token budget."""
    useful = sorted(
        (c for c in chunks if c.get("score", 0) > 0),
        key=lambda c: (-c.get("score", 0), c.get("rank", 0)),
    )
    out: list[EvidenceItem] = []
    spent = 0
    for chunk in useful:
        cost = len(chunk.get("text", "")) // 3 + len(chunk.get("sub_answer", "")) // 3
        if out and spent + cost > budget_tokens:
            break
        spent += cost
        support = [
            e.get("text", "")
            for e in chunk.get("sub_evidence", [])
            if e.get("score", 0) > 0 and e.get("text")
        ][:SUPPORT_PER_CHUNK]
        out.append(
            EvidenceItem(
                n=len(out) + 1,
                chunk_id=chunk["chunk_id"],
                title=chunk.get("title", ""),
                source=chunk.get("source", ""),
                text=chunk.get("text", ""),
                score=chunk.get("score", 0),
                followup=chunk.get("followup", ""),
                sub_answer=chunk.get("sub_answer", ""),
                support=support,
            )
        )
    return out


async def answer_question(state: RagState, runtime: Runtime[Context]) -> dict:
    """Answer from the judged evidence, citing it; say plainly when nothing was found."""
    ctx = context_of(runtime)
    chunks = state.get("chunks", [])
    tree: dict[str, Any] = {
        "thread_id": state.get("thread_id", ""),
        "root_thread_id": state.get("root_thread_id", ""),
        "depth": state.get("depth", 0),
    }
    emit("answer_started", **tree)
    reasoner = get_reasoner(ctx)
    evidence = build_evidence(chunks, ctx.answer_token_budget)
    extra = "\n".join(n.get("text", "") for n in state.get("context_notes", []))
    if state.get("error"):
        text = f"{state['error']}"
    else:
        text = await reasoner.answer(state["question"], evidence, extra)
    used = [e for e in evidence if f"[{e.n}]" in text]
    citations = [
        {"n": e.n, "chunk_id": e.chunk_id, "source": e.source, "title": e.title} for e in used
    ]
    calls = state.get("llm_calls", 0) + (0 if state.get("error") else 1)
    tree_calls = calls + sum(c.get("sub_llm_calls", 0) for c in chunks)
    emit("answer_finished", **tree, answer=text, citations=citations)
    if state.get("depth", 0) == 0:
        release(state.get("root_thread_id") or state.get("thread_id", ""))
    return {
        "answer": text,
        "citations": citations,
        "evidence": rank_evidence(chunks, tree["depth"]),
        "llm_calls": 0 if state.get("error") else 1,
        "tree_llm_calls": tree_calls,
        "reasoner": reasoner.name,
    }
