import pytest

from treerag.context import Context
from treerag.models import get_embeddings
from treerag.retrievers.chunk_store import ChunkStore, EmptyStoreError
from treerag.retrievers.hybrid import Retriever, RetrieverArgumentError, from_context


def _store(ctx):
    return ChunkStore(ctx, get_embeddings(ctx))


def _titles(results):
    return [doc.metadata["title"] for doc, _ in results]


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_english_query_found_by_every_mode(corpus_ctx, mode):
    ctx, _, _ = corpus_ctx
    results = from_context(_store(ctx), topk=2, mode=mode).get_similar_chunk_with_score(
        "When was the Tallow Beacon lighthouse lit?"
    )
    assert _titles(results)[0] == "Keldmarsh"
    assert results[0][0].metadata["heading_path"] == ["Keldmarsh", "Harbour"]
    scores = [s for _, s in results]
    assert scores == sorted(scores, reverse=True)


def test_chinese_query_is_a_bm25_jieba_hit(corpus_ctx):
    ctx, _, _ = corpus_ctx
    store = _store(ctx)
    assert store.info()["analyzer"] == "bigram"
    query = "谁是织光行会的首任会长"
    sparse = from_context(store, topk=1, mode="sparse").get_similar_chunk_with_score(query)
    hybrid = from_context(store, topk=2, mode="hybrid").get_similar_chunk_with_score(query)
    assert _titles(sparse) == ["织光行会"]
    assert "织光行会" in _titles(hybrid)


def test_paraphrase_is_a_dense_only_hit(corpus_ctx):
    ctx, _, _ = corpus_ctx
    store = _store(ctx)
    query = "Which feline napped atop a wool rug?"  # no word shared with the cat document
    dense = from_context(store, topk=1, mode="dense").get_similar_chunk_with_score(query)
    sparse = from_context(store, topk=5, mode="sparse").get_similar_chunk_with_score(query)
    assert _titles(dense) == ["cats"]
    assert "cats" not in _titles(sparse)


@pytest.mark.parametrize(
    "ranker,params",
    [
        ("rrf", {"k": 60}),
        ("weighted", {"weights": [0.6, 0.4]}),
        ("model", {"pre_topk": 6}),
    ],
)
def test_every_ranker_finds_the_target(corpus_ctx, ranker, params):
    ctx, _, _ = corpus_ctx
    retriever = Retriever(
        _store(ctx), topk=2, search_type="hybrid", ranker_type=ranker, ranker_params=params
    )
    results = retriever.get_similar_chunk_with_score("salt tax abolished after the flood")
    assert _titles(results)[0] == "Salt tax"
    doc = results[0][0]
    assert doc.id and doc.metadata["source"].endswith("records.jsonl#r1")
    assert doc.metadata["record_id"] == "r1"


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (
            {"search_type": "dense", "search_fields": ["dense", "sparse"]},
            "needs search_type='hybrid'",
        ),
        ({"search_type": "hybrid", "search_fields": ["dense", "colour"]}, "not in the collection"),
        ({"search_type": "hybrid", "search_params": [{}]}, "one dict per field"),
        ({"search_type": "hybrid", "ranker_type": "weighted"}, "one weight per search field"),
        (
            {
                "search_type": "hybrid",
                "ranker_type": "weighted",
                "ranker_params": {"weights": [2, 0]},
            },
            r"\[0, 1\]",
        ),
        ({"search_type": "sparse", "search_fields": ["dense"]}, "searches the 'sparse' field"),
        ({"topk": 0}, "positive integer"),
        ({"ranker_type": "magic"}, "weighted, rrf or model"),
    ],
)
def test_bad_argument_combinations_error_clearly(corpus_ctx, kwargs, message):
    ctx, _, _ = corpus_ctx
    with pytest.raises(RetrieverArgumentError, match=message):
        Retriever(_store(ctx), **kwargs).get_similar_chunk_with_score("anything")


def test_search_before_ingest_says_what_to_do(tmp_path):
    ctx = Context(data_dir=str(tmp_path), collection="empty")
    with pytest.raises(EmptyStoreError, match="treerag ingest"):
        from_context(_store(ctx)).search("anything")


def test_empty_query_rejected(corpus_ctx):
    ctx, _, _ = corpus_ctx
    with pytest.raises(RetrieverArgumentError, match="empty"):
        from_context(_store(ctx)).search("   ")
