"""State of one rag run (the root or a recursive sub-run), its Send payloads and its reducers.

The LLM-call budget is part of the run's state, nothing else holds it: `call_share` is what
the run and its sub-runs may spend, `llm_calls` what the run itself has spent. Parallel tasks
of a `Send` fan-out cannot share a counter, so none of them decides alone what it may spend:
before a fan-out the run grants each task its part of what is left (`treerag.state.budget`):
one call or none to each judge (`JudgeTask.call_share`), an even part to each sub-run
(`SubRunTask.call_share`), whose own judges and sub-runs are granted out of it in turn. Each
task returns the calls it made and `add_calls` sums them; a sub-run's spend comes back on its
chunk (`sub_llm_calls`). A checkpoint holds both sides, so a resumed run goes on from what it
had spent, and a new run on the thread starts its count, its notes and its deadline over
(`retrieve_chunks`). Not counted: the calls of a task LangGraph cancels because a sibling in
the same step raised; its writes are dropped, and on resume it runs and counts again.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


class ChunkRecord(TypedDict, total=False):
    """One retrieved chunk and everything the run learnt about it; a node of the search tree."""

    chunk_id: str
    """The chunk's id in the Milvus collection."""
    rank: int
    """1-based position in this run's retrieval results."""
    title: str
    """Title of the document the chunk comes from."""
    source: str
    """Path (or `file#record`) of the document."""
    text: str
    """The chunk's text."""
    retrieval_score: float
    """The retriever's score (higher is better; scale depends on the mode; 0 for structure)."""
    reserve: int
    """A candidate held back (absent or 0: judged at once): 1 a structured find, judged only
    when none of the run's hybrid top_k is sufficient; 2 a hybrid hit after the top_k,
    judged only when nothing before it is sufficient and no partial chunk asks a follow-up;
    else dropped unjudged (`treerag.nodes.reserve`)."""
    further: bool
    """A hybrid hit after the root's top_k (`reserve` 2 until released): read for an answer
    only, so a partial verdict of it joins no answer's evidence (`nodes.answer`): what the
    wider search did not answer, the answer does not quote."""
    found_by: dict[str, Any]
    """For a chunk the keyword tree or the graph added (absent for hybrid hits):
    {"kind": "keyword" | "graph", "path": [names]}, the keyword path or the graph path
    (seed, shared entity, passage) that led to it."""
    score: int
    """Judge verdict: 0 irrelevant, 1 partial, 2 sufficient."""
    reason: str
    """The judge's one-sentence reason."""
    followup: str
    """For score 1: the follow-up question that would complete the chunk."""
    quote: str
    """The sentence of the chunk that supports the verdict."""
    error: str
    """Set when judging failed (timeout, malformed output, budget): the score is then 0."""
    cached: bool
    """Whether the verdict came from the persistent judge cache."""
    child_thread_id: str
    """thread_id of the sub-run this chunk caused (score 1 only)."""
    not_asked: str
    """Why a partial chunk's follow-up got no sub-run (depth limit, budget, duplicate…)."""
    sub_answer: str
    """The sub-run's answer, which completes this chunk."""
    sub_evidence: list[dict[str, Any]]
    """The sub-run's ranked evidence (chunk id, title, source, score, depth)."""
    sub_chain: list[dict[str, Any]]
    """The sentences the sub-run's answer followed along its chain [{"chunk_id", "text"}],
    last hop first; empty when it found none (`treerag.reasoning.compose`)."""
    sub_llm_calls: int
    """LLM-role calls made by the sub-run and its own descendants."""
    call_share: int
    """LLM-role calls the sub-run this chunk caused may spend, its descendants included."""
    child_chunks: list[dict[str, Any]]
    """The chunks fetched for the sub-run this chunk caused, when the level was planned."""


def merge_chunk_records(
    existing: list[ChunkRecord] | None, update: list[ChunkRecord] | dict[str, list[ChunkRecord]]
) -> list[ChunkRecord]:
    """Merge records by chunk id, keeping first-seen order; `{"replace": [...]}` starts over.

    Parallel judge and sub-run tasks each return a partial record for their own chunk; this
    reducer folds them into one record per chunk instead of mutating shared objects.
    """
    if isinstance(update, dict):
        existing, update = [], update["replace"]
    merged = {r["chunk_id"]: dict(r) for r in (existing or [])}
    order = [r["chunk_id"] for r in (existing or [])]
    for record in update:
        cid = record["chunk_id"]
        if cid not in merged:
            merged[cid] = {}
            order.append(cid)
        merged[cid].update(record)
    return [ChunkRecord(**merged[cid]) for cid in order]  # type: ignore[typeddict-item]


def add_notes(
    existing: list[dict[str, Any]] | None,
    update: list[dict[str, Any]] | dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Append the notes a step adds; `{"replace": [...]}` starts the list over.

    The keyword descent and the graph expansion each add their note; a new run on a thread
    that ran before starts with none of the earlier run's (`retrieve_chunks`).
    """
    if isinstance(update, dict):
        return list(update["replace"])
    return [*(existing or []), *update]


def add_calls(existing: int | None, update: int | dict[str, int]) -> int:
    """Sum the calls the run's tasks report; `{"replace": n}` starts the count over at n.

    Judge tasks of one fan-out each return what they spent, in the same step; a new run on a
    thread that ran before replaces the old count (`retrieve_chunks`).
    """
    if isinstance(update, dict):
        return update["replace"]
    return (existing or 0) + update


class RagInput(TypedDict, total=False):
    """What a caller passes: a question, and (for sub-runs) where it sits in the tree."""

    question: str
    """The question to answer."""
    depth: int
    """Recursion depth: 0 for the root run."""
    root_thread_id: str
    """thread_id of the root run of this search tree (empty: this run is the root)."""
    parent_thread_id: str
    """thread_id of the run that started this one (empty for the root)."""
    parent_chunk_id: str
    """The chunk whose follow-up question this run answers (empty for the root)."""
    call_share: int
    """LLM-role calls this run and its sub-runs may spend (0: the tree's whole budget,
    `max_llm_calls`); fixed when the run starts, granted by its parent to a sub-run."""
    prefetched: list[dict[str, Any]]
    """Sub-runs: the chunks the parent fetched for this run when it planned the level."""
    seen_chunk_ids: list[str]
    """Chunks the tree already holds on this run's way from the root (ancestors, their
    sub-runs, this run's siblings): the run's own sub-runs do not fetch them again."""
    asked: list[str]
    """Questions asked on this run's way from the root, its siblings' included: a follow-up
    that near-duplicates one of them is not asked."""
    deadline: float
    """When the whole question must be answered (epoch seconds): each root run sets it from
    `run_timeout_s` when it starts, its sub-runs inherit it; model calls still waiting then
    give way."""


class RagState(RagInput, total=False):
    """Everything one run accumulates; checkpointed under the run's own thread_id."""

    thread_id: str
    """This run's own thread_id (read from the run config)."""
    chunks: Annotated[list[ChunkRecord], merge_chunk_records]
    """Retrieved chunks with verdicts and sub-run results, in retrieval order."""
    context_notes: Annotated[list[dict[str, Any]], add_notes]
    """Structured context (keyword-tree infos, knowledge-graph paths) for the answer; this
    run's own (`add_notes`)."""
    answer: str
    """The final answer text, with [n] citations."""
    citations: list[dict[str, Any]]
    """Citations [{"n", "chunk_id", "source", "title"}] used by the answer."""
    chain: list[dict[str, Any]]
    """The sentences that answer along the tree's chain [{"chunk_id", "text"}], last hop
    first; empty when the tree found none (`treerag.reasoning.compose.chain`)."""
    evidence: list[dict[str, Any]]
    """Ranked evidence of the whole subtree, best first."""
    llm_calls: Annotated[int, add_calls]
    """LLM-role calls made by this run, not counting its sub-runs: its judges (retries
    included), the root's keyword descent and answer. Summed over parallel tasks (`add_calls`,
    the budget rule at the top of this module)."""
    tree_llm_calls: int
    """LLM-role calls of this run and all its sub-runs."""
    reasoner: str
    """Which reasoner answered ("offline" or the chat model's name)."""
    error: str
    """A run-level problem the answer had to work around (e.g. nothing ingested)."""
    unread_stores: list[str]
    """Derived stores ("keyword_tree", "knowledge_graph") this run could not read and went
    on without (`retrievers.sources.find_or_skip`); the answer says so."""


class RagOutput(TypedDict, total=False):
    """What a caller gets back."""

    question: str
    answer: str
    citations: list[dict[str, Any]]
    chain: list[dict[str, Any]]
    evidence: list[dict[str, Any]]
    thread_id: str
    tree_llm_calls: int
    reasoner: str
    error: str


class JudgeTask(TypedDict):
    """Send payload: judge one chunk against the run's question."""

    question: str
    chunk: ChunkRecord
    thread_id: str
    root_thread_id: str
    depth: int
    deadline: float
    call_share: int
    """Calls this judge was granted before the fan-out: 1, or 0 when the run's share is
    spent (a cached verdict still serves; otherwise the chunk is recorded unjudged)."""


class SubRunTask(TypedDict):
    """Send payload: answer a partial chunk's follow-up question in a child run."""

    question: str
    chunk: ChunkRecord
    thread_id: str
    root_thread_id: str
    child_thread_id: str
    depth: int
    call_share: int
    """Calls the sub-run and its descendants were granted (`ChunkRecord.call_share`)."""
    prefetched: list[dict[str, Any]]
    seen_chunk_ids: list[str]
    asked: list[str]
    deadline: float
