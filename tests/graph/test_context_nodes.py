from importlib import resources
from pathlib import Path

import pytest

from treerag.api import ask, tree
from treerag.knowledge_graph import World, embed_from_documents, import_files, world_communities
from treerag.models import get_embeddings
from treerag.retrievers.knowledge_graph import embedder_id, graph_dir

SAMPLE = Path(str(resources.files("treerag") / "sample_corpus"))


def _build_graph(ctx) -> None:
    embeddings = get_embeddings(ctx)
    world = World(embed_from_documents(embeddings), embed_id=embedder_id(embeddings))
    import_files(world, [SAMPLE / "graph.jsonl"])
    world_communities(world)
    world.save(graph_dir(ctx))


async def test_graph_expand_adds_scored_paths_to_the_tree_and_stream(make_ctx):
    ctx = make_ctx(max_depth=0, top_k=3)
    _build_graph(ctx)
    events: list[dict] = []
    result = await ask(
        "Which guild built the Saltwren, Aldous Brennick's ship?", ctx, on_event=events.append
    )
    expanded = [e for e in events if e["event"] == "graph_expanded"]
    assert len(expanded) == 1 and expanded[0]["paths"]
    paths = result["tree"]["graph_paths"]
    assert paths == expanded[0]["paths"]
    assert all("—" in p["path"] and 0 < p["score"] <= 1 for p in paths)
    assert [p["score"] for p in paths] == sorted((p["score"] for p in paths), reverse=True)
    # Edges are walked both ways by default, from the entities the question names: the
    # best paths answer "which guild built it" and "whose ship is it".
    top = [p["path"] for p in paths[:2]]
    assert any(p.startswith("Saltwren ←built— Guild of Tidewrights") for p in top), top
    assert any(p.startswith("Saltwren ←commanded— Aldous Brennick") for p in top), top
    rebuilt = await tree(result["thread_id"], ctx)
    assert rebuilt == result["tree"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "潮匠行会建造的船由谁指挥？",
            "Guild of Tidewrights —built→ Saltwren ←commanded— Aldous Brennick",
        ),
        ("鹤烟灯塔的透镜由哪个行会烧制？", "Heyan Lighthouse ←made_lens_for— Emberglass Guild"),
    ],
)
async def test_a_chinese_question_reaches_the_english_graph_through_named_entities(
    make_ctx, question, expected
):
    # The offline embedder is English-only; the Chinese names stored as name attributes
    # (潮匠行会, 鹤烟灯塔) seed the expansion.
    ctx = make_ctx(max_depth=0, top_k=2)
    _build_graph(ctx)
    result = await ask(question, ctx)
    top = [p["path"] for p in result["tree"]["graph_paths"][:2]]
    assert any(p.startswith(expected) for p in top), top


async def test_graph_directed_walks_edges_forwards_only(make_ctx):
    ctx = make_ctx(max_depth=0, top_k=2, graph_directed=True)
    _build_graph(ctx)
    result = await ask("Which guild built the Saltwren, Aldous Brennick's ship?", ctx)
    paths = result["tree"]["graph_paths"]
    assert paths and all("←" not in p["path"] and "→" in p["path"] for p in paths)


async def test_without_a_graph_the_step_is_skipped(make_ctx):
    ctx = make_ctx(max_depth=0, top_k=2)
    events: list[dict] = []
    result = await ask("Who founded Quillhaven?", ctx, on_event=events.append)
    assert not [e for e in events if e["event"] == "graph_expanded"]
    assert result["tree"]["graph_paths"] == [] and result["answer"]


TOY_TREE = """
name: World
description: everything in the federation
children:
  - name: Places
    description: cities, rivers and mountains
    children:
      - name: Cities
        description: towns and ports
        children:
          - name: Quillhaven
            description: the federal capital on Thornmere
          - name: Marrowgate
            description: the port of Varunhal
  - name: People
    description: inventors, captains and scholars
"""


def load_toy_tree(ctx, tmp_path: Path) -> None:
    """Import `TOY_TREE` as the data dir's keyword tree."""
    from treerag.retrievers.keyword_tree import open_tree

    (tmp_path / "toy.yaml").write_text(TOY_TREE, encoding="utf-8")
    open_tree(ctx, create=True).import_tree(tmp_path / "toy.yaml")


def pick_quillhaven(prompt: str) -> dict:
    """A keyword agent's two decisions: jump three levels down to Cities, then Quillhaven."""
    import re

    found = re.search(r"\[(\S+)\] Quillhaven", prompt)
    if found:
        return {"action": "match", "node_id": found.group(1), "reason": "the capital"}
    cities = re.search(r"\[(\S+)\] Cities", prompt).group(1)
    return {"action": "jump", "node_id": cities, "jump_depth": 3, "reason": "a city"}


async def test_keyword_descent_with_derived_tree_offline(make_ctx):
    from treerag.retrievers.keyword_tree import derive_from_collection

    ctx = make_ctx(max_depth=0, top_k=3)
    derive_from_collection(ctx)
    events: list[dict] = []
    result = await ask("墨衡书院是谁创办的？", ctx, on_event=events.append)
    [event] = [e for e in events if e["event"] == "keyword_descended"]
    assert event["status"] == "matched" and event["via"] == "terms"
    assert event["path"][-1] == "墨衡书院" and event["infos"]
    assert result["tree"]["keyword"]["path"] == event["path"]
    assert any("陆怀霜" in info["text"] for info in event["infos"])  # the founder, for the answer
    assert await tree(result["thread_id"], ctx) == result["tree"]


async def test_keyword_descent_multi_level_jump_with_an_llm_agent(make_ctx, tmp_path):
    from ..fakes import ScriptedChatModel

    model = ScriptedChatModel(
        judge_script=lambda q, t, x: '{"score": 0, "reason": "no"}',
        structured_scripts={"BranchDecision": pick_quillhaven},
    )
    ctx = make_ctx(model, max_depth=0, top_k=2)
    load_toy_tree(ctx, tmp_path)
    events: list[dict] = []
    await ask("Tell me about the seat of the federal government", ctx, on_event=events.append)
    [event] = [e for e in events if e["event"] == "keyword_descended"]
    assert event["status"] == "matched" and event["via"] == "descent", event
    assert event["path"] == ["World", "Places", "Cities", "Quillhaven"]
    assert event["agent_calls"] == 2  # three levels down in one decision, then the match
    assert event["jumps"] == 1
    assert any("Quillhaven - the federal capital" in p for p in model.prompts)


async def test_keyword_agent_timeout_falls_back_to_not_found(make_ctx, tmp_path):
    from ..fakes import ScriptedChatModel

    model = ScriptedChatModel(
        judge_script=lambda q, t, x: '{"score": 0, "reason": "no"}',
        structured_scripts={"BranchDecision": lambda p: TimeoutError("slow")},
    )
    ctx = make_ctx(model, max_depth=0, top_k=2, llm_retries=0)
    load_toy_tree(ctx, tmp_path)
    events: list[dict] = []
    result = await ask(
        "Tell me about the seat of the federal government", ctx, on_event=events.append
    )
    [event] = [e for e in events if e["event"] == "keyword_descended"]
    assert event["status"] == "not_found" and event["candidates"]
    assert "slow" in event["error"]  # the agent's failure is recorded, not hidden
    assert result["answer"]  # the run goes on
