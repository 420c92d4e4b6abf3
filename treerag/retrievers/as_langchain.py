"""treerag's retrieval for a LangChain user's own chains: a `BaseRetriever` and a vector store.

- `as_retriever(ctx)`: a `BaseRetriever` over the hybrid search treerag runs (dense + BM25,
  fused per the query's language, `treerag.retrievers.hybrid`); with `structured=True` it
  also returns what the keyword tree and the graph add (`treerag.retrievers.sources.gather`).
  Each `Document` carries `chunk_id`, `source`, `title` and `score` in its metadata.
- `as_vector_store(ctx)`: the chunk collection as a `langchain_milvus.Milvus` store for dense
  search (`similarity_search`, `as_retriever()`), with the embedder the collection was built
  with. A Milvus Lite folder is reached through the process serving it
  (`treerag.retrievers.lite_share`), so it works beside `langgraph dev` and the CLI.

Neither writes: documents go in with `treerag ingest` (or `treerag.documents.ingest_files`),
which keeps the keyword tree and the graph in step.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from treerag.context import Context


class TreeragRetriever(BaseRetriever):
    """treerag's hybrid retrieval (and, optionally, its structured sources) as a retriever."""

    ctx: Context
    """The settings: data dir, collection, top_k, ranker, structure."""
    structured: bool = False
    """Also return the keyword tree's and the graph's finds, after the hybrid hits."""

    model_config = {"arbitrary_types_allowed": True}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.structured:
            from treerag.retrievers.sources import gather

            return [_document(c) for c in gather(self.ctx, query)]
        from treerag.models import get_embeddings
        from treerag.retrievers.chunk_store import ChunkStore
        from treerag.retrievers.hybrid import from_context

        store = ChunkStore(self.ctx, get_embeddings(self.ctx))
        docs = from_context(store).search(query)
        for doc in docs:
            doc.metadata["chunk_id"] = doc.id  # as the structured finds carry it
        return docs


def _document(candidate: dict[str, Any]) -> Document:
    meta = {
        "chunk_id": candidate["chunk_id"],
        "source": candidate.get("source", ""),
        "title": candidate.get("title", ""),
        "score": candidate.get("retrieval_score", 0.0),
    }
    if candidate.get("found_by"):
        meta["found_by"] = candidate["found_by"]
    return Document(page_content=candidate.get("text", ""), metadata=meta)


def as_retriever(ctx: Context | None = None, *, structured: bool = False) -> BaseRetriever:
    """Return treerag's retrieval as a LangChain `BaseRetriever` (see the module docstring)."""
    return TreeragRetriever(ctx=ctx or Context(), structured=structured)


def as_vector_store(ctx: Context | None = None) -> Any:
    """The chunk collection as a `langchain_milvus.Milvus` store for dense search.

    Raises:
        EmptyStoreError: no collection yet (`treerag ingest` first).
    """
    from langchain_milvus import Milvus

    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import DENSE, TEXT, ChunkStore

    ctx = ctx or Context()
    store = ChunkStore(ctx, get_embeddings(ctx))
    store.require_data()
    store.check_embedder()  # the embedder the collection was built with, or a clear error
    client = store.client
    endpoint = getattr(client, "endpoint", None)
    uri = endpoint.uri if endpoint is not None else ctx.resolved_milvus_uri
    connection: dict[str, Any] = {"uri": uri}
    if ctx.milvus_token:
        connection["token"] = ctx.milvus_token
    return Milvus(
        embedding_function=store.embeddings,
        collection_name=store.name,
        connection_args=connection,
        vector_field=DENSE,
        text_field=TEXT,
        primary_field="id",
        auto_id=False,
    )
