"""Retrievers: Milvus hybrid chunk search, keyword-tree and knowledge-graph retrieval."""
