"""The vectorised expansion equals the plain per-path reference on random graphs."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.knowledge_graph.graphs import NOW
from treerag.knowledge_graph import (
    Edge,
    Entity,
    ExpansionConfig,
    MemoryMap,
    World,
    compact_graph,
    expand_paths,
    expand_paths_reference,
    world_memories,
)
from treerag.knowledge_graph.memories import Memory
from treerag.knowledge_graph.paths import ExpansionResult, rankings_match

TYPES = ["reference", "attribute", "relation", "temporal", "co_occurs", "default"]


@st.composite
def cases(draw):
    n = draw(st.integers(1, 18))
    dim = 4
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    # some nodes have no vector (all zeros): they score 0.3
    vectors[rng.random(n) < 0.2] = 0.0
    world = World()
    world.add_entities(
        [
            Entity(
                id=f"n{i}",
                importance=float(rng.choice([0.5, rng.random()])),
                created_at=NOW - float(rng.uniform(0, 90)) * 86400,
                last_accessed_at=None
                if rng.random() < 0.5
                else NOW - float(rng.uniform(0, 9)) * 86400,
            )
            for i in range(n)
        ],
        vectors,
    )
    m = draw(st.integers(0, 4 * n))
    # equal importances make ties: the tie-breaking rules must agree too
    world.add_edges(
        [
            Edge(
                id=f"e{j}",
                source=f"n{rng.integers(n)}",
                target=f"n{rng.integers(n)}",
                type=str(rng.choice(TYPES)),
                importance=float(rng.choice([1.0, 0.5, rng.random()])),
            )
            for j in range(m)
        ]
    )
    k = draw(st.integers(0, n))
    seeds = [(f"n{i}", float(rng.choice([0.5, rng.random()]))) for i in rng.permutation(n)[:k]]
    config = ExpansionConfig(
        max_hops=draw(st.integers(0, 3)),
        max_branches_per_node=draw(st.integers(1, 6)),
        directed=draw(st.booleans()),
        merge_strategy=draw(st.sampled_from(["weighted_geometric", "max_bonus"])),
        merge_score_tolerance=draw(st.sampled_from([0.1, 0.3, 1.0])),
        pruning_threshold=draw(st.sampled_from([0.9, 0.5, 0.0])),
    )
    if draw(st.booleans()):
        memories = world_memories(world)
    else:
        docs = [
            Memory(f"d{i}", float(rng.random()), NOW - float(rng.uniform(0, 60)) * 86400)
            for i in range(4)
        ]
        mapping = {f"n{i}": [f"d{j}" for j in range(4) if rng.random() < 0.4] for i in range(n)}
        memories = MemoryMap(docs, mapping)
    return world, seeds, rng.normal(size=dim), config, memories


def assert_same(a: ExpansionResult, b: ExpansionResult) -> None:
    assert a.hops == b.hops
    assert a.leaf_count == b.leaf_count
    assert rankings_match(
        [(m.memory.id, m.score) for m in a.memories], [(m.memory.id, m.score) for m in b.memories]
    )
    for x, y in zip(a.memories, b.memories, strict=True):
        assert x.path_count == y.path_count
    key = lambda p: (repr((p.nodes, p.edges, p.forward)), p.score)  # noqa: E731
    assert rankings_match([key(p) for p in a.paths], [key(p) for p in b.paths])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_vectorised_equals_reference(case):
    world, seeds, query, config, memories = case
    kwargs = dict(memories=memories, config=config, now=NOW, top_k=None, top_paths=None)
    fast = expand_paths(compact_graph(world), seeds, query, **kwargs)
    slow = expand_paths_reference(world, seeds, query, **kwargs)
    assert_same(fast, slow)


def test_vectorised_equals_reference_on_a_bigger_graph():
    rng = np.random.default_rng(11)
    n, m = 400, 2400
    world = World()
    world.add_entities(
        [Entity(id=f"n{i}", importance=float(rng.random())) for i in range(n)],
        rng.normal(size=(n, 16)).astype(np.float32),
    )
    world.add_edges(
        [
            Edge(
                id=f"e{j}",
                source=f"n{rng.integers(n)}",
                target=f"n{rng.integers(n)}",
                type=TYPES[j % len(TYPES)],
                importance=float(rng.random()),
            )
            for j in range(m)
        ]
    )
    query = rng.normal(size=16)
    seeds = world.index.search(query, 20, "entity")
    for directed in (True, False):
        cfg = ExpansionConfig(max_hops=3, directed=directed)
        memories = world_memories(world)
        fast = expand_paths(
            compact_graph(world), seeds, query, memories=memories, config=cfg, now=NOW
        )
        slow = expand_paths_reference(world, seeds, query, memories=memories, config=cfg, now=NOW)
        assert_same(fast, slow)
        assert sum(h.merged for h in fast.hops) > 0  # merges really happened
        assert sum(h.pruned for h in fast.hops) > 0
