"""Knowledge graph engine: world model, path-scoring expansion, local-search context.

Names are loaded on first use (PEP 562 module `__getattr__`): `from treerag.knowledge_graph
import World` loads the world model and networkx, not the builders, the extractor or the
keyword tree behind them, which keeps `treerag ask` from importing what it does not run.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "AttributeValue": "model",
    "build_from_chunks": "build",
    "build_local_context": "local_search",
    "BuildReport": "build",
    "Community": "communities",
    "CommunityIndex": "communities",
    "CommunityMembers": "communities",
    "compact_graph": "compact",
    "CompactGraph": "compact",
    "count_tokens": "text",
    "detect_communities": "communities",
    "DuplicateIdError": "errors",
    "Edge": "model",
    "Embed": "embedding",
    "embed_from_documents": "embedding",
    "EmbeddingError": "errors",
    "Entity": "model",
    "expand_paths": "expansion",
    "expand_paths_reference": "expansion_reference",
    "expand_world": "query",
    "ExpansionConfig": "config",
    "ExpansionResult": "paths",
    "ExtractedEntity": "schemas",
    "ExtractedRelation": "schemas",
    "ExtractionResult": "schemas",
    "extractive_summary": "communities",
    "Extractor": "extract",
    "FinalScoringWeights": "config",
    "format_path": "paths",
    "GraphContext": "query",
    "GraphFormatError": "errors",
    "GraphQueryConfig": "query",
    "HashEmbedder": "embedding",
    "HeuristicExtractor": "extract",
    "import_files": "importer",
    "ImportRecordError": "errors",
    "ImportReport": "importer",
    "KnowledgeGraphError": "errors",
    "local_search": "local_search",
    "LocalContext": "local_search",
    "LocalSearchConfig": "local_search",
    "make_vector_index": "vectors",
    "Memory": "memories",
    "MemoryMap": "memories",
    "MergeStrategy": "config",
    "MissingEntityError": "errors",
    "NumpyVectorIndex": "vectors",
    "query_graph": "query",
    "query_vector": "query",
    "read_chunks": "importer",
    "RecencyConfig": "config",
    "RunnableExtractor": "extract",
    "ScoredMemory": "paths",
    "ScoredPath": "paths",
    "SearchResult": "model",
    "SearchResultEdge": "model",
    "SearchResultEntity": "model",
    "Summarizer": "communities",
    "TextUnit": "model",
    "VectorIndex": "vectors",
    "World": "world",
    "world_communities": "communities",
    "world_memories": "memories",
}
"""Each public name and the submodule that defines it."""

__all__ = [
    "AttributeValue",
    "BuildReport",
    "Community",
    "CommunityIndex",
    "CommunityMembers",
    "CompactGraph",
    "DuplicateIdError",
    "Edge",
    "Embed",
    "EmbeddingError",
    "Entity",
    "ExpansionConfig",
    "ExpansionResult",
    "ExtractedEntity",
    "ExtractedRelation",
    "ExtractionResult",
    "Extractor",
    "FinalScoringWeights",
    "GraphContext",
    "GraphFormatError",
    "GraphQueryConfig",
    "HashEmbedder",
    "HeuristicExtractor",
    "ImportRecordError",
    "ImportReport",
    "KnowledgeGraphError",
    "LocalContext",
    "LocalSearchConfig",
    "Memory",
    "MemoryMap",
    "MergeStrategy",
    "MissingEntityError",
    "NumpyVectorIndex",
    "RecencyConfig",
    "RunnableExtractor",
    "ScoredMemory",
    "ScoredPath",
    "SearchResult",
    "SearchResultEdge",
    "SearchResultEntity",
    "Summarizer",
    "TextUnit",
    "VectorIndex",
    "World",
    "build_from_chunks",
    "build_local_context",
    "compact_graph",
    "count_tokens",
    "detect_communities",
    "embed_from_documents",
    "expand_paths",
    "expand_paths_reference",
    "expand_world",
    "extractive_summary",
    "format_path",
    "import_files",
    "local_search",
    "make_vector_index",
    "query_graph",
    "query_vector",
    "read_chunks",
    "world_communities",
    "world_memories",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


class _Package(types.ModuleType):
    """Keeps a function named like its module (`local_search`) bound over that module.

    Loading a submodule binds it as an attribute of its package, which would hide the
    function of the same name once anything imported `treerag.knowledge_graph.local_search`.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if _EXPORTS.get(name) == name and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:
    from treerag.knowledge_graph.build import BuildReport, build_from_chunks
    from treerag.knowledge_graph.communities import (
        Community,
        CommunityIndex,
        CommunityMembers,
        Summarizer,
        detect_communities,
        extractive_summary,
        world_communities,
    )
    from treerag.knowledge_graph.compact import CompactGraph, compact_graph
    from treerag.knowledge_graph.config import (
        ExpansionConfig,
        FinalScoringWeights,
        MergeStrategy,
        RecencyConfig,
    )
    from treerag.knowledge_graph.embedding import Embed, HashEmbedder, embed_from_documents
    from treerag.knowledge_graph.errors import (
        DuplicateIdError,
        EmbeddingError,
        GraphFormatError,
        ImportRecordError,
        KnowledgeGraphError,
        MissingEntityError,
    )
    from treerag.knowledge_graph.expansion import expand_paths
    from treerag.knowledge_graph.expansion_reference import expand_paths_reference
    from treerag.knowledge_graph.extract import Extractor, HeuristicExtractor, RunnableExtractor
    from treerag.knowledge_graph.importer import ImportReport, import_files, read_chunks
    from treerag.knowledge_graph.local_search import (
        LocalContext,
        LocalSearchConfig,
        build_local_context,
        local_search,
    )
    from treerag.knowledge_graph.memories import Memory, MemoryMap, world_memories
    from treerag.knowledge_graph.model import (
        AttributeValue,
        Edge,
        Entity,
        SearchResult,
        SearchResultEdge,
        SearchResultEntity,
        TextUnit,
    )
    from treerag.knowledge_graph.paths import ExpansionResult, ScoredMemory, ScoredPath, format_path
    from treerag.knowledge_graph.query import (
        GraphContext,
        GraphQueryConfig,
        expand_world,
        query_graph,
        query_vector,
    )
    from treerag.knowledge_graph.schemas import ExtractedEntity, ExtractedRelation, ExtractionResult
    from treerag.knowledge_graph.text import count_tokens
    from treerag.knowledge_graph.vectors import NumpyVectorIndex, VectorIndex, make_vector_index
    from treerag.knowledge_graph.world import World
