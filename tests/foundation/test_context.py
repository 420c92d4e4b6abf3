import pytest

from treerag.context import Context, SettingsError


def test_default_when_nothing_set(monkeypatch):
    monkeypatch.delenv("TREERAG_TOP_K", raising=False)
    assert Context().top_k == 5
    assert Context().search_mode == "hybrid"


def test_env_overrides_default(monkeypatch):
    monkeypatch.setenv("TREERAG_TOP_K", "9")
    monkeypatch.setenv("TREERAG_DENSE_WEIGHT", "0.25")
    monkeypatch.setenv("TREERAG_GRAPH_TOKEN_BUDGET", '{"entities": 10}')
    ctx = Context()
    assert ctx.top_k == 9
    assert ctx.dense_weight == 0.25
    assert ctx.graph_token_budget == {"entities": 10}


def test_explicit_overrides_env(monkeypatch):
    monkeypatch.setenv("TREERAG_TOP_K", "9")
    monkeypatch.setenv("TREERAG_SEARCH_MODE", "dense")
    ctx = Context(top_k=3, search_mode="sparse")
    assert (ctx.top_k, ctx.search_mode) == (3, "sparse")


def test_bad_env_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("TREERAG_TOP_K", "many")
    with pytest.raises(SettingsError, match="TREERAG_TOP_K"):
        Context()


def test_bad_choice_lists_the_choices():
    with pytest.raises(SettingsError, match="dense, sparse, hybrid"):
        Context(search_mode="fuzzy")


def test_negative_number_rejected():
    with pytest.raises(SettingsError, match="top_k"):
        Context(top_k=-1)


def test_defaults_resolve_under_data_dir(tmp_path):
    ctx = Context(data_dir=str(tmp_path))
    assert ctx.resolved_milvus_uri == str(tmp_path / "milvus.db")
    assert ctx.resolved_checkpointer_uri == str(tmp_path / "checkpoints.sqlite")
    assert ctx.offline


def test_mutable_defaults_are_not_shared():
    a, b = Context(), Context()
    a.prompt_overrides["judge"] = "x"
    assert b.prompt_overrides == {}


def test_describe_reports_sources(monkeypatch):
    monkeypatch.setenv("TREERAG_TOP_K", "7")
    rows = {name: source for name, _, source, _ in Context(rrf_k=10).describe()}
    assert rows["top_k"] == "env"
    assert rows["rrf_k"] == "explicit"
    assert rows["chunk_size"] == "default"


def test_a_value_equal_to_the_default_still_beats_the_environment(monkeypatch):
    monkeypatch.setenv("TREERAG_MAX_DEPTH", "0")
    monkeypatch.setenv("TREERAG_TOP_K", "9")
    ctx = Context(max_depth=2)  # e.g. `treerag ask --max-depth 2`
    assert (ctx.max_depth, ctx.top_k) == (2, 9)
    sources = {name: source for name, _, source, _ in ctx.describe()}
    assert (sources["max_depth"], sources["top_k"]) == ("explicit", "env")


def test_the_graphs_publish_a_context_schema_with_descriptions_and_defaults():
    from treerag.graphs.chat import builder as chat_builder
    from treerag.graphs.rag import builder as rag_builder

    for builder in (rag_builder, chat_builder):
        schema = builder.compile().get_context_jsonschema()
        top_k = schema["properties"]["top_k"]
        assert top_k["default"] == 5 and top_k["description"] == "Chunks per retrieval."
        assert schema["properties"]["graph_token_budget"]["default"]["entities"] == 600
        assert not schema.get("required")


def test_readme_documents_every_setting():
    """The README settings table has one row per setting: variable, default, description."""
    import json
    from dataclasses import fields
    from pathlib import Path

    from treerag.context import declared_default

    def cell(value):
        if value == "":
            return "(empty)"
        return f"`{json.dumps(value) if isinstance(value, dict) else value}`"

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    expected = [
        f"| `TREERAG_{f.name.upper()}` | {cell(declared_default(f))} | {f.metadata['description']} |"
        for f in fields(Context)
    ]
    missing = [row for row in expected if row not in readme.splitlines()]
    assert not missing, "README settings table differs from Context:\n" + "\n".join(missing)


def test_each_collection_of_a_data_dir_keeps_its_own_stores(tmp_path):
    default = Context(data_dir=str(tmp_path))
    other = Context(data_dir=str(tmp_path), collection="eval_hotpot")
    assert default.stores_path == default.tenant_path
    assert other.stores_path == tmp_path / "collections" / "eval_hotpot"
    chosen = Context(data_dir=str(tmp_path), collection="eval_hotpot", stores_dir=str(tmp_path))
    assert chosen.stores_path == tmp_path
