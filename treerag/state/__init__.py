"""Graph state schemas, `Send` payloads, the input/output schemas and the run's call budget."""

from treerag.state.budget import answer_calls, calls_left, grant_judges, run_share
from treerag.state.chat import ChatInput, ChatOutput, ChatState
from treerag.state.rag import (
    ChunkRecord,
    JudgeTask,
    RagInput,
    RagOutput,
    RagState,
    SubRunTask,
    add_calls,
    add_notes,
    merge_chunk_records,
)

__all__ = [
    "ChatInput",
    "ChatOutput",
    "ChatState",
    "ChunkRecord",
    "JudgeTask",
    "RagInput",
    "RagOutput",
    "RagState",
    "SubRunTask",
    "add_calls",
    "add_notes",
    "answer_calls",
    "calls_left",
    "grant_judges",
    "merge_chunk_records",
    "run_share",
]
