"""The Milvus vector index, for real, against Milvus Lite in a temporary directory."""

from __future__ import annotations

import numpy as np
import pytest

from tests.knowledge_graph.graphs import seed01_world
from treerag.knowledge_graph import World
from treerag.knowledge_graph.embedding import normalize_rows

pytest.importorskip("milvus_lite")
from treerag.knowledge_graph.milvus_index import MilvusVectorIndex  # noqa: E402


def test_round_trip(tmp_path):
    uri = str(tmp_path / "kg.db")
    index = MilvusVectorIndex(uri, "kg_test")
    assert len(index) == 0 and index.search(np.ones(4), 3) == []
    vectors = normalize_rows(np.random.default_rng(0).normal(size=(5, 4)))
    ids = ["a", "b", "c", 'q"uote', "e"]
    index.upsert(ids, vectors, ["entity", "entity", "edge", "entity", "edge"])
    assert len(index) == 5
    hits = index.search(vectors[2], 2)
    assert hits[0][0] == "c" and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert {i for i, _ in index.search(vectors[2], 5, kind="entity")} == {"a", "b", 'q"uote'}
    found, rows = index.fetch(["e", "zzz", 'q"uote'])
    assert found == ["e", 'q"uote'] and np.allclose(rows, vectors[[4, 3]], atol=1e-6)
    index.upsert(["a"], vectors[[4]], ["entity"])  # replace
    assert len(index) == 5 and np.allclose(index.fetch(["a"])[1][0], vectors[4], atol=1e-6)
    index.delete(["b"])
    assert len(index) == 4
    index.close()
    reopened = MilvusVectorIndex(uri, "kg_test")
    assert len(reopened) == 4 and reopened.search(vectors[2], 1)[0][0] == "c"
    with pytest.raises(ValueError, match="vector size"):
        reopened.upsert(["x"], np.ones((1, 3)), ["entity"])
    reopened.close()


def test_world_on_milvus(embed, tmp_path):
    index = MilvusVectorIndex(str(tmp_path / "kg.db"), "world")
    world = World(embed, index=index)
    reference = seed01_world(embed)
    world.add_entities(list(reference.entities()))
    world.add_edges(list(reference.edges()))
    assert [r.id for r in world.search("安提哥努斯家族笔记", 2)] == [
        r.id for r in reference.search("安提哥努斯家族笔记", 2)
    ]
    world.save(tmp_path / "graph")
    assert not (tmp_path / "graph" / "vectors.npz").exists()  # vectors live in Milvus
    loaded = World.load(tmp_path / "graph", embed, index=index)
    assert len(loaded.index) == 9
    assert loaded.search_entities("值夜者", 1)[0].id == "nighthawks"
    index.close()


def test_factory(tmp_path):
    from treerag.knowledge_graph import NumpyVectorIndex, make_vector_index

    assert isinstance(make_vector_index(None), NumpyVectorIndex)
    index = make_vector_index(str(tmp_path / "f.db"), "factory")
    assert isinstance(index, MilvusVectorIndex) and len(index) == 0
    index.close()
