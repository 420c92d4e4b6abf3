"""treerag: agentic question answering over your own documents.

Public API (stable names for applications and supervisor agents):

- `ask(question, ctx=None, ...)`: answer with the recursive judge graph; returns answer,
  citations, ranked evidence, thread_id and the search tree.
- `tree(thread_id, ctx=None)` / `runs(ctx=None)`: rebuild a search tree, list recent runs.
- `Context`: run settings (explicit > TREERAG_* env > default).
- `rag_builder()` / `chat_builder()`: the uncompiled graphs, to compile with your own
  checkpointer or to add as subgraph nodes.
- `as_retriever(ctx=None, structured=False)`: treerag's retrieval as a LangChain
  `BaseRetriever`; `as_vector_store(ctx=None)`: the chunk collection as a
  `langchain_milvus.Milvus` store for dense search (`treerag.retrievers.as_langchain`).
"""

from __future__ import annotations

import logging
from typing import Any

from treerag.context import Context

# Milvus Lite's indexes import faiss, whose loader logs at INFO each CPU build it could not load
# ("No module named 'faiss.swigfaiss_avx512'"): nothing a user can act on, in every server log.
logging.getLogger("faiss.loader").setLevel(logging.WARNING)

__all__ = [
    "Context",
    "as_retriever",
    "as_vector_store",
    "ask",
    "chat_builder",
    "rag_builder",
    "runs",
    "tree",
]


def rag_builder() -> Any:
    """Return the rag graph's StateGraph builder (input {"question"}, output answer etc.)."""
    from treerag.graphs.rag import builder

    return builder


def chat_builder() -> Any:
    """Return the chat graph's StateGraph builder (messages in, messages out)."""
    from treerag.graphs.chat import builder

    return builder


def __getattr__(name: str) -> Any:
    # The API functions import LangGraph and Milvus clients: load them on first use only.
    if name in ("ask", "tree", "runs"):
        from treerag import api

        return getattr(api, name)
    if name in ("as_retriever", "as_vector_store"):
        from treerag.retrievers import as_langchain

        return getattr(as_langchain, name)
    raise AttributeError(name)
