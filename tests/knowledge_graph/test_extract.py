"""Extraction: schemas for LLMs, the heuristic extractor, and merging into a world."""

from __future__ import annotations

from treerag.knowledge_graph import (
    ExtractedEntity,
    ExtractedRelation,
    ExtractionResult,
    Extractor,
    HeuristicExtractor,
    RunnableExtractor,
    TextUnit,
    World,
    build_from_chunks,
)

EN = TextUnit(
    id="en1",
    title="Klein Moretti",
    text=(
        "Klein Moretti joined the Nighthawks in Tingen City. The Nighthawks serve the Church "
        "of the Evernight Goddess. However, the captain is Dunn Smith."
    ),
)
ZH = TextUnit(
    id="zh1",
    text="克莱恩·莫雷蒂加入了廷根市的值夜者小队，队长是邓恩·史密斯。北京大学位于北京市海淀区。",
)


def names(result: ExtractionResult) -> dict[str, str]:
    return {e.name: e.type for e in result.entities}


def test_schemas_read_as_instructions():
    schema = ExtractionResult.model_json_schema()
    assert schema["description"].startswith("Extract the entities and relations")
    for model in (ExtractedEntity, ExtractedRelation):
        props = model.model_json_schema()["properties"]
        assert all(p.get("description") for p in props.values()), model
    relation = ExtractedRelation.model_json_schema()["properties"]["importance"]
    assert (relation["minimum"], relation["maximum"]) == (0.0, 1.0)
    assert (
        ExtractedRelation(source="a", target="b", relation="x", type=" Temporal ").type
        == "temporal"
    )


def test_heuristic_english_names_and_title():
    result = HeuristicExtractor().extract(EN)
    found = names(result)
    assert found["Klein Moretti"] == "topic"  # the title, merged with its mention
    for name in ("Nighthawks", "Tingen City", "Church of the Evernight Goddess", "Dunn Smith"):
        assert name in found
    assert "However" not in found and "The" not in found


def test_a_preposition_that_opens_a_sentence_is_no_entity():
    unit = TextUnit(id="en2", text="About 1700 the Nighthawks left. Under Dunn Smith they grew.")
    found = names(HeuristicExtractor().extract(unit))
    assert "About" not in found and "Under" not in found and "Under Dunn Smith" not in found
    assert "Nighthawks" in found and "Dunn Smith" in found


def test_heuristic_relations_are_labelled_co_occurrence():
    result = HeuristicExtractor().extract(EN)
    assert result.relations and {r.type for r in result.relations} == {"co_occurs"}
    pairs = {(r.source, r.target) for r in result.relations}
    assert ("Nighthawks", "Tingen City") in pairs
    assert ("Tingen City", "Dunn Smith") not in pairs  # different sentences
    assert all(0 < r.importance < 1 for r in result.relations)


def test_heuristic_chinese_nouns():
    found = names(HeuristicExtractor().extract(ZH))
    assert found["克莱恩·莫雷蒂"] == "person"
    assert found["邓恩·史密斯"] == "person"
    assert found["北京大学"] == "organization"
    assert "队长" in found  # a common noun (flag n)


def test_extractor_protocol():
    assert isinstance(HeuristicExtractor(), Extractor)


def test_build_merges_by_normalized_name_and_links_chunks(embed):
    second = TextUnit(id="en2", text="The NIGHTHAWKS guard Tingen City at night.")
    world = World(embed)
    report = build_from_chunks(world, [EN, second], HeuristicExtractor())
    hawks = world.find_entity("nighthawks")
    assert hawks.chunk_ids == ["en1", "en2"]
    assert [v.timestamp_desc for v in hawks.attributes["description"]] == ["chunk en1", "chunk en2"]
    assert hawks.metadata == {"extractor": "heuristic"}
    assert hawks.importance > world.find_entity("Dunn Smith").importance
    assert set(world.chunk_entities("en2")) >= {hawks.id, world.find_entity("Tingen City").id}
    edges = world.get_related_edges(hawks.id)
    assert all(
        e.type == "co_occurs" and e.metadata["extractor"] == "heuristic" for _, e, _ in edges
    )
    assert report.entities_added == len(world) and report.edges_added == world.num_edges
    # the Nighthawks–Tingen City edge was seen in both chunks: noisy-or raises its importance
    tingen = world.find_entity("Tingen City").id
    (both,) = world.get_edges_between(hawks.id, tingen) or world.get_edges_between(tingen, hawks.id)
    assert both.chunk_ids == ["en1", "en2"] and both.importance > 0.4


def test_build_again_is_idempotent(embed):
    world = World(embed)
    build_from_chunks(world, [EN, ZH], HeuristicExtractor())
    before = {e.id: e.importance for e in world.edges()}
    report = build_from_chunks(world, [EN, ZH], HeuristicExtractor())
    assert report.entities_added == 0 and report.edges_added == 0
    assert {e.id: e.importance for e in world.edges()} == before


class ScriptedExtractor:
    """Stands in for an LLM with structured output."""

    name = "scripted"

    def extract(self, chunk: TextUnit) -> ExtractionResult:
        return ExtractionResult.model_validate(
            {
                "entities": [
                    {"name": "Klein", "type": "person", "description": "A Nighthawk."},
                    {"name": "Nighthawks", "type": "organization"},
                ],
                "relations": [
                    {
                        "source": "Klein",
                        "target": "Nighthawks",
                        "relation": "member of",
                        "importance": 0.9,
                    },
                    {"source": "Klein", "target": "Audrey", "relation": "knows"},
                ],
            }
        )


def test_build_with_an_llm_style_extractor(embed):
    world = World(embed)
    report = build_from_chunks(world, [EN], ScriptedExtractor())
    (edge,) = world.edges()
    assert (edge.relation, edge.type, edge.importance) == ("member of", "relation", 0.9)
    assert edge.metadata == {"extractor": "scripted"}
    assert report.skipped_relations == ["en1: Klein → Audrey"]
    assert world.find_entity("klein").description == "A Nighthawk."


def test_runnable_extractor_wraps_structured_output(embed):
    class FakeStructuredLLM:
        def __init__(self):
            self.prompts = []

        def invoke(self, prompt):
            self.prompts.append(prompt)
            return {"entities": [{"name": "Klein", "type": "person"}], "relations": []}

    llm = FakeStructuredLLM()
    extractor = RunnableExtractor(llm, lambda c: f"<chunk>{c.text}</chunk>", name="qwen")
    assert isinstance(extractor, Extractor)
    world = World(embed)
    build_from_chunks(world, [EN], extractor)
    assert llm.prompts == [f"<chunk>{EN.text}</chunk>"]
    assert world.find_entity("Klein").metadata == {"extractor": "qwen"}


def test_a_relation_is_the_short_phrase_between_two_names():
    from treerag.knowledge_graph.extract import NAMED_WITH, relation_phrase

    assert relation_phrase("Orla Venn was born in Quillhaven.", "Orla Venn", "Quillhaven") == (
        "was born in"
    )
    assert relation_phrase("Quillhaven was the home of Orla Venn.", "Orla Venn", "Quillhaven") == (
        "was the home of"
    )
    assert relation_phrase("沈疑微出生于鹤烟城。", "沈疑微", "鹤烟城") == "出生于"
    # Across a clause, or longer than a relation phrase: the sentence only names both.
    assert relation_phrase(
        "Quillhaven, where Orla Venn lived, is old.", "Quillhaven", "Orla Venn"
    ) == (NAMED_WITH)
    long = "Orla Venn, who travelled the seas for many long years, died in Quillhaven."
    assert relation_phrase(long, "Orla Venn", "Quillhaven") == NAMED_WITH
    assert relation_phrase("Orla Venn and Quillhaven.", "Orla Venn", "Quillhaven") == "and"
    assert relation_phrase("Nothing here.", "Orla Venn", "Quillhaven") == NAMED_WITH
