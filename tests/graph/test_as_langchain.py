"""treerag's retrieval in a LangChain user's own chain: a BaseRetriever and a Milvus store."""

from __future__ import annotations

from langchain_core.retrievers import BaseRetriever

import treerag


def test_the_retriever_returns_cited_chunks(make_ctx):
    ctx = make_ctx(top_k=3)
    retriever = treerag.as_retriever(ctx)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("Where was Orla Venn born?")
    assert len(docs) == 3 and docs[0].metadata["chunk_id"] and docs[0].metadata["source"]
    assert any("Orla Venn" in d.page_content for d in docs)
    # With the structured sources, their finds follow the hybrid hits and say what found them.
    wider = treerag.as_retriever(ctx, structured=True).invoke("Where was Orla Venn born?")
    assert [d.metadata["chunk_id"] for d in wider[:3]] == [d.metadata["chunk_id"] for d in docs]


def test_the_collection_opens_as_a_langchain_milvus_store(make_ctx):
    from langchain_milvus import Milvus

    store = treerag.as_vector_store(make_ctx())
    assert isinstance(store, Milvus)
    hits = store.similarity_search("Who founded Quillhaven?", k=2)
    assert hits and "Quillhaven" in hits[0].page_content
    chain = store.as_retriever(search_kwargs={"k": 1})
    assert len(chain.invoke("Quillhaven harbour")) == 1
