"""One call from a question to graph context: seed search → path expansion → local search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from treerag.knowledge_graph.communities import Summarizer, world_communities
from treerag.knowledge_graph.compact import compact_graph
from treerag.knowledge_graph.config import ExpansionConfig
from treerag.knowledge_graph.embedding import Embed, embed_checked
from treerag.knowledge_graph.expansion import expand_paths
from treerag.knowledge_graph.local_search import (
    LocalContext,
    LocalSearchConfig,
    build_local_context,
)
from treerag.knowledge_graph.memories import MemoryUnit, world_memories
from treerag.knowledge_graph.names import with_named_seeds
from treerag.knowledge_graph.paths import ExpansionResult, format_path
from treerag.knowledge_graph.world import World


@dataclass(frozen=True)
class GraphQueryConfig:
    """Settings of query_graph: seed count, expansion and local-search budgets."""

    seed_k: int = 5
    """Entities taken from vector search as expansion seeds. Keep it well below the graph's
    size: a path into a seed is pruned unless it beats 0.9 × that seed's own score."""
    name_seeds: bool = True
    """Entities the question names (label or name attribute) join the seeds with the score
    of a perfect match (see names.py)."""
    top_paths: int = 10
    """Scored paths rendered for the prompt and returned."""
    min_path_score: float = 0.0
    """Leave out paths scoring less (useful with embedders whose scores run high)."""
    expansion: ExpansionConfig = field(default_factory=ExpansionConfig)
    local: LocalSearchConfig = field(default_factory=LocalSearchConfig)


@dataclass(frozen=True)
class GraphContext:
    """What the graph knows about a question, ready for an answer prompt."""

    question: str
    text: str
    """Context tables (reports, entities, relationships, paths, sources) for the prompt."""
    paths: list[tuple[str, float]]
    """Top paths rendered like "A —member of→ B —located in→ C", with their scores."""
    seeds: list[tuple[str, float]]
    expansion: ExpansionResult
    local: LocalContext


def query_graph(
    world: World,
    question: str,
    *,
    embed: Embed | None = None,
    config: GraphQueryConfig | None = None,
    summarizer: Summarizer | None = None,
    now: float | None = None,
) -> GraphContext:
    """Answer-side entry point: build the graph context of a question.

    The question is embedded (with ``embed``, else the world's own embed function, which
    must be the one its vectors were made with); the nearest entities seed the path
    expansion; the entities it ranks highest (seeds fill any gap) select the local-search
    tables; the best paths are rendered into their own table.
    """
    cfg = config or GraphQueryConfig()
    vector = query_vector(world, question, embed)
    seeds = select_seeds(world, question, vector, cfg.seed_k, named=cfg.name_seeds)
    expansion = expand_world(
        world,
        seeds,
        vector,
        config=cfg.expansion,
        now=now,
        top_k=cfg.local.top_k_entities,
        top_paths=cfg.top_paths,
        min_path_depth=1,
    )
    paths = [
        (format_path(p, world, with_score=False), p.score)
        for p in expansion.paths
        if p.score >= cfg.min_path_score
    ]
    local = build_local_context(
        world,
        _selection(expansion, seeds, cfg.local.top_k_entities),
        config=cfg.local,
        communities=world_communities(world, summarizer) if cfg.local.include_communities else None,
        paths=paths,
    )
    return GraphContext(question, local.text, paths, seeds, expansion, local)


def select_seeds(
    world: World, question: str, vector: np.ndarray, k: int, *, named: bool = True
) -> list[tuple[str, float]]:
    """The expansion's seeds: the k entities nearest the question, plus those it names."""
    seeds = [(r.id, r.score) for r in world.search_entities(vector, k)]
    return with_named_seeds(world, question, seeds) if named else seeds


def expand_world(
    world: World,
    seeds: list[tuple[str, float]],
    vector: np.ndarray,
    *,
    config: ExpansionConfig | None = None,
    unit: MemoryUnit = "entity",
    **kwargs: Any,
) -> ExpansionResult:
    """Run the vectorised expansion on a world (its cached compact form and memory map)."""
    memories = world_memories(world, unit)
    return expand_paths(
        compact_graph(world), seeds, vector, memories=memories, config=config, **kwargs
    )


def _selection(
    expansion: ExpansionResult, seeds: list[tuple[str, float]], k: int
) -> list[tuple[str, float]]:
    chosen = {m.memory.id: m.score for m in expansion.memories}
    for entity_id, score in seeds:
        if len(chosen) >= k:
            break
        chosen.setdefault(entity_id, score)
    return list(chosen.items())[:k]


def query_vector(world: World, question: str, embed: Embed | None = None) -> np.ndarray:
    """Embed a question the way query_graph does."""
    return embed_checked(embed, [question])[0] if embed is not None else world.embed_query(question)
