"""Node: judge the structured finds only when none of the hybrid hits answers.

A run's candidates are its hybrid top_k and the structured finds (keyword tree, graph) that
`retrievers.sources.gather` adds, marked `reserve`. The judges see the hybrid hits first;
when one of them is sufficient (2) the question is answered at this level and the finds are
dropped unjudged: a one-hop question whose answer ranks in the top_k costs the top_k's
judges alone. Otherwise the finds join the run (a `chunks_added` event) and are judged
before the follow-ups are planned: they are where a multi-hop question's second hop is.
"""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from treerag.nodes.common import emit
from treerag.nodes.judge import judge_tasks
from treerag.state import ChunkRecord, RagState

EVENT_KEYS = ("chunk_id", "rank", "title", "source", "retrieval_score", "found_by")
"""What a tree event says of a chunk that joins a run (as `chunks_retrieved` does)."""


async def release_reserve(state: RagState) -> dict:
    """Drop the held-back finds when a hybrid hit answers, else let them be judged."""
    chunks = state.get("chunks", [])
    held = [c for c in chunks if c.get("reserve")]
    if not held:
        return {}
    if any(c.get("score") == 2 for c in chunks):
        return {"chunks": {"replace": [c for c in chunks if not c.get("reserve")]}}
    emit(
        "chunks_added",
        thread_id=state.get("thread_id", ""),
        root_thread_id=state.get("root_thread_id", ""),
        depth=state.get("depth", 0),
        chunks=[{k: v for k, v in c.items() if k in EVENT_KEYS} for c in held],
    )
    return {"chunks": [ChunkRecord(chunk_id=c["chunk_id"], reserve=False) for c in held]}


def route_after_release(state: RagState) -> list[Send] | Literal["plan_followups"]:
    """Judge the finds just released, or go on to plan the follow-ups."""
    waiting = [c for c in state.get("chunks", []) if "score" not in c and not c.get("reserve")]
    return judge_tasks(state, waiting) or "plan_followups"
