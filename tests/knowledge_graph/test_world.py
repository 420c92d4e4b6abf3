"""World model API (seed 01): entities, edges, lookups, errors, Mermaid, vector search."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from treerag.knowledge_graph import (
    AttributeValue,
    DuplicateIdError,
    Edge,
    EmbeddingError,
    Entity,
    MissingEntityError,
    SearchResultEdge,
    SearchResultEntity,
    World,
)


def test_seed01_world_counts_and_labels(lotm):
    assert len(lotm) == 5 and lotm.num_edges == 4
    klein = lotm.get_entity("klein")
    # the label is the latest value of the name attribute, as in the seed's Mermaid output
    assert klein.label == "克莱恩·莫雷蒂"
    assert [v.value for v in klein.attributes["名字"]] == ["周明瑞", "克莱恩·莫雷蒂"]
    assert lotm.get_edge("joins").label == "成员"
    assert lotm.get_entity("nobody") is None and lotm.get_edge("nothing") is None


def test_related_edges_out_then_in(lotm):
    related = lotm.get_related_edges("nighthawks")
    assert [(s.id, e.id, t.id) for s, e, t in related] == [
        ("nighthawks", "located", "cathedral"),
        ("klein", "joins", "nighthawks"),
        ("dunn", "leads", "nighthawks"),
    ]
    assert lotm.get_related_edges("nobody") is None


def test_self_loop_listed_once(lotm):
    lotm.add_edge(Edge(id="self", source="klein", target="klein", relation="反思"))
    ids = [e.id for _, e, _ in lotm.get_related_edges("klein")]
    assert ids.count("self") == 1
    assert lotm.degree("klein") == 3


def test_edges_between(lotm):
    assert [e.id for e in lotm.get_edges_between("klein", "nighthawks")] == ["joins"]
    assert lotm.get_edges_between("nighthawks", "klein") == []
    lotm.add_edge(Edge(id="again", source="klein", target="nighthawks", relation="队员"))
    assert [e.id for e in lotm.get_edges_between("klein", "nighthawks")] == ["joins", "again"]
    assert lotm.get_edges_between("klein", "nobody") is None


def test_get_edge_does_not_scan_edges(lotm, monkeypatch):
    def boom(self):
        raise AssertionError("get_edge iterated over the edges")

    monkeypatch.setattr(nx.MultiDiGraph, "edges", property(boom))
    assert lotm.get_edge("located").target == "cathedral"


def test_duplicate_ids_are_refused(lotm):
    with pytest.raises(DuplicateIdError, match="klein"):
        lotm.add_entity(Entity(id="klein", name="另一个克莱恩"))
    with pytest.raises(DuplicateIdError, match="joins"):
        lotm.add_edge(Edge(id="joins", source="dunn", target="klein"))
    with pytest.raises(DuplicateIdError, match="twin"):
        lotm.add_entities([Entity(id="twin"), Entity(id="twin")])
    assert not lotm.has_entity("twin")


def test_missing_endpoints_are_refused_atomically(lotm):
    edges = [
        Edge(id="fine", source="dunn", target="klein"),
        Edge(id="bad", source="dunn", target="ghost"),
    ]
    with pytest.raises(MissingEntityError, match="target entity 'ghost'"):
        lotm.add_edges(edges)
    assert lotm.get_edge("fine") is None and lotm.num_edges == 4


def test_importance_must_be_a_share():
    with pytest.raises(ValueError, match="importance"):
        Entity(name="x", importance=1.5)
    with pytest.raises(ValueError, match="importance"):
        Edge(source="a", target="b", importance=-0.1)


def test_mermaid_like_the_seed(lotm):
    text = lotm.to_mermaid()
    assert text.startswith("flowchart LR")
    assert 'E0["克莱恩·莫雷蒂 (人物)"]' in text
    assert 'E0 -- "成员" --> E2' in text
    assert 'E2 -- "位于" --> E3' in text
    assert len([line for line in text.splitlines() if "-->" in line]) == 4


def test_mermaid_escapes_quotes():
    world = World()
    world.add_entity(Entity(id="q", name='say "hi"'))
    assert "#quot;hi#quot;" in world.to_mermaid()


def test_search_finds_entities_and_edges(lotm):
    results = lotm.search("安提哥努斯家族笔记", limit=3)
    assert isinstance(results[0], SearchResultEntity) and results[0].id == "notebook"
    assert results[0].score > results[-1].score
    edges = lotm.search("查尼斯门事件", limit=2, kind="edge")
    assert all(isinstance(r, SearchResultEdge) for r in edges)
    assert edges[0].id == "obtains" and edges[0].relation == "获得"
    assert [r.id for r in lotm.search_entities("值夜者", 1)] == ["nighthawks"]


def test_upsert_recomputes_vectors(lotm):
    before = lotm.entity_vector("notebook").copy()
    notebook = lotm.get_entity("notebook")
    notebook.attributes["名字"].append(AttributeValue("黑夜之书", "改名之后"))
    lotm.upsert_entities([notebook])
    assert not np.allclose(before, lotm.entity_vector("notebook"))
    assert lotm.get_entity("notebook").label == "黑夜之书"
    assert lotm.find_entity("黑夜之书").id == "notebook"


def test_find_entity_by_normalized_name():
    world = World()
    world.add_entity(Entity(id="g", name="“丧钟”手枪"))
    world.add_entity(Entity(id="k", name="Klein  Moretti"))
    assert world.find_entity("丧钟手枪").id == "g"
    assert world.find_entity("klein moretti").id == "k"
    assert world.find_entity("Ｋｌｅｉｎ Moretti").id == "k"  # full-width letters


def test_world_without_embedder():
    world = World()
    world.add_entity(Entity(id="a", name="A"))
    assert world.entity_vector("a") is None
    with pytest.raises(EmbeddingError, match="no embed function"):
        world.search("anything")


def test_bad_embedder_output_is_reported():
    world = World(lambda texts: np.zeros((len(texts) + 1, 4)))
    with pytest.raises(EmbeddingError, match="expected"):
        world.add_entity(Entity(name="A"))
    assert len(world) == 0


def test_chunks_link_to_entities(lotm):
    from treerag.knowledge_graph import TextUnit

    lotm.add_chunks([TextUnit(id="c1", text="克莱恩加入值夜者。")])
    klein = lotm.get_entity("klein")
    klein.chunk_ids.append("c1")
    lotm.upsert_entities([klein])
    assert lotm.chunk_entities("c1") == ["klein"]
    assert lotm.get_chunk("c1").text.startswith("克莱恩")
