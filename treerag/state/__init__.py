"""Graph state schemas, `Send` payloads and the input/output schemas of the rag graph."""

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
    "ChunkRecord",
    "JudgeTask",
    "RagInput",
    "RagOutput",
    "RagState",
    "SubRunTask",
    "merge_chunk_records",
]
