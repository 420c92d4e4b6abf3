"""Structured retrieval: the keyword tree and the graph bring passages that are judged and cited.

The corpus is the one where the second hop shares no name with the question: a.md says where
Aldous Brennick was born, b.md what river runs through that town, and a dozen distractors talk
about rivers. Hybrid search on the question finds a.md and the distractors; only the graph
(a.md names "Port Veyra", b.md's title) leads to b.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from treerag.api import ask
from treerag.context import Context
from treerag.documents.operations import delete_document
from treerag.eval.runner import run_graph, run_naive
from treerag.ingest.indexer import ingest
from treerag.retrievers.sources import open_passage_graph

EN = {
    "a.md": "# Aldous Brennick\n\nAldous Brennick was born in Port Veyra. He later commanded "
    "the Saltwren.\n",
    "b.md": "# Port Veyra\n\nPort Veyra lies on the Salt River, where the old ferries cross to "
    "the eastern marshes.\n",
    **{
        f"d{i}.md": f"# River notes {i}\n\nThe river Amble {i} flows past mills and meadows. "
        f"Rivers in the north freeze in winter; the town of Lowmarsh {i} stands on a river bank "
        "and its river carries barges.\n"
        for i in range(1, 13)
    },
}
EN_QUESTION = "Which river flows through the city where Aldous Brennick was born?"

ZH = {
    "a.md": "# 布伦尼克\n\n布伦尼克出生在维拉港。他后来指挥了盐鹪号。\n",
    "b.md": "# 维拉港\n\n维拉港位于盐河岸边，旧渡船从这里驶向东部沼泽。\n",
    **{
        f"d{i}.md": f"# 河流笔记{i}\n\n安布尔河{i}号流经磨坊和草地。北方的河流冬天结冰；"
        f"洛马什{i}镇坐落在河岸上，河上有驳船。\n"
        for i in range(1, 13)
    },
}
ZH_QUESTION = "布伦尼克出生的城市有哪条河流经？"


def _write(root: Path, docs: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _graph_branches(tree: dict) -> list[dict]:
    out = []
    for chunk in tree.get("chunks", []):
        if (chunk.get("found_by") or {}).get("kind") == "graph":
            out.append(chunk)
        if chunk.get("child"):
            out += _graph_branches(chunk["child"])
    return out


@pytest.fixture(scope="module", params=["en", "zh"])
def bridge(request, tmp_path_factory):
    docs, question = (EN, EN_QUESTION) if request.param == "en" else (ZH, ZH_QUESTION)
    root = _write(tmp_path_factory.mktemp(f"docs-{request.param}"), docs)
    ctx = Context(data_dir=str(tmp_path_factory.mktemp(f"data-{request.param}")))
    report = ingest([root], ctx)
    assert not report.skipped
    assert report.derived == {"keyword_tree": "updated", "knowledge_graph": "updated"}
    return ctx, root, question


async def test_plain_ingest_builds_what_full_cites_and_naive_misses(bridge, tmp_path):
    ctx, root, question = bridge
    b = (root / "b.md").as_posix()
    run_ctx = Context(data_dir=ctx.data_dir, checkpointer_uri=str(tmp_path / "cp.sqlite"))
    naive = await run_naive(question, run_ctx)
    assert b not in {e["source"] for e in naive.evidence}  # one retrieval at k=5 misses it
    result = await ask(question, run_ctx)
    assert b in {c["source"] for c in result["citations"]}, result["answer"]
    # The tree says which graph path found it: the bridge chunk a.md, then the entity.
    found = [c for c in _graph_branches(result["tree"]) if c.get("source") == b]
    assert found, "b.md should hang in the tree as a graph branch"
    path = found[0]["found_by"]["path"]
    assert len(path) >= 2 and "港" in path[-1] or "Port Veyra" in path[-1]
    # The question names a.md; the graph links b.md from it: the two lead the evidence.
    top = {e["source"] for e in result["evidence"][:2]}
    assert top == {(root / "a.md").as_posix(), b}, result["evidence"]
    # The run holds a.md and the document its follow-up asks about: no sub-run goes looking.
    first = next(
        c for c in result["tree"]["chunks"] if c.get("source") == (root / "a.md").as_posix()
    )
    assert first.get("not_asked", "").startswith("the chunks hold the question's chain"), first
    assert not first.get("child")


async def test_each_mode_says_which_chunk_each_citation_names(bridge, tmp_path):
    """`Outcome.cited`: the benchmarks check an answer's [n] against the chunk it names."""
    ctx, _root, question = bridge
    run_ctx = Context(data_dir=ctx.data_dir, checkpointer_uri=str(tmp_path / "cp.sqlite"))
    for outcome in (await run_naive(question, run_ctx), await run_graph(question, run_ctx)):
        marks = {int(n) for n in re.findall(r"\[(\d+)\]", outcome.answer)}
        assert marks and marks <= set(outcome.cited), (outcome.answer, outcome.cited)
        assert set(outcome.cited.values()) <= {e["chunk_id"] for e in outcome.evidence}


async def test_the_structured_finds_wait_until_no_hybrid_hit_answers(bridge, tmp_path):
    ctx, root, question = bridge
    run_ctx = Context(data_dir=ctx.data_dir, checkpointer_uri=str(tmp_path / "cp.sqlite"))
    events: list[dict] = []
    one_hop = (
        "Where was Aldous Brennick born?" if "Brennick" in question else "布伦尼克出生在哪里？"
    )
    result = await ask(one_hop, run_ctx, on_event=events.append)
    # a.md answers: the graph's finds are dropped unjudged, the root costs its judges and
    # its answer, and the tree holds the hybrid hits alone.
    judged = [e for e in events if e["event"] == "chunk_judged"]
    assert not [e for e in events if e["event"] == "chunks_added"]
    assert result["llm_calls"] == len(judged) + 1 == run_ctx.top_k + 1
    assert not _graph_branches(result["tree"])
    # The two-hop question has no answer among the hits: the finds join and are judged.
    events.clear()
    await ask(question, run_ctx, on_event=events.append)
    added = [e for e in events if e["event"] == "chunks_added"]
    assert added and all(c.get("found_by") for e in added for c in e["chunks"])
    ids = {c["chunk_id"] for e in added for c in e["chunks"]}
    assert ids <= {e["chunk_id"] for e in events if e["event"] == "chunk_judged"}


async def test_without_structure_the_tree_does_not_see_the_bridge_at_the_root(bridge, tmp_path):
    ctx, root, question = bridge
    run_ctx = Context(
        data_dir=ctx.data_dir, checkpointer_uri=str(tmp_path / "cp.sqlite"), structure="none"
    )
    result = await ask(question, run_ctx)
    assert not _graph_branches(result["tree"])
    root_sources = {c.get("source") for c in result["tree"]["chunks"]}
    assert (root / "b.md").as_posix() not in root_sources


def test_removing_a_document_removes_its_entity_links(tmp_path):
    root = _write(tmp_path / "docs", {k: EN[k] for k in ("a.md", "b.md", "d1.md")})
    ctx = Context(data_dir=str(tmp_path / "data"))
    ingest([root], ctx)
    graph = open_passage_graph(ctx)
    named = graph.named_in("Tell me about Port Veyra")
    assert named == ["port veyra"]
    ids_before = graph.passage_ids()
    deletion = delete_document(ctx, (root / "b.md").as_posix())
    assert deletion.knowledge_graph == "updated"
    assert len(graph.passage_ids()) == len(ids_before) - 1
    # The title went with b.md: nothing links a.md to "Port Veyra" any more.
    assert graph.named_in("Tell me about Port Veyra") == []
    a_id = next(i for i in graph.passage_ids() if "Aldous" in graph.title_of(i))
    assert "Port Veyra" not in graph.entities_of(a_id)


def test_a_store_that_cannot_follow_is_marked_until_the_next_write_repairs_it(
    tmp_path, monkeypatch
):
    from treerag.documents import derived
    from treerag.documents.manifest import read_manifest

    root = _write(tmp_path / "docs", {"a.md": EN["a.md"]})
    ctx = Context(data_dir=str(tmp_path / "data"))

    def broken(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(derived, "_reconcile_graph", broken)
    report = ingest([root], ctx)
    assert report.total_chunks == 1  # the document went in
    assert report.derived == {"keyword_tree": "updated", "knowledge_graph": "stale"}
    manifest = read_manifest(ctx)
    assert manifest["stale"] == {"keyword_tree": False, "knowledge_graph": True}
    assert "disk full" in manifest["stale_reasons"]["knowledge_graph"]
    monkeypatch.undo()
    # The next ingest, of another file, brings the graph up to every stored chunk.
    _write(tmp_path / "more", {"b.md": EN["b.md"]})
    assert ingest([tmp_path / "more"], ctx).derived["knowledge_graph"] == "updated"
    assert read_manifest(ctx)["stale"]["knowledge_graph"] is False
    assert len(open_passage_graph(ctx).passage_ids()) == 2


def test_an_upload_appears_in_kg_search(tmp_path):
    """The page's upload calls `ingest_files`: its names reach the graph at once."""
    from typer.testing import CliRunner

    from treerag.cli import app
    from treerag.documents.operations import ingest_files

    ctx = Context(data_dir=str(tmp_path / "data"))
    root = _write(tmp_path / "uploads", {k: EN[k] for k in ("a.md", "b.md")})
    finished = ingest_files([root / "a.md", root / "b.md"], ctx, tree_base=str(root))
    assert finished["added"] == ["a.md", "b.md"]
    found = CliRunner().invoke(
        app, ["kg", "search", "veyra", "--graph", str(tmp_path / "data" / "knowledge_graph")]
    )
    assert found.exit_code == 0, found.output
    assert "Port Veyra (named by 2 passage(s))" in found.output
