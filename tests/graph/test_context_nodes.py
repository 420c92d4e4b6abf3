from importlib import resources
from pathlib import Path

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
    result = await ask("Which guild built the Saltwren, Aldous Brennick's ship?", ctx,
                       on_event=events.append)
    expanded = [e for e in events if e["event"] == "graph_expanded"]
    assert len(expanded) == 1 and expanded[0]["paths"]
    paths = result["tree"]["graph_paths"]
    assert paths == expanded[0]["paths"]
    assert all("—" in p["path"] and 0 <= p["score"] <= 1.5 for p in paths)
    assert any("Brennick" in p["path"] or "Saltwren" in p["path"] for p in paths)
    rebuilt = await tree(result["thread_id"], ctx)
    assert rebuilt == result["tree"]


async def test_without_a_graph_the_step_is_skipped(make_ctx):
    ctx = make_ctx(max_depth=0, top_k=2)
    events: list[dict] = []
    result = await ask("Who founded Quillhaven?", ctx, on_event=events.append)
    assert not [e for e in events if e["event"] == "graph_expanded"]
    assert result["tree"]["graph_paths"] == [] and result["answer"]
