"""Saving and loading a world: round trip, atomic writes, re-embedding, communities."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from treerag.knowledge_graph import (
    GraphFormatError,
    HashEmbedder,
    TextUnit,
    World,
    world_communities,
)
from treerag.knowledge_graph.storage import world_to_dict


def test_round_trip(lotm, embed, tmp_path):
    lotm.add_chunks([TextUnit(id="c1", text="克莱恩加入值夜者。", title="第一章")])
    lotm.save(tmp_path)
    loaded = World.load(tmp_path, embed)
    assert world_to_dict(loaded) == world_to_dict(lotm)
    for ident in ("klein", "notebook"):
        assert np.array_equal(loaded.entity_vector(ident), lotm.entity_vector(ident))
    assert loaded.search("安提哥努斯家族笔记", 2) == lotm.search("安提哥努斯家族笔记", 2)
    assert [e.id for e in loaded.edges()] == [e.id for e in lotm.edges()]
    assert loaded.edge_seq("obtains") == lotm.edge_seq("obtains")


def test_load_without_embedder_keeps_vectors(lotm, tmp_path):
    lotm.save(tmp_path)
    loaded = World.load(tmp_path)
    assert loaded.embed_id == lotm.embed_id
    assert np.array_equal(loaded.entity_vector("dunn"), lotm.entity_vector("dunn"))


def test_new_embedder_recomputes_vectors(lotm, embed, tmp_path):
    lotm.save(tmp_path)
    loaded = World.load(tmp_path, HashEmbedder(dim=32))
    assert loaded.embed_id == "hash-32"
    assert loaded.entity_vector("klein").shape == (32,)
    assert len(loaded.index) == 9 and loaded.vectors_recomputed == 9
    assert World.load(tmp_path, embed).vectors_recomputed == 0  # the saved vectors still fit


def test_missing_vectors_are_filled_in(lotm, embed, tmp_path):
    lotm.save(tmp_path)
    (tmp_path / "vectors.npz").unlink()
    loaded = World.load(tmp_path, embed)
    assert len(loaded.index) == 9 and loaded.vectors_recomputed == 9
    assert np.allclose(loaded.entity_vector("klein"), lotm.entity_vector("klein"))


def test_save_is_atomic(lotm, tmp_path, monkeypatch):
    lotm.save(tmp_path)
    before = (tmp_path / "world.json").read_bytes()
    lotm.get_entity("klein").name = "改过的名字"

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        lotm.save(tmp_path)
    assert (tmp_path / "world.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors.npz", "world.json"]


def test_communities_are_saved_with_the_world(lotm, embed, tmp_path):
    first = world_communities(lotm)
    lotm.save(tmp_path)
    assert (tmp_path / "communities.json").exists()
    loaded = World.load(tmp_path, embed)
    assert loaded.peek_cached("communities").to_dict() == first.to_dict()


def test_stale_communities_are_ignored(lotm, embed, tmp_path):
    world_communities(lotm)
    lotm.save(tmp_path)
    data = json.loads((tmp_path / "communities.json").read_text())
    data["fingerprint"] = "something else"
    (tmp_path / "communities.json").write_text(json.dumps(data))
    assert World.load(tmp_path, embed).peek_cached("communities") is None


def test_load_errors_are_clear(tmp_path):
    with pytest.raises(GraphFormatError, match="no saved graph"):
        World.load(tmp_path)
    (tmp_path / "world.json").write_text("{not json")
    with pytest.raises(GraphFormatError, match="not valid JSON"):
        World.load(tmp_path)
    (tmp_path / "world.json").write_text(json.dumps({"format": "other/9"}))
    with pytest.raises(GraphFormatError, match="unknown format"):
        World.load(tmp_path)
