"""`treerag kg …` end to end on a temporary graph directory, offline (hashed vectors)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from treerag.cli.kg import app, graph_dir

runner = CliRunner()

CHUNKS = [
    {
        "id": "c1",
        "title": "Klein Moretti",
        "text": "Klein Moretti joined the Nighthawks in Tingen City.",
    },
    {
        "id": "c2",
        "title": "Nighthawks",
        "text": "The Nighthawks are based beneath Saint Selena Cathedral.",
    },
    {"id": "c3", "text": "Dunn Smith leads the Nighthawks of Tingen City."},
]


def test_graph_dir_default(tmp_path, monkeypatch):
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path))
    assert graph_dir(None) == tmp_path / "knowledge_graph"
    assert graph_dir(tmp_path / "x") == tmp_path / "x"


def test_extract_show_search_expand_mermaid(tmp_path):
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text("\n".join(json.dumps(c) for c in CHUNKS))
    graph = ["--graph", str(tmp_path / "kg")]
    result = runner.invoke(app, ["extract", str(chunks), *graph, "--embed", "hash"])
    assert result.exit_code == 0, result.output
    assert "heuristic extraction of 3 chunks" in result.output
    assert (tmp_path / "kg" / "communities.json").exists()  # queries need not recompute them
    shown = runner.invoke(app, ["show", *graph])
    assert shown.exit_code == 0 and "co_occurs" in shown.output
    found = runner.invoke(app, ["search", "Saint Selena Cathedral", *graph, "--embed", "hash"])
    assert found.exit_code == 0 and "Saint Selena Cathedral (" in found.output  # a result row
    question = "Where are the Nighthawks?"
    expanded = runner.invoke(app, ["expand", question, *graph, "--embed", "hash", "--seeds", "2"])
    assert expanded.exit_code == 0, expanded.output
    assert "Nighthawks ←joined— Klein Moretti" in expanded.output  # the words between them
    context = runner.invoke(app, ["context", "Nighthawks", *graph, "--embed", "hash"])
    assert context.exit_code == 0, context.output
    assert "-----Entities-----" in context.output and "Nighthawks" in context.output
    mermaid = runner.invoke(app, ["mermaid", *graph])
    assert mermaid.exit_code == 0 and mermaid.output.startswith("flowchart LR")
    assert "Nighthawks" in mermaid.output and "-->" in mermaid.output


def test_import_errors_exit_nonzero(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"name": "A"}\n{"source": "A", "target": "B"}\n')
    result = runner.invoke(
        app, ["import", str(bad), "--graph", str(tmp_path / "kg"), "--embed", "hash"]
    )
    assert result.exit_code == 1
    assert "bad.jsonl:2" in result.output and "'B'" in result.output
    assert not (tmp_path / "kg" / "world.json").exists()


def test_import_then_search(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(
        '{"id": "k", "name": "Klein"}\n{"id": "n", "name": "Nighthawks"}\n'
        '{"source": "k", "target": "n", "relation": "member of", "type": "relation"}\n'
    )
    graph = ["--graph", str(tmp_path / "kg")]
    result = runner.invoke(app, ["import", str(good), *graph, "--embed", "hash"])
    assert result.exit_code == 0 and "imported 2 entities, 1 edges" in result.output
    found = runner.invoke(
        app, ["search", "Klein member of Nighthawks", *graph, "--embed", "hash", "--kind", "edge"]
    )
    assert "Klein —member of→ Nighthawks" in found.output


def test_missing_graph_is_explained(tmp_path):
    result = runner.invoke(app, ["show", "--graph", str(tmp_path / "none")])
    assert result.exit_code == 1 and "treerag kg import" in result.output


def test_default_embedder_falls_back(monkeypatch):
    import builtins

    from treerag.cli import kg

    real_import = builtins.__import__

    def no_models(name, *args, **kwargs):
        if name == "treerag.models":
            raise ImportError("no module named treerag.models")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_models)
    embed, ident = kg.default_embedder()
    assert ident.startswith("hash-") and embed(["x"]).shape[0] == 1
