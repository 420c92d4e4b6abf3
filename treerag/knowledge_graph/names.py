"""Entities a question names: exact name matches that join the vector-search seeds.

Vector search alone misses an entity the question names outright when the embedder does
not cover the question's language (all-MiniLM-L6-v2 is English-only: "鹤烟灯塔" is not
near "Heyan Lighthouse"), or when the name is rare enough that its vector says little.
An entity's names are its label and every value of its name attributes (seed 01 keeps
each name with its time description, e.g. 名字: 周明瑞 (“穿越”前)); a name counts when it
occurs in the normalized question, as a whole word for Latin names, anywhere for CJK
ones. Overlapping matches keep the longest ("Emberglass Guild" over "emberglass").
"""

from __future__ import annotations

from typing import Any

import ahocorasick

from treerag.knowledge_graph.model import NAME_KEYS, Entity
from treerag.knowledge_graph.text import longest_matches, normalize_name
from treerag.knowledge_graph.world import World
from treerag.text import has_wide

MIN_CJK_CHARS = 2
MIN_LATIN_CHARS = 3


def entity_names(entity: Entity) -> list[str]:
    """The names an entity goes by: its label, then its name attributes' values."""
    names = [entity.label]
    for key in NAME_KEYS:
        names += [str(v.value) for v in entity.attributes.get(key, [])]
    return names


def build_name_index(world: World) -> Any:
    """An Aho-Corasick automaton over every usable name: name → (name, entity ids).

    One pass over the question finds every name in it, however many names there are
    (pyahocorasick; a loop over the names would cost a substring test per entity).
    """
    ids_by_name: dict[str, list[str]] = {}
    for entity in world.entities():
        for name in entity_names(entity):
            key = normalize_name(name)
            if len(key) < (MIN_CJK_CHARS if has_wide(key) else MIN_LATIN_CHARS):
                continue
            ids = ids_by_name.setdefault(key, [])
            if entity.id not in ids:
                ids.append(entity.id)
    automaton = ahocorasick.Automaton()
    for key, ids in ids_by_name.items():
        automaton.add_word(key, (key, ids))
    if ids_by_name:
        automaton.make_automaton()
    return automaton


def named_entities(world: World, question: str) -> list[str]:
    """Return the ids of the entities the question names, in the order they appear."""
    automaton = world.cached("name_index", lambda: build_name_index(world))
    found: dict[str, int] = {}
    for start, _, ids in longest_matches(automaton, normalize_name(question)):
        for entity_id in ids:
            found.setdefault(entity_id, start)
    return sorted(found, key=found.__getitem__)


NAMED_SEED_SCORE = 1.0
"""A named entity is as relevant as a seed can be: the score of a perfect cosine match."""


def with_named_seeds(
    world: World, question: str, seeds: list[tuple[str, float]]
) -> list[tuple[str, float]]:
    """Add the entities the question names to the seeds with NAMED_SEED_SCORE."""
    named = named_entities(world, question)
    if not named:
        return seeds
    scores = dict(seeds)
    for entity_id in named:
        scores[entity_id] = NAMED_SEED_SCORE
    return sorted(scores.items(), key=lambda item: -item[1])
