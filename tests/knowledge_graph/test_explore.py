"""The graph explorer's views: search in either script, neighbours with what links them."""

from __future__ import annotations

import pytest

from treerag.context import Context
from treerag.knowledge_graph import World
from treerag.knowledge_graph.explore import PASSAGES_SHOWN, WORLD_PREFIX, entity, search
from treerag.knowledge_graph.model import Edge, Entity
from treerag.knowledge_graph.passage_graph import Passage, PassageGraph
from treerag.retrievers.sources import passage_graph_file
from treerag.web import graph_routes

PASSAGES = [
    Passage("q", "Quillhaven (奎尔港) is the capital of the Kessavar Federation.", "Quillhaven"),
    Passage("v", "Orla Venn was born in Quillhaven and worked in Dunsorrow.", "Orla Venn"),
    Passage("d", "Dunsorrow makes glass. Orla Venn lit its first lamps.", "Dunsorrow"),
    Passage("z", "奎尔港的港口在黎明开放。", "港口"),
]


@pytest.fixture
def graph_path(tmp_path):
    path = tmp_path / "passages.sqlite"
    graph = PassageGraph(path)
    graph.add(PASSAGES)
    graph.close()
    return path


def test_a_name_is_found_in_either_script_and_by_part(graph_path):
    hits = search(graph_path, None, "奎爾港")  # Traditional; the document is Simplified
    assert hits[0]["id"] == "quillhaven"
    assert hits[0]["names"] == ["Quillhaven", "奎尔港"]
    assert hits[0]["passages"] == 3 and hits[0]["graphs"] == ["passages"]
    assert search(graph_path, None, "quill")[0]["label"] == "Quillhaven"
    assert search(graph_path, None, "Nowhere at all") == []
    assert search(tmp_missing := graph_path.with_name("absent.sqlite"), None, "x") == []
    assert not tmp_missing.exists()  # a view never creates the file


def test_an_entity_lists_its_passages_and_neighbours_with_the_passages_that_link_them(graph_path):
    view = entity(graph_path, None, "orla venn")
    assert view["names"] == ["Orla Venn"]
    assert {p["id"] for p in view["passages"]} == {"v", "d"}
    neighbours = {n["id"]: n for n in view["neighbours"]}
    assert set(neighbours) == {"quillhaven", "dunsorrow"}
    # Dunsorrow and Orla Venn are both named in v and d: the link says which passages.
    link = neighbours["dunsorrow"]
    assert link["link"] == "passage" and link["passage_count"] == 2
    assert [p["id"] for p in link["passages"]] == ["d", "v"]
    assert link["relation"] == "named together in Dunsorrow"
    assert entity(graph_path, None, "no such entity") is None


def test_the_entity_graph_adds_its_relations_and_its_own_entities(graph_path):
    world = World()
    world.add_entities(
        [
            Entity(id="qh", name="Quillhaven", type="place", description="The capital."),
            Entity(id="kf", name="Kessavar Federation", type="organization"),
            Entity(id="mh", name="Maud Harrow", type="person"),
        ]
    )
    world.add_edges(
        [
            Edge(source="qh", target="kf", relation="capital_of", chunk_ids=["q"]),
            Edge(source="mh", target="qh", relation="founded"),
        ]
    )
    hit = search(graph_path, world, "quillhaven")[0]
    assert hit["graphs"] == ["passages", "entities"] and hit["type"] == "place"
    view = entity(graph_path, world, "quillhaven")
    relations = {n["label"]: n for n in view["neighbours"] if n["link"] == "relation"}
    assert relations["Kessavar Federation"]["relation"] == "capital of"
    assert relations["Kessavar Federation"]["outgoing"] is True
    assert [p["id"] for p in relations["Kessavar Federation"]["passages"]] == ["q"]
    # Maud Harrow is named by no passage: the entity graph alone holds her.
    assert relations["Maud Harrow"]["id"] == WORLD_PREFIX + "mh"
    assert relations["Maud Harrow"]["outgoing"] is False
    maud = entity(graph_path, world, WORLD_PREFIX + "mh")
    assert maud["label"] == "Maud Harrow" and maud["neighbours"][0]["label"] == "Quillhaven"


def test_a_busy_entity_shows_how_many_passages_name_it_not_all(tmp_path):
    path = tmp_path / "passages.sqlite"
    graph = PassageGraph(path)
    # A title is an entity however many passages name it (a shared name stops at 50).
    notes = [Passage(f"p{i:03}", f"Note {i} about Harbour Town.", f"Note {i}") for i in range(59)]
    graph.add([Passage("town", "Harbour Town has a quay.", "Harbour Town"), *notes])
    graph.close()
    view = entity(path, None, "harbour town")
    assert view["passage_count"] == 60 and len(view["passages"]) == PASSAGES_SHOWN
    assert view["hub"] is True and view["neighbours"] == []


def test_each_tenant_explores_its_own_graph_only(tmp_path, monkeypatch):
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path / "data"))
    acme, globex = Context(tenant="acme"), Context(tenant="globex")
    graph = PassageGraph(passage_graph_file(acme))
    graph.add(PASSAGES)
    graph.close()
    assert graph_routes._search(acme, "Quillhaven")["entities"]
    assert graph_routes._search(globex, "Quillhaven")["entities"] == []
    assert graph_routes._entity(globex, "quillhaven") is None
    assert not passage_graph_file(globex).exists()
