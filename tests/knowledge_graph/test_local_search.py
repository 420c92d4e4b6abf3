"""Local-search context (seed 05): budgets, rankings, communities, and query_graph."""

from __future__ import annotations

import pytest

from treerag.knowledge_graph import (
    ExpansionConfig,
    GraphQueryConfig,
    HeuristicExtractor,
    LocalSearchConfig,
    TextUnit,
    World,
    build_from_chunks,
    build_local_context,
    count_tokens,
    detect_communities,
    expand_world,
    extractive_summary,
    local_search,
    query_graph,
    query_vector,
)
from treerag.knowledge_graph.local_search import rank_relationships
from treerag.knowledge_graph.tables import render_table
from treerag.knowledge_graph.text import truncate_tokens

CHUNKS = [
    TextUnit(
        id=f"c{i}",
        title=title,
        text=text,
    )
    for i, (title, text) in enumerate(
        [
            ("Klein Moretti", "Klein Moretti joined the Nighthawks in Tingen City. " * 3),
            (
                "Nighthawks",
                "The Nighthawks are based beneath Saint Selena Cathedral in Tingen City.",
            ),
            ("Dunn Smith", "Dunn Smith leads the Nighthawks. Dunn Smith forgets things often."),
            ("Audrey Hall", "Audrey Hall lives in Backlund. Audrey Hall founded the Tarot Club."),
            ("Tarot Club", "The Tarot Club meets above the gray fog. Klein Moretti is The Fool."),
            ("值夜者", "克莱恩·莫雷蒂加入了廷根市的值夜者小队，队长是邓恩·史密斯。"),
        ]
    )
]


@pytest.fixture
def novel(embed) -> World:
    world = World(embed)
    build_from_chunks(world, CHUNKS, HeuristicExtractor())
    return world


def test_count_tokens_cjk_and_words():
    assert count_tokens("hello world") == 2
    assert count_tokens("克莱恩加入") == 5
    assert count_tokens("Klein 加入 the 值夜者!") == 1 + 2 + 1 + 3 + 1
    assert count_tokens("") == 0
    assert count_tokens(truncate_tokens("one two three four five", 3)) <= 3
    assert count_tokens(truncate_tokens("克莱恩加入了值夜者", 4)) <= 4


def test_table_stops_at_the_budget():
    rows = [(str(i), [i, "word " * 5]) for i in range(10)]
    table = render_table("T", ["id", "text"], rows, budget=20)
    assert count_tokens(table.text) <= 20 and table.tokens == count_tokens(table.text)
    assert table.ids == ["0", "1", "2"] and table.dropped == 7
    assert render_table("T", ["id", "text"], rows, budget=1).text == ""


def test_table_truncates_a_long_last_cell():
    rows = [("a", [1, "short"]), ("b", [2, "x " * 100])]
    table = render_table("T", ["id", "text"], rows, budget=30, truncate_last=True)
    assert table.ids == ["a", "b"] and table.text.endswith("…")
    assert count_tokens(table.text) <= 30


@pytest.mark.parametrize(
    "budgets",
    [
        dict(entity_tokens=40, relationship_tokens=40, text_unit_tokens=40, community_tokens=40),
        dict(entity_tokens=15, relationship_tokens=25, text_unit_tokens=60, community_tokens=20),
        dict(entity_tokens=300, relationship_tokens=10, text_unit_tokens=5, community_tokens=500),
    ],
)
def test_every_section_respects_its_budget(novel, budgets):
    cfg = LocalSearchConfig(**budgets, path_tokens=12)
    ctx = query_graph(novel, "Who leads the Nighthawks?", config=GraphQueryConfig(local=cfg))
    limits = {
        "Entities": cfg.entity_tokens,
        "Relationships": cfg.relationship_tokens,
        "Sources": cfg.text_unit_tokens,
        "Reports": cfg.community_tokens,
        "Paths": cfg.path_tokens,
    }
    full = query_graph(novel, "Who leads the Nighthawks?").local.sections
    assert set(ctx.local.sections) == set(full)  # every section is there, cut to its budget
    for name, section in ctx.local.sections.items():
        assert count_tokens(section.text) <= limits[name], name
        assert section.tokens <= limits[name]
        # What the budget left out is counted: kept + dropped rows = the unbudgeted rows.
        assert len(section.ids) + section.dropped == len(full[name].ids) + full[name].dropped
    assert any(section.dropped for section in ctx.local.sections.values())
    assert ctx.local.tokens <= sum(limits.values())


def test_small_budgets_drop_rows(novel):
    big = local_search(novel, "Nighthawks Tingen City")
    small = local_search(
        novel, "Nighthawks Tingen City", config=LocalSearchConfig(entity_tokens=25)
    )
    assert len(small.sections["Entities"].ids) < len(big.sections["Entities"].ids)
    assert small.sections["Entities"].dropped > 0


def test_sections_and_order(novel):
    ctx = local_search(novel, "Dunn Smith Nighthawks")
    text = ctx.text
    positions = [
        text.index(f"-----{name}-----")
        for name in ("Reports", "Entities", "Relationships", "Sources")
    ]
    assert positions == sorted(positions)
    assert "id|entity|type|description|number of relationships" in text
    assert ctx.sections["Entities"].ids[0] in {e for e, _ in ctx.entities}


def test_in_network_relationships_come_first(novel):
    dunn = novel.find_entity("Dunn Smith").id
    hawks = novel.find_entity("Nighthawks").id
    ranked = rank_relationships(novel, [dunn, hawks], per_entity=10)
    inside = [e for e in ranked if {e.source, e.target} <= {dunn, hawks}]
    assert inside and ranked[: len(inside)] == inside


def test_text_units_follow_entity_rank(novel):
    audrey = novel.find_entity("Audrey Hall").id
    ctx = build_local_context(novel, [(audrey, 1.0)])
    assert ctx.sections["Sources"].ids[0] == "c3"


def test_communities_are_deterministic_and_summarized(novel):
    first = detect_communities(novel)
    again = detect_communities(novel)
    assert first.to_dict() == again.to_dict()
    assert all(c.summary for c in first.communities)
    sizes = [len(c.entity_ids) for c in first.communities]
    assert len(sizes) >= 2 and sizes == sorted(sizes, reverse=True)  # largest first


def test_pluggable_summarizer(novel):
    def summarize(members):
        return f"{len(members.entities)} members"

    ctx = local_search(novel, "Nighthawks", summarizer=summarize)
    assert "members" in ctx.sections["Reports"].text
    # no summarizer named: the cached summaries serve; naming another one recomputes
    assert "members" in local_search(novel, "Nighthawks").sections["Reports"].text
    again = local_search(novel, "Nighthawks", summarizer=extractive_summary)
    assert "members" not in again.sections["Reports"].text


def test_query_graph_returns_context_and_paths(novel):
    ctx = query_graph(novel, "Where are the Nighthawks based?")
    assert ctx.seeds and ctx.paths
    scores = [s for _, s in ctx.paths]
    assert scores == sorted(scores, reverse=True)
    assert all("→" in text or "←" in text for text, _ in ctx.paths)
    assert "-----Paths-----" in ctx.text and "-----Sources-----" in ctx.text


def test_expand_world_with_chunk_memories(novel):
    vector = query_vector(novel, "Nighthawks Tingen City")
    seeds = [(r.id, r.score) for r in novel.search_entities(vector, 3)]
    result = expand_world(
        novel, seeds, vector, unit="chunk", config=ExpansionConfig(directed=False)
    )
    assert result.memories and all(m.memory.id.startswith("c") for m in result.memories)
    assert result.memories[0].memory.id in {"c0", "c1", "c2"}


def test_query_graph_on_the_seed_world(lotm):
    ctx = query_graph(lotm, "克莱恩加入的组织总部在哪里？")
    assert "-----Entities-----" in ctx.text and "值夜者" in ctx.text
    ranked = [e for e, _ in ctx.local.entities]
    # The question's person and organisation lead; the headquarters it asks for is included.
    assert set(ranked[:2]) == {"klein", "nighthawks"} and "cathedral" in ranked
    # The hop that answers it: the Nighthawks' relationship to the cathedral.
    assert "值夜者|位于|圣赛琳娜教堂" in ctx.text
    assert ctx.paths and ctx.paths[0][0].startswith("克莱恩·莫雷蒂 —成员→ 值夜者")
