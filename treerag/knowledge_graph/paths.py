"""Result types of the path expansion and helpers shared by both implementations."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from treerag.knowledge_graph.errors import MissingEntityError
from treerag.knowledge_graph.memories import Memory

if TYPE_CHECKING:
    from treerag.knowledge_graph.world import World


@dataclass(frozen=True)
class ScoredPath:
    """A walk from a seed: node ids, the edges taken, and its propagated score (§2.4)."""

    nodes: tuple[str, ...]
    edges: tuple[str, ...]
    forward: tuple[bool, ...]
    """Per edge: True when walked from source to target, False when walked backwards."""
    score: float
    merged_from: tuple[ScoredPath, ...] = ()
    """The two routes that met at the end node, each with its own score, if merged."""

    @property
    def depth(self) -> int:
        """Return the number of edges."""
        return len(self.edges)

    @property
    def is_merged(self) -> bool:
        """Return whether two paths were merged into this one."""
        return bool(self.merged_from)


@dataclass(frozen=True)
class ScoredMemory:
    """A memory with its final score and the parts it was made of (§3.6)."""

    memory: Memory
    score: float
    path_score: float
    importance: float
    recency: float
    path_count: int
    paths: tuple[ScoredPath, ...] = ()
    """The best contributing leaf paths, best first."""


@dataclass(frozen=True)
class HopStats:
    """What happened in one hop."""

    hop: int
    candidates: int
    pruned: int
    merged: int
    paths: int


@dataclass(frozen=True)
class ExpansionResult:
    """Ranked memories, the best leaf paths, and per-hop statistics."""

    memories: list[ScoredMemory]
    paths: list[ScoredPath]
    hops: list[HopStats] = field(default_factory=list)
    leaf_count: int = 0


def normalise_seeds(
    seeds: Iterable[tuple[str, float]], known: Iterable[str] | None = None
) -> list[tuple[str, float]]:
    """Return seeds with scores clipped to [0, 1], one per node (the best score, first place).

    Vector search can return negative cosines; seed scores live in the same [0, 1] range as
    node scores (§4.3). Unknown node ids raise MissingEntityError when ``known`` is given.
    """
    best: dict[str, float] = {}
    for node, score in seeds:
        clipped = min(1.0, max(0.0, float(score)))
        if node not in best or clipped > best[node]:
            best[node] = clipped
    if known is not None:
        known_set = known if isinstance(known, set | dict) else set(known)
        for node in best:
            if node not in known_set:
                raise MissingEntityError(f"seed {node!r} is not an entity of this graph")
    return list(best.items())


def format_path(path: ScoredPath, world: World, *, with_score: bool = True) -> str:
    """Render "A —member of→ B ←located in— C  0.72" using entity and edge labels."""
    parts = [_entity_label(world, path.nodes[0])]
    for edge_id, node, fwd in zip(path.edges, path.nodes[1:], path.forward, strict=True):
        edge = world.get_edge(edge_id)
        label = edge.label if edge is not None else edge_id
        arrow = f" —{label}→ " if fwd else f" ←{label}— "
        parts.append(arrow + _entity_label(world, node))
    text = "".join(parts)
    return f"{text}  {path.score:.2f}" if with_score else text


def _entity_label(world: World, entity_id: str) -> str:
    entity = world.get_entity(entity_id)
    return entity.label if entity is not None else entity_id


def rankings_match(
    a: Sequence[tuple[str, float]], b: Sequence[tuple[str, float]], tol: float = 1e-9
) -> bool:
    """Return whether two rankings agree: same scores and ids, except order within near-ties.

    The implementations compute cosines with different BLAS calls, so scores may differ in
    the last bits; items whose scores are within tol may then swap places.
    """
    if len(a) != len(b):
        return False
    for (ida, sa), (idb, sb) in zip(a, b, strict=True):
        if abs(sa - sb) > tol:
            return False
        if ida != idb:
            score_b = dict(b).get(ida)
            if score_b is None or abs(score_b - sa) > tol:
                return False
    return True
