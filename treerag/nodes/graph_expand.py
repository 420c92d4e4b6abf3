"""Node: expand the question over the entity graph and add its context for the answer."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.common import context_of, emit
from treerag.retrievers.knowledge_graph import entity_graph_context
from treerag.state import RagState


async def expand_entity_graph(state: RagState, runtime: Runtime[Context]) -> dict:
    """Seed from vector search, expand scored paths, build the local-search context (the root's).

    Sub-runs are routed past it (`graphs.rag.route_to_answer`): their answers feed the
    root's, which gets the graph context once.
    """
    ctx = context_of(runtime)
    if state.get("error") or ctx.structure == "none":
        return {}
    found = await asyncio.to_thread(entity_graph_context, ctx, state["question"])
    if found is None:
        return {}
    paths = [{"path": text, "score": round(score, 4)} for text, score in found.paths]
    emit(
        "graph_expanded",
        thread_id=state.get("thread_id", ""),
        root_thread_id=state.get("root_thread_id", ""),
        depth=0,
        paths=paths,
    )
    return {"context_notes": [{"kind": "graph", "text": found.text, "paths": paths}]}
