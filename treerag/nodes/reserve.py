"""Node: judge the held-back candidates only when nothing judged before them answers.

A run's candidates are its hybrid top_k, the structured finds (keyword tree, graph) that
`retrievers.sources.gather` adds, marked `reserve` 1, and (a root run) the next hybrid hits,
marked `reserve` 2. The judges see the hybrid top_k first; when one of them is sufficient
(2) the question is answered at this level and the rest is dropped unjudged: a one-hop
question whose answer ranks in the top_k costs the top_k's judges alone. Otherwise the
structured finds join the run (a `chunks_added` event) and are judged: they are where a
multi-hop question's second hop is. When still nothing answers and no partial chunk asks a
follow-up, there is no chain to go down, so the search goes wider instead: the next hybrid
hits are judged (a one-hop question whose answer ranks just below the top_k, which one
retrieval of top_k never reads), with the first hits of the question searched without its
asking words (`retrievers.statement`). Then the follow-ups are planned.
"""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from treerag.nodes.common import emit
from treerag.nodes.judge import judge_tasks
from treerag.retrievers.sources import NEXT_PAGE
from treerag.state import ChunkRecord, RagState, calls_left

EVENT_KEYS = ("chunk_id", "rank", "title", "source", "retrieval_score", "found_by")
"""What a tree event says of a chunk that joins a run (as `chunks_retrieved` does)."""


async def release_reserve(state: RagState) -> dict:
    """Drop the held-back candidates when a judged chunk answers, else release the next tier."""
    chunks = state.get("chunks", [])
    held = [c for c in chunks if c.get("reserve")]
    if not held:
        return {}
    tier = min(int(c["reserve"]) for c in held)
    answered = any(c.get("score") == 2 for c in chunks)
    # Wider only where there is nothing to go deeper along, and calls left to look with.
    deeper = any(c.get("followup") for c in chunks)
    if answered or (tier == NEXT_PAGE and (deeper or not calls_left(state))):
        return {"chunks": {"replace": [c for c in chunks if not c.get("reserve")]}}
    held = [c for c in held if int(c["reserve"]) == tier]
    emit(
        "chunks_added",
        thread_id=state.get("thread_id", ""),
        root_thread_id=state.get("root_thread_id", ""),
        depth=state.get("depth", 0),
        chunks=[{k: v for k, v in c.items() if k in EVENT_KEYS} for c in held],
    )
    return {"chunks": [ChunkRecord(chunk_id=c["chunk_id"], reserve=0) for c in held]}


def route_after_release(state: RagState) -> list[Send] | Literal["plan_followups"]:
    """Judge the finds just released, or go on to plan the follow-ups."""
    waiting = [c for c in state.get("chunks", []) if "score" not in c and not c.get("reserve")]
    return judge_tasks(state, waiting) or "plan_followups"
