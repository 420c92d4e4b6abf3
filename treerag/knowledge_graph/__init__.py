"""Knowledge graph engine: world model, path-scoring expansion, local-search context."""

from __future__ import annotations

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
