"""Path-scoring expansion on small graphs, computed by hand (seed 04 §3, §7.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.knowledge_graph.graphs import NOW, one_hot, vector_world
from treerag.knowledge_graph import (
    Entity,
    ExpansionConfig,
    MemoryMap,
    MergeStrategy,
    MissingEntityError,
    World,
    compact_graph,
    expand_paths,
    expand_paths_reference,
    format_path,
    world_memories,
)
from treerag.knowledge_graph.memories import Memory

IMPLEMENTATIONS = ["vectorised", "reference"]


def run(impl, world, seeds, query, **kwargs):
    kwargs.setdefault("now", NOW)
    if impl == "vectorised":
        memories = kwargs.pop("memories", None) or world_memories(world)
        return expand_paths(compact_graph(world), seeds, query, memories=memories, **kwargs)
    return expand_paths_reference(world, seeds, query, **kwargs)


def five_nodes() -> World:
    # seed 04 §7.2: A→B, A→C, B→D, C→D, D→E; node scores B 0.6, D 0.8, others 0.
    vectors = {n: one_hot(5, i) for i, n in enumerate("ABCDE")}
    return vector_world(vectors, [("A", "B"), ("A", "C"), ("B", "D"), ("C", "D"), ("D", "E")])


QUERY = [0.0, 0.6, 0.0, 0.8, 0.0]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_five_node_graph_by_hand(impl):
    world = five_nodes()
    result = run(impl, world, [("A", 0.9), ("B", 0.7)], QUERY, top_k=5)
    # hop 1 (α = 0.85): A→B 0.855, A→C 0.765, B→D 0.715; hop 2 (α² = 0.7225):
    ab_d = 0.855 * 0.7225 + 0.8 * 0.2775
    ac_d = 0.765 * 0.7225 + 0.8 * 0.2775
    bd_e = 0.715 * 0.7225 + 0.0
    merged = math.sqrt(ab_d * ac_d) * 1.2  # the two routes meet at D, 0.065 apart
    assert [(h.candidates, h.pruned, h.merged, h.paths) for h in result.hops] == [
        (3, 0, 0, 3),
        (3, 0, 1, 2),
    ]
    assert result.leaf_count == 2
    top = result.paths[0]
    assert top.nodes == ("A", "B", "D") and top.score == pytest.approx(merged)
    assert [p.nodes for p in top.merged_from] == [("A", "B", "D"), ("A", "C", "D")]
    assert [p.score for p in top.merged_from] == pytest.approx([ab_d, ac_d])
    assert result.paths[1].nodes == ("B", "D", "E")
    assert result.paths[1].score == pytest.approx(bd_e)

    def final(path_score):  # importance 0.5, recency 1 (created now)
        return 0.5 * path_score + 0.3 * 0.5 + 0.2 * 1.0

    with_e = (merged + bd_e / 2) / 1.5
    scores = {m.memory.id: m.score for m in result.memories}
    # the merged path counts the nodes of both routes: C is reached too
    assert scores == pytest.approx(
        {
            "A": final(merged),
            "B": final(with_e),
            "C": final(merged),
            "D": final(with_e),
            "E": final(bd_e),
        }
    )
    assert [m.memory.id for m in result.memories] == ["A", "C", "B", "D", "E"]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_seed_integration_case_is_sorted_and_bounded(impl):
    # seed 04 §7.2 with a random query: at most top_k results, sorted by score
    world = five_nodes()
    query = np.random.default_rng(7).normal(size=5)
    result = run(impl, world, [("A", 0.9), ("B", 0.7)], query, top_k=5)
    assert 0 < len(result.memories) <= 5
    scores = [m.score for m in result.memories]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_max_bonus_strategy(impl):
    cfg = ExpansionConfig(merge_strategy=MergeStrategy.MAX_BONUS)
    result = run(impl, five_nodes(), [("A", 0.9), ("B", 0.7)], QUERY, config=cfg)
    ab_d = 0.855 * 0.7225 + 0.8 * 0.2775
    assert result.paths[0].score == pytest.approx(ab_d * 1.3)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_merge_needs_close_scores(impl):
    cfg = ExpansionConfig(merge_score_tolerance=0.05)  # the routes are 0.065 apart
    result = run(impl, five_nodes(), [("A", 0.9), ("B", 0.7)], QUERY, config=cfg)
    assert [h.merged for h in result.hops] == [0, 0]
    assert not any(p.is_merged for p in result.paths)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_pruning_drops_weak_arrivals(impl):
    # D is a seed with score 1.0; reaching it from A scores far below 0.9 × 1.0.
    world = vector_world({"A": [1, 0], "D": [0, 1]}, [("A", "D")])
    result = run(impl, world, [("A", 0.5), ("D", 1.0)], [1.0, 0.0])
    assert result.hops[0].pruned == 1 and result.hops[0].paths == 0
    assert {p.nodes for p in result.paths} == {("A",), ("D",)}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_dynamic_branching_takes_the_heaviest_edges(impl):
    # 12 out-edges; a seed scored 0 may branch 5 times, to the 5 heaviest edges.
    nodes = {"hub": [1.0, 0.0]} | {f"n{i}": [0.0, 1.0] for i in range(12)}
    edges = [("hub", f"n{i}", "default", (i + 1) / 12) for i in range(12)]
    world = vector_world(nodes, edges)
    result = run(impl, world, [("hub", 0.0)], [1.0, 0.0], config=ExpansionConfig(max_hops=1))
    assert result.hops[0].candidates == 5
    assert {p.nodes[-1] for p in result.paths} == {f"n{i}" for i in range(7, 12)}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_edge_types_order_neighbours(impl):
    nodes = {"s": [1.0, 0.0], "a": [0, 1.0], "b": [0, 1.0], "c": [0, 1.0]}
    edges = [("s", "a", "temporal", 1.0), ("s", "b", "reference", 1.0), ("s", "c", "relation", 1.0)]
    world = vector_world(nodes, edges)
    cfg = ExpansionConfig(max_hops=1, max_branches_per_node=1)
    result = run(impl, world, [("s", 0.0)], [1.0, 0.0], config=cfg)
    assert [p.nodes[-1] for p in result.paths] == ["b"]  # reference weighs 1.3


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_empty_graph_and_no_seeds(impl):
    result = run(impl, World(), [], [1.0, 0.0])
    assert result.memories == [] and result.paths == [] and result.leaf_count == 0


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_unknown_seed_is_an_error(impl):
    with pytest.raises(MissingEntityError, match="ghost"):
        run(impl, five_nodes(), [("ghost", 0.5)], QUERY)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_single_node(impl):
    world = vector_world({"solo": [1.0, 0.0]}, [])
    result = run(impl, world, [("solo", 0.8)], [1.0, 0.0])
    assert [p.nodes for p in result.paths] == [("solo",)]
    (memory,) = result.memories
    assert memory.score == pytest.approx(0.5 * 0.8 + 0.3 * 0.5 + 0.2 * 1.0)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_cycles_and_self_loops_are_not_walked(impl):
    world = vector_world(
        {"A": [1, 0], "B": [0, 1], "C": [1, 1]}, [("A", "A"), ("A", "B"), ("B", "A"), ("B", "C")]
    )
    cfg = ExpansionConfig(max_hops=4, pruning_threshold=0.0)
    result = run(impl, world, [("A", 0.9)], [1.0, 0.0], config=cfg)
    for path in result.paths:
        assert len(set(path.nodes)) == len(path.nodes)
    assert {p.nodes for p in result.paths} == {("A", "B", "C")}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_undirected_walks_edges_backwards(impl):
    world = vector_world({"A": [1, 0], "B": [0, 1]}, [("B", "A")])
    directed = run(impl, world, [("A", 0.9)], [0.0, 1.0])
    assert [p.nodes for p in directed.paths] == [("A",)]
    undirected = run(impl, world, [("A", 0.9)], [0.0, 1.0], config=ExpansionConfig(directed=False))
    (path,) = undirected.paths
    assert path.nodes == ("A", "B") and path.forward == (False,)
    assert format_path(path, world) == f"A ←default— B  {path.score:.2f}"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_nodes_without_vectors_score_point_three(impl):
    world = vector_world({"A": [1.0, 0.0], "B": [0.0, 0.0]}, [("A", "B")])
    result = run(impl, world, [("A", 1.0)], [1.0, 0.0], config=ExpansionConfig(max_hops=1))
    assert result.paths[0].score == pytest.approx(1.0 * 0.85 + 0.3 * 0.15)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_deterministic_and_independent_of_seed_order(impl):
    rng = np.random.default_rng(3)
    names = [f"n{i}" for i in range(30)]
    vectors = {n: list(rng.normal(size=6)) for n in names}
    edges = [(names[a], names[b]) for a, b in rng.integers(0, 30, size=(90, 2))]
    world = vector_world(vectors, edges)
    query = rng.normal(size=6)
    seeds = [(names[i], float(s)) for i, s in zip(range(0, 30, 3), rng.random(10), strict=True)]
    first = run(impl, world, seeds, query, top_k=None)
    again = run(impl, world, seeds, query, top_k=None)
    shuffled = run(impl, world, list(reversed(seeds)), query, top_k=None)
    assert first == again
    by_id = {m.memory.id: m.score for m in first.memories}
    assert {m.memory.id: m.score for m in shuffled.memories} == pytest.approx(by_id)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_memories_can_be_chunks_with_their_own_importance(impl):
    world = five_nodes()
    memories = MemoryMap(
        [Memory("doc1", 0.9, NOW), Memory("doc2", 0.1, NOW - 60 * 86400)],
        {"A": ["doc1"], "E": ["doc2"], "D": ["doc1", "doc2"]},
    )
    result = run(impl, world, [("A", 0.9), ("B", 0.7)], QUERY, memories=memories)
    assert [m.memory.id for m in result.memories] == ["doc1", "doc2"]
    doc2 = result.memories[1]
    assert doc2.importance == 0.1 and doc2.recency < 0.5 and doc2.path_count == 2


def test_seed_scores_are_clipped_and_deduplicated():
    world = five_nodes()
    result = expand_paths_reference(
        world,
        [("A", 1.7), ("A", 0.2), ("B", -0.3)],
        QUERY,
        now=NOW,
        config=ExpansionConfig(max_hops=0),
    )
    assert {p.nodes[0]: p.score for p in result.paths} == {"A": 1.0, "B": 0.0}


def test_query_dimension_mismatch_is_reported():
    world = five_nodes()
    from treerag.knowledge_graph import EmbeddingError

    with pytest.raises(EmbeddingError, match="dimensions"):
        expand_paths(compact_graph(world), [("A", 0.9)], [1.0, 0.0], memories=world_memories(world))


def test_compact_graph_is_rebuilt_after_changes():
    world = five_nodes()
    before = compact_graph(world)
    assert compact_graph(world) is before
    world.add_entity(Entity(id="F", name="F"), np.array([1.0, 0, 0, 0, 0]))
    assert compact_graph(world) is not before and compact_graph(world).num_nodes == 6
