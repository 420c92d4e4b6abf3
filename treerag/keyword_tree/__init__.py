"""File-backed keyword knowledge tree (seed 03): exact lookup, agent descent, undoable writes."""

from treerag.keyword_tree.agent import AgentStats, KeywordAgent
from treerag.keyword_tree.config import TreeConfig
from treerag.keyword_tree.derive import ChunkRecord
from treerag.keyword_tree.errors import (
    ConflictError,
    CorruptRecordError,
    CycleError,
    DuplicateError,
    InvalidInputError,
    KeywordTreeError,
    NotFoundError,
    StorageError,
    UndoError,
    VersionConflictError,
)
from treerag.keyword_tree.heuristic import HeuristicAgent
from treerag.keyword_tree.models import (
    Info,
    InfoHit,
    InfoKeywordLink,
    KeywordHit,
    KeywordNode,
    Page,
    Relation,
)
from treerag.keyword_tree.reorganize import ReorganizePlan
from treerag.keyword_tree.results import (
    Ambiguous,
    DescentTrace,
    Matched,
    NotFound,
    SearchResult,
    WriteResult,
)
from treerag.keyword_tree.schemas import (
    BranchDecision,
    CandidateNode,
    DedupDecision,
    DescentView,
    DisambiguationDecision,
    LinkChoice,
    LinkDecision,
    PlanStep,
    ReorganizeAdvice,
    ViewNode,
)
from treerag.keyword_tree.store import KeywordTree

__all__ = [
    "AgentStats",
    "Ambiguous",
    "BranchDecision",
    "CandidateNode",
    "ChunkRecord",
    "ConflictError",
    "CorruptRecordError",
    "CycleError",
    "DedupDecision",
    "DescentTrace",
    "DescentView",
    "DisambiguationDecision",
    "DuplicateError",
    "HeuristicAgent",
    "Info",
    "InfoHit",
    "InfoKeywordLink",
    "InvalidInputError",
    "KeywordAgent",
    "KeywordHit",
    "KeywordNode",
    "KeywordTree",
    "KeywordTreeError",
    "LinkChoice",
    "LinkDecision",
    "Matched",
    "NotFound",
    "NotFoundError",
    "Page",
    "PlanStep",
    "Relation",
    "ReorganizeAdvice",
    "ReorganizePlan",
    "SearchResult",
    "StorageError",
    "TreeConfig",
    "UndoError",
    "VersionConflictError",
    "ViewNode",
    "WriteResult",
]
