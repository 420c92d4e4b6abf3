"""The graph explorer's routes: search an entity, and one entity with its neighbours.

Both read the caller's tenant's graphs (`context_for`), so an entity of another tenant is
never found: a search finds nothing and a lookup is a 404.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from treerag.context import Context
from treerag.web.documents import _json, context_for

MAX_QUERY = 200
"""Longest search text and entity id accepted (a name, not a document)."""


def _graphs(ctx: Context) -> tuple[Any, Any]:
    """The passage graph's file and the entity graph (None without one) of a data directory."""
    from treerag.retrievers.knowledge_graph import load_world
    from treerag.retrievers.sources import passage_graph_file

    return passage_graph_file(ctx), load_world(ctx)


def _search(ctx: Context, text: str) -> dict[str, Any]:
    from treerag.knowledge_graph import explore

    path, world = _graphs(ctx)
    return {
        "query": text,
        "entities": explore.search(path, world, text),
        "graphs": {"passages": path.exists(), "entities": world is not None},
    }


def _entity(ctx: Context, node: str) -> dict[str, Any] | None:
    from treerag.knowledge_graph import explore

    path, world = _graphs(ctx)
    return explore.entity(path, world, node)


async def search_graph(request: Request) -> Response:
    """Search the graphs' entities by name, in either script.

    ---
    summary: Entities whose name holds q (GET /ui/api/graph/search?q=)
    responses:
      200: {description: "query, entities: [{id, label, names, passages, graphs}], graphs"}
      400: {description: no q, or one too long}
    """
    ctx = await context_for(request)
    text = request.query_params.get("q", "").strip()
    if not text or len(text) > MAX_QUERY:
        return _json({"error": f"give q: a name of 1 to {MAX_QUERY} characters"}, 400)
    return _json(await asyncio.to_thread(_search, ctx, text))


async def graph_entity(request: Request) -> Response:
    """One entity: its names, passages, and neighbours with what links them.

    ---
    summary: An entity and its neighbourhood (GET /ui/api/graph/entity?id=)
    responses:
      200: {description: "id, label, names, passages, passage_count, neighbours: [{id, label,
        link, relation, passages}]"}
      400: {description: no id, or one too long}
      404: {description: no such entity in the caller's graphs}
    """
    ctx = await context_for(request)
    node = request.query_params.get("id", "")
    if not node or len(node) > MAX_QUERY:
        return _json({"error": f"give id: an entity id of 1 to {MAX_QUERY} characters"}, 400)
    found = await asyncio.to_thread(_entity, ctx, node)
    if found is None:
        return _json({"error": f"no entity {node!r} in this data directory's graphs"}, 404)
    return _json(found)
