"""Entity-graph retrieval for the rag run: seed search, path expansion, local context.

The entity graph is the `World` of `treerag.knowledge_graph` (`world.json`: extracted or
imported entities and relations); the passage graph beside it is `retrievers.sources`'s.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from treerag import data_layout
from treerag.bounded import BoundedCache
from treerag.context import GRAPH_TOKEN_BUDGET, Context

_worlds: BoundedCache[str, tuple[float, Any]] = BoundedCache("knowledge graphs")
"""Loaded graphs (in memory, with their file's mtime), one per tenant and collection."""
CONTEXTS_KEPT = 64
"""Graph contexts kept in memory, each with the world it was read from (a changed file is
loaded as a new world, so its contexts are never taken for the old one's)."""
_contexts: BoundedCache[tuple[Any, ...], tuple[Any, Any]] = BoundedCache(
    "graph contexts", CONTEXTS_KEPT
)
_lock = threading.Lock()


def graph_dir(ctx: Context) -> Path:
    """The folder of a data directory's passage graph and entity graph."""
    return data_layout.knowledge_graph_dir(ctx.stores_path)


def embedder_id(embeddings: Any) -> str:
    """Identify an embeddings object, so a graph embedded by another model is re-embedded."""
    model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None) or ""
    return f"{type(embeddings).__name__}:{model}" if model else type(embeddings).__name__


def load_world(ctx: Context) -> Any | None:
    """Load the data directory's entity graph (cached until its file changes); None without one."""
    from treerag.knowledge_graph import World, embed_from_documents
    from treerag.models import similarity_embeddings

    directory = graph_dir(ctx)
    path = data_layout.world_file(directory)
    if not path.exists():
        return None
    mtime = path.stat().st_mtime
    key = str(directory.resolve())
    with _lock:
        cached = _worlds.get(key)
        if cached and cached[0] == mtime:
            return cached[1]
        embeddings = similarity_embeddings(ctx)
        world = World.load(
            directory, embed_from_documents(embeddings), embed_id=embedder_id(embeddings)
        )
        _worlds.put(key, (mtime, world), ctx.open_stores)
        return world


def entity_graph_context(ctx: Context, question: str, top_paths: int = 5) -> Any | None:
    """Run seed search → expansion → local-search context, under the context's token budgets.

    The last few results are kept per graph: the root's candidates (`path_source`) and its
    context note ask the same question of the same graph.
    """
    world = load_world(ctx)
    if world is None:
        return None
    budget = {**GRAPH_TOKEN_BUDGET, **ctx.graph_token_budget}  # parts left out keep defaults
    key = (id(world), question, top_paths, ctx.graph_directed, tuple(sorted(budget.items())))
    kept = _contexts.get(key)
    if kept is not None and kept[0] is world:
        return kept[1]
    found = _query(world, question, top_paths, budget, ctx.graph_directed)
    _contexts.put(key, (world, found))
    return found


def _query(
    world: Any, question: str, top_paths: int, budget: dict[str, Any], directed: bool
) -> Any:
    from treerag.knowledge_graph import (
        ExpansionConfig,
        GraphQueryConfig,
        LocalSearchConfig,
        query_graph,
    )

    local = LocalSearchConfig(
        text_unit_tokens=int(budget["text_units"]),
        relationship_tokens=int(budget["relationships"]),
        entity_tokens=int(budget["entities"]),
        community_tokens=int(budget["communities"]),
    )
    # Seed 04 assumes a directed graph (§8.5 Q3 gives the undirected variant): questions
    # often name the object of a relation, so by default the node walks edges both ways.
    expansion = ExpansionConfig(directed=directed)
    config = GraphQueryConfig(top_paths=top_paths, local=local, expansion=expansion)
    return query_graph(world, question, config=config)


def build_from_collection(ctx: Context, extractor: Any) -> Any:
    """Extract entities and relations from every ingested chunk into the data directory's graph.

    Chunks stay linked to the entities they mention; communities are recomputed and the
    graph is saved. Returns the engine's BuildReport.
    """
    from treerag.knowledge_graph import (
        TextUnit,
        World,
        build_from_chunks,
        embed_from_documents,
        world_communities,
    )
    from treerag.models import get_embeddings, similarity_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    embeddings = similarity_embeddings(ctx)
    store = ChunkStore(ctx, get_embeddings(ctx))
    store.require_data()
    units = [TextUnit(id=r["id"], text=r["text"], title=r["title"]) for r in store.all_rows()]
    world = load_world(ctx) or World(
        embed_from_documents(embeddings), embed_id=embedder_id(embeddings)
    )
    report = build_from_chunks(world, units, extractor)
    world_communities(world)
    world.save(graph_dir(ctx))
    return report
