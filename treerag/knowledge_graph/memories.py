"""Memories that expansion paths map to (seed 04 §2.3, §3.5): entities or text units."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from treerag.knowledge_graph.world import World

MemoryUnit = Literal["entity", "chunk"]


@dataclass(frozen=True, slots=True)
class Memory:
    """A retrievable unit ranked by the expansion: importance and times feed the final score."""

    id: str
    importance: float = 0.5
    created_at: float = 0.0
    last_accessed_at: float | None = None


class MemoryMap:
    """Memories and which graph nodes belong to which memories (node → memory ids)."""

    def __init__(self, memories: Sequence[Memory], node_memories: Mapping[str, Sequence[str]]):
        self.memories: list[Memory] = list(memories)
        self.position: dict[str, int] = {m.id: i for i, m in enumerate(self.memories)}
        if len(self.position) != len(self.memories):
            raise ValueError("memory ids must be unique")
        self.node_memories: dict[str, tuple[str, ...]] = {}
        for node, ids in node_memories.items():
            unknown = [i for i in ids if i not in self.position]
            if unknown:
                raise ValueError(f"node {node!r} maps to unknown memory {unknown[0]!r}")
            # Order-preserving de-duplication keeps the mapping deterministic.
            self.node_memories[node] = tuple(dict.fromkeys(ids))

    def __len__(self) -> int:
        return len(self.memories)

    def get(self, memory_id: str) -> Memory:
        """Return the memory with this id."""
        return self.memories[self.position[memory_id]]

    def of_node(self, node_id: str) -> tuple[str, ...]:
        """Return the ids of the memories a node belongs to."""
        return self.node_memories.get(node_id, ())


def entity_memories(world: World) -> MemoryMap:
    """Return one memory per entity (each entity belongs to itself)."""
    memories = [
        Memory(e.id, e.importance, e.created_at, e.last_accessed_at) for e in world.entities()
    ]
    return MemoryMap(memories, {m.id: (m.id,) for m in memories})


def chunk_memories(world: World) -> MemoryMap:
    """Return one memory per text unit; an entity belongs to the chunks that mention it."""
    memories = [
        Memory(c.id, c.importance, c.created_at, c.last_accessed_at) for c in world.chunks()
    ]
    known = {m.id for m in memories}
    mapping = {
        e.id: [c for c in e.chunk_ids if c in known] for e in world.entities() if e.chunk_ids
    }
    return MemoryMap(memories, mapping)


def world_memories(world: World, unit: MemoryUnit = "entity") -> MemoryMap:
    """Return the world's memory map of the given unit, cached until the world changes."""
    if unit == "entity":
        return world.cached("memories:entity", lambda: entity_memories(world))
    if unit == "chunk":
        return world.cached("memories:chunk", lambda: chunk_memories(world))
    raise ValueError(f"unknown memory unit {unit!r}; use 'entity' or 'chunk'")
