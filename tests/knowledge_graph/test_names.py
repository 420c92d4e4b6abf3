"""Entities named in the question join the seeds (names.py)."""

from __future__ import annotations

from treerag.knowledge_graph import AttributeValue, Entity, GraphQueryConfig, World, query_graph
from treerag.knowledge_graph.names import NAMED_SEED_SCORE, named_entities, with_named_seeds


def _world(*entities: Entity) -> World:
    world = World()
    world.add_entities(list(entities))
    return world


def test_name_attributes_and_labels_are_matched(lotm):
    # Seed 01 keeps each name with its time description: 周明瑞 is Klein before "crossing".
    assert named_entities(lotm, "周明瑞后来加入了哪个组织？") == ["klein"]
    assert named_entities(lotm, "邓恩·史密斯领导谁？") == ["dunn"]
    assert named_entities(lotm, "值夜者的总部在圣赛琳娜教堂吗") == ["nighthawks", "cathedral"]
    assert named_entities(lotm, "谁是队长？") == []


def test_latin_names_match_whole_words_only():
    world = _world(Entity(id="heyan", name="Heyan"), Entity(id="ox", name="Ox"))
    assert named_entities(world, "Where is HEYAN?") == ["heyan"]
    assert named_entities(world, "Who founded Heyanville?") == []
    assert named_entities(world, "Is there an ox here?") == []  # shorter than 3 letters


def test_the_longest_of_overlapping_names_wins():
    world = _world(
        Entity(id="material", name="emberglass"),
        Entity(id="guild", name="Emberglass Guild"),
        Entity(id="lens", name="lens", attributes={"name": [AttributeValue("透镜")]}),
    )
    found = named_entities(world, "Did the Emberglass Guild make the 透镜?")
    assert found == ["guild", "lens"]
    assert named_entities(world, "What is emberglass made from?") == ["material"]


def test_the_name_index_follows_changes_to_the_world():
    world = _world(Entity(id="a", name="Saltwren"))
    assert named_entities(world, "Who built the Tidewright?") == []
    world.add_entity(Entity(id="b", name="Tidewright"))
    assert named_entities(world, "Who built the Tidewright?") == ["b"]


def test_named_entities_join_the_seeds_with_a_perfect_score():
    world = _world(Entity(id="a", name="Saltwren"), Entity(id="b", name="Marrowgate"))
    seeds = [("b", 0.4), ("c", 0.3)]
    assert with_named_seeds(world, "Where was the Saltwren built?", seeds) == [
        ("a", NAMED_SEED_SCORE),
        ("b", 0.4),
        ("c", 0.3),
    ]
    assert with_named_seeds(world, "Which ship?", seeds) == seeds


def test_query_graph_seeds_named_entities_unless_told_not_to(lotm):
    question = "周明瑞在哪里？"  # no word of it is near an entity for the hash embedder
    assert ("klein", NAMED_SEED_SCORE) in query_graph(lotm, question).seeds
    plain = query_graph(lotm, question, config=GraphQueryConfig(name_seeds=False))
    assert all(entity_id != "klein" or score < 1 for entity_id, score in plain.seeds)
