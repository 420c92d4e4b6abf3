"""The in-memory numpy vector index and the hashed embedder."""

from __future__ import annotations

import numpy as np
import pytest

from treerag.knowledge_graph import HashEmbedder, NumpyVectorIndex, VectorIndex


def test_numpy_index_round_trip(tmp_path):
    index = NumpyVectorIndex()
    assert isinstance(index, VectorIndex)
    eye = np.eye(4, dtype=np.float32)
    index.upsert(
        ["a", "b", "c"], eye[:3] * 3, ["entity", "edge", "entity"]
    )  # normalised on the way in
    assert index.search(eye[0], 1) == [("a", pytest.approx(1.0))]
    assert [i for i, _ in index.search(eye[1], 3, kind="entity")][0] in {"a", "c"}
    assert "b" not in {i for i, _ in index.search(eye[1], 3, kind="entity")}
    index.upsert(["d"], eye[[1]], ["entity"])  # a write refreshes the per-kind masks
    assert index.search(eye[1], 1, kind="entity")[0][0] == "d"
    index.delete(["a", "zzz"])
    assert len(index) == 3 and index.fetch(["a"])[0] == []
    found, rows = index.fetch(["d", "c"])
    assert found == ["d", "c"] and np.allclose(rows, eye[[1, 2]])
    index.save(tmp_path / "v.npz")
    again = NumpyVectorIndex.load(tmp_path / "v.npz")
    assert again.search(eye[2], 2) == index.search(eye[2], 2)
    with pytest.raises(ValueError, match="vector size"):
        again.upsert(["x"], np.ones((1, 3)), ["entity"])


def test_ties_go_to_the_earlier_insert():
    index = NumpyVectorIndex()
    index.upsert(["late", "early"][::-1], np.ones((2, 3)), ["entity", "entity"])
    assert [i for i, _ in index.search(np.ones(3), 2)] == ["early", "late"]


def test_hash_embedder_is_deterministic_and_lexical():
    embed = HashEmbedder(dim=64)
    a, b, c = embed(["Klein joined the Nighthawks", "the Nighthawks Klein joined", "值夜者"])
    assert np.allclose(a, b) and np.linalg.norm(a) == pytest.approx(1.0)
    assert float(a @ c) < 0.5
    zh = embed(["克莱恩加入值夜者", "值夜者的队长"])
    assert float(zh[0] @ zh[1]) > 0.3  # shared characters and bigrams
    assert np.array_equal(embed(["x"]), HashEmbedder(dim=64)(["x"]))
    assert not np.any(embed([""]))
