"""Communities of entities (Louvain, fixed seed) and their summaries (seed 05 step 2)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from treerag.knowledge_graph.model import Edge, Entity, attributes_text
from treerag.knowledge_graph.text import truncate_tokens
from treerag.knowledge_graph.world import World
from treerag.text import split_sentences


@dataclass(frozen=True)
class CommunityMembers:
    """What a summarizer sees: the community's entities (most connected first) and edges."""

    entities: Sequence[Entity]
    edges: Sequence[Edge]


Summarizer = Callable[[CommunityMembers], str]
"""Write a community summary; an LLM-backed one can replace the extractive default."""


@dataclass(frozen=True)
class Community:
    """A group of densely connected entities with a title and a summary."""

    id: str
    entity_ids: tuple[str, ...]
    title: str
    summary: str
    rank: float
    """Importance of the community: the sum of its members' degrees."""


@dataclass
class CommunityIndex:
    """Communities of one graph state, with an entity → community lookup."""

    communities: list[Community]
    fingerprint: str
    summarizer: str = "extractive"
    by_entity: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.by_entity = {e: c.id for c in self.communities for e in c.entity_ids}
        self._by_id = {c.id: c for c in self.communities}

    def get(self, community_id: str) -> Community | None:
        """Return a community by id."""
        return self._by_id.get(community_id)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready form."""
        return {
            "fingerprint": self.fingerprint,
            "summarizer": self.summarizer,
            "communities": [
                {
                    "id": c.id,
                    "entity_ids": list(c.entity_ids),
                    "title": c.title,
                    "summary": c.summary,
                    "rank": c.rank,
                }
                for c in self.communities
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CommunityIndex:
        """Build from the form written by to_dict."""
        communities = [
            Community(
                str(c["id"]),
                tuple(c["entity_ids"]),
                str(c["title"]),
                str(c["summary"]),
                float(c["rank"]),
            )
            for c in data["communities"]
        ]
        return cls(communities, str(data["fingerprint"]), str(data.get("summarizer", "")))


def graph_fingerprint(world: World) -> str:
    """Return a hash of the entity and edge ids (and endpoints) of a world."""
    h = hashlib.sha1(usedforsecurity=False)
    for entity in world.entities():
        h.update(entity.id.encode() + b"\0")
    h.update(b"\1")
    for edge in world.edges():
        h.update(f"{edge.id}\0{edge.source}\0{edge.target}\0".encode())
    return h.hexdigest()


def _weighted_graph(world: World) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(world.graph.nodes)
    for edge in world.edges():
        if edge.source == edge.target:
            continue
        # Parallel and opposite edges add up; a zero importance still links the pair.
        w = max(edge.importance, 1e-3)
        if graph.has_edge(edge.source, edge.target):
            graph[edge.source][edge.target]["weight"] += w
        else:
            graph.add_edge(edge.source, edge.target, weight=w)
    return graph


def extractive_summary(members: CommunityMembers, max_tokens: int = 150) -> str:
    """Summarize offline: the first sentence of the top entities' descriptions, then relations."""
    lines = []
    for entity in members.entities[:5]:
        about = entity.description or attributes_text(entity.attributes, " / ")
        first = split_sentences(about)[:1]
        lines.append(f"{entity.label} ({entity.type})" + (f": {first[0]}" if first else ""))
    labels = {e.id: e.label for e in members.entities}
    ranked = sorted(members.edges, key=lambda e: -e.importance)[:5]
    lines += [f"{labels[e.source]} —{e.label}→ {labels[e.target]}" for e in ranked]
    return truncate_tokens("; ".join(lines), max_tokens)


def detect_communities(
    world: World,
    *,
    summarizer: Summarizer | None = None,
    seed: int = 42,
    resolution: float = 1.0,
) -> CommunityIndex:
    """Partition entities with Louvain (deterministic for a fixed seed) and summarize each group."""
    summarize = summarizer or extractive_summary
    graph = _weighted_graph(world)
    groups = nx.community.louvain_communities(
        graph, weight="weight", resolution=resolution, seed=seed
    )
    order = {n: i for i, n in enumerate(world.graph.nodes)}
    groups = sorted(groups, key=lambda g: (-len(g), min(order[n] for n in g)))
    group_of = {n: i for i, g in enumerate(groups) for n in g}
    inner: list[list[Edge]] = [[] for _ in groups]
    for edge in world.edges():
        if group_of[edge.source] == group_of[edge.target]:
            inner[group_of[edge.source]].append(edge)
    communities = []
    for number, group in enumerate(groups):
        members = sorted(group, key=lambda n: (-world.degree(n), order[n]))
        ents = [e for e in (world.get_entity(n) for n in members) if e is not None]
        summary = summarize(CommunityMembers(ents, inner[number]))
        title = ", ".join(e.label for e in ents[:3])
        rank = float(sum(world.degree(n) for n in members))
        communities.append(Community(f"c{number}", tuple(members), title, summary, rank))
    return CommunityIndex(communities, graph_fingerprint(world), _summarizer_name(summarize))


def _summarizer_name(summarizer: Summarizer) -> str:
    return getattr(summarizer, "__name__", type(summarizer).__name__)


def world_communities(world: World, summarizer: Summarizer | None = None) -> CommunityIndex:
    """Return the world's communities, computed once per world version (or loaded from disk).

    A cached index made by another summarizer than the one asked for is recomputed.
    """
    cached = world.peek_cached("communities")
    wanted = _summarizer_name(summarizer) if summarizer is not None else None
    if isinstance(cached, CommunityIndex) and wanted in (None, cached.summarizer):
        return cached
    index = detect_communities(world, summarizer=summarizer)
    world.put_cached("communities", index)
    return index
