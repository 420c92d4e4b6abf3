"""Building the structured stores from the ingested collection: kg build, kw reorganize."""

import re

from treerag.reasoning import get_reasoner
from treerag.retrievers.keyword_tree import derive_from_collection, open_tree
from treerag.retrievers.knowledge_graph import build_from_collection, load_world

from ..fakes import ScriptedChatModel


def test_heuristic_graph_build_links_chunks_and_is_labelled(make_ctx):
    ctx = make_ctx()
    report = build_from_collection(ctx, get_reasoner(ctx).extractor())
    assert report.chunks > 10 and report.entities_added > 10
    world = load_world(ctx)
    brennick = world.find_entity("Aldous Brennick")
    assert brennick is not None
    edges = [edge for _, edge, _ in world.get_related_edges(brennick.id)]
    assert edges and all(e.type == "co_occurs" for e in edges)
    assert all(e.metadata.get("extractor") == "heuristic" for e in edges)


def test_llm_graph_build_uses_the_extraction_prompt(make_ctx):
    def extract(prompt):
        if "Brennick" not in prompt:
            return {"entities": [], "relations": []}
        return {
            "entities": [
                {"name": "Aldous Brennick", "type": "person", "description": "a captain"},
                {"name": "Saltwren", "type": "artifact", "description": "his ship"},
            ],
            "relations": [
                {
                    "source": "Aldous Brennick",
                    "target": "Saltwren",
                    "relation": "captained",
                    "description": "he captained it",
                    "importance": 0.9,
                }
            ],
        }

    model = ScriptedChatModel(structured_scripts={"ExtractionResult": extract})
    ctx = make_ctx(model)
    report = build_from_collection(ctx, get_reasoner(ctx).extractor())
    assert report.entities_added == 2 and report.edges_added == 1
    assert any("Extract the entities and relations" in p for p in model.prompts)
    world = load_world(ctx)
    [edge] = world.get_edges_between(
        world.find_entity("Aldous Brennick").id, world.find_entity("Saltwren").id
    )
    assert edge.importance == 0.9


def test_reorganize_with_an_llm_review_is_undoable(make_ctx):
    def review(prompt):
        found = re.search(r"\[(\S+)\] guilds", prompt)
        if not found:
            return {"steps": []}
        return {
            "steps": [
                {
                    "action": "update",
                    "node_id": found.group(1),
                    "patch": {"description": "Guild records"},
                    "reason": "no description",
                }
            ]
        }

    model = ScriptedChatModel(structured_scripts={"ReorganizeAdvice": review})
    ctx = make_ctx(model)
    derive_from_collection(ctx)
    tree = open_tree(ctx)
    plan = tree.reorganize(agent=get_reasoner(ctx).keyword_agent())
    assert [s.action for s in plan.steps] == ["update"]
    [guilds] = tree.exact_lookup("guilds")
    original = guilds.description
    assert original != "Guild records"
    result = tree.apply_reorganize_plan(plan)
    assert tree.get_keyword(guilds.id).description == "Guild records"
    tree.undo(result.operation_id)
    assert tree.get_keyword(guilds.id).description == original
