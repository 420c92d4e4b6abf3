"""Graph state schemas, `Send` payloads and the input/output schemas of the rag graph."""

from treerag.state.chat import ChatInput, ChatOutput, ChatState
from treerag.state.rag import (
    ChunkRecord,
    JudgeTask,
    RagInput,
    RagOutput,
    RagState,
    SubRunTask,
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
    "merge_chunk_records",
]
