"""A level's follow-ups, planned by pure functions: from the judged chunks to the sub-run tasks.

`plan_followups` (`treerag.nodes.subrun`) runs them in this order, the fetch of the sub-runs'
chunks in between:

1. `stop_reason`: does the level recurse at all (the depth limit, then the reasoner's rules:
   `Reasoner.should_recurse`)?
2. `followable`: which partial chunks to follow: those about what the question names, when
   there are such (`chunk_reading.names_entity`), never one about a document the run holds
   (`held_bridge`);
3. `dedupe`: never a follow-up asked on the way here or by a sibling, nor a near-duplicate
   of one, nor of an earlier candidate (`questions.is_new`);
4. `cap`: at most `max_subqueries`, and only as many as the run's calls left pay for
   (`affordable`: a sub-run costs a judge per candidate and answers by quoting);
5. `plan_subruns`: the child records, for the follow-ups that found chunks, each granted an
   even part of the calls left, so the first branches cannot spend the later ones' budget;
6. `subrun_tasks`: one `Send` payload per planned sub-run.

A partial chunk whose follow-up is not asked records why (`not_asked_records`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.types import Send

from treerag.reasoning.base import Reasoner
from treerag.reasoning.chunk_reading import names_entity, subjects
from treerag.reasoning.named import names_title, title_of
from treerag.reasoning.questions import is_new
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import RELATION_SHARE, relation_share
from treerag.state import ChunkRecord, RagState, SubRunTask

Why = dict[str, str]
"""Why a partial chunk's follow-up gets no sub-run, by chunk id."""


def stop_reason(state: RagState, max_depth: int, reasoner: Reasoner) -> str:
    """Why the level asks no follow-up at all, "" when it may ask some."""
    if state.get("depth", 0) >= max_depth:
        return f"depth limit (max_depth={max_depth})"
    return reasoner.should_recurse(state["question"], state.get("chunks", [])).why_not


def partial_chunks(chunks: Sequence[ChunkRecord]) -> list[ChunkRecord]:
    """The chunks judged partial that ask a follow-up, best retrieval rank first."""
    return sorted(
        (c for c in chunks if c.get("score") == 1 and c.get("followup")), key=lambda c: c["rank"]
    )


def followable(question: str, chunks: Sequence[ChunkRecord]) -> tuple[list[ChunkRecord], Why]:
    """The partial chunks worth following, best rank first, and why the others are not.

    The first hop is the document the question names: when such chunks ask follow-ups, a
    chunk that only shares words with the question is not followed. Nor is one whose
    follow-up asks about a document the run holds already (`held_bridge`).
    """
    partial = partial_chunks(chunks)
    first_hops = {c["chunk_id"] for c in partial if names_entity(question, c)}
    kept: list[ChunkRecord] = []
    why: Why = {}
    for chunk in partial:
        if first_hops and chunk["chunk_id"] not in first_hops:
            why[chunk["chunk_id"]] = "a chunk about what the question names asks the next step"
        elif held := held_bridge(question, chunk, chunks):
            why[chunk["chunk_id"]] = f"the run holds its bridge already: {held}"
        else:
            kept.append(chunk)
    return kept, why


def held_bridge(question: str, chunk: ChunkRecord, chunks: Sequence[ChunkRecord]) -> str:
    """The title of a useful chunk of this run that the chunk's follow-up asks about, or "".

    A follow-up goes after the bridge entity its chunk names; when this run already holds,
    judged useful, the document about that entity (its subject named by the follow-up and
    not by the question: `chunk_reading.subjects`) and what the follow-up asks of it (its
    relation, `relation_held.relation_share`), the sub-run would look for what the run has.
    The answer then reads the follow-up's answer in the run's own chunks (`build_evidence`).
    """
    followup = chunk.get("followup", "")
    asked = read_question(followup)
    for other in chunks:
        # Another document: a section of the chunk's own is no bridge it holds.
        if other.get("source") == chunk.get("source") or other.get("score", 0) <= 0:
            continue
        text = other.get("text", "")
        for subject in subjects(title_of(other), text):
            if not names_title(followup, subject) or names_title(question, subject):
                continue
            # A section about the bridge that says another thing of it ("1931年，她應霧溪慈
            # 雲宮之邀…" of 林秋月, asked when she died) does not hold the follow-up's answer.
            if relation_share(asked, fold(f"{title_of(other)} {text}")) >= RELATION_SHARE:
                return subject
    return ""


def dedupe(
    candidates: Sequence[ChunkRecord], asked: Sequence[str]
) -> tuple[list[ChunkRecord], Why]:
    """Drop follow-ups already asked: on the way here, by a sibling, or by an earlier candidate.

    `asked` holds the questions of the tree on this run's way from the root, its siblings'
    and its own; a near-duplicate counts as asked (`questions.is_new`).
    """
    seen = list(asked)
    kept: list[ChunkRecord] = []
    why: Why = {}
    for chunk in candidates:
        if is_new(chunk["followup"], seen):
            seen.append(chunk["followup"])
            kept.append(chunk)
        else:
            why[chunk["chunk_id"]] = "duplicate of an earlier question"
    return kept, why


def affordable(calls_left: int, max_subqueries: int, subrun_size: int) -> int:
    """How many sub-runs the level may start: the calls left pay a full sub-run's judges each.

    A sub-run judges at most `subrun_size` chunks and answers by quoting, without a call.
    """
    return min(max_subqueries, calls_left // subrun_size)


def cap(
    candidates: Sequence[ChunkRecord], limit: int, max_subqueries: int, max_llm_calls: int
) -> tuple[list[ChunkRecord], Why]:
    """The first `limit` candidates (`affordable`), and why the rest are not asked."""
    reason = (
        f"max_subqueries={max_subqueries} reached"
        if limit >= max_subqueries
        else f"budget spent (max_llm_calls={max_llm_calls})"
    )
    limit = max(0, limit)
    return list(candidates[:limit]), {c["chunk_id"]: reason for c in candidates[limit:]}


def plan_subruns(
    thread_id: str,
    chosen: Sequence[ChunkRecord],
    questions: Sequence[str],
    fetched: Sequence[list[dict[str, Any]]],
    calls_left: int,
) -> tuple[list[ChunkRecord], Why]:
    """The child records of the chosen follow-ups that found chunks, and why the others stop.

    `questions[i]` is the follow-up of `chosen[i]` as its sub-run asks it (in the question's
    script), `fetched[i]` the chunks fetched for it. Each planned sub-run is granted an even
    part of the calls left (`SubRunTask.call_share`): `affordable` made that at least a full
    sub-run's judges.
    """
    planned = [
        ChunkRecord(
            chunk_id=chunk["chunk_id"],
            child_thread_id=child_thread_id(thread_id, chunk),
            child_chunks=found,
            followup=question,
        )
        for chunk, found, question in zip(chosen, fetched, questions, strict=True)
        if found
    ]
    for record in planned:
        record["call_share"] = calls_left // len(planned)
    why = {
        chunk["chunk_id"]: "it finds no chunk the tree does not hold already"
        for chunk, found in zip(chosen, fetched, strict=True)
        if not found
    }
    return planned, why


def child_thread_id(parent: str, chunk: ChunkRecord) -> str:
    """Derive a child's thread_id from its parent's and the chunk's rank: `root/2/1`."""
    return f"{parent}/{chunk['rank']}"


def not_asked_records(
    chunks: Sequence[ChunkRecord], why: Why, reason: str = ""
) -> list[ChunkRecord]:
    """A record of why on each partial chunk whose follow-up has no sub-run.

    `why` gives the reason by chunk id; `reason`, when given, holds for every partial chunk
    with a follow-up (depth limit, a chunk that answers, the question covered).
    """
    return [
        ChunkRecord(chunk_id=c["chunk_id"], not_asked=why.get(c["chunk_id"], reason))
        for c in chunks
        if c.get("score") == 1 and c.get("followup") and why.get(c["chunk_id"], reason)
    ]


def subrun_tasks(state: Mapping[str, Any]) -> list[Send]:
    """One `run_sub_rag` task per planned follow-up not yet answered, all sent together."""
    chunks = state.get("chunks", [])
    planned = [c for c in chunks if c.get("child_thread_id") and "sub_answer" not in c]
    # What the tree holds once this level's sub-runs have their chunks: theirs, this run's
    # and everything on the way here. Their own sub-runs look past all of it.
    seen = [
        *state.get("seen_chunk_ids", []),
        *(c["chunk_id"] for c in chunks),
        *(f["chunk_id"] for c in planned for f in c.get("child_chunks", [])),
    ]
    return [
        Send(
            "run_sub_rag",
            SubRunTask(
                question=c["followup"],
                chunk=c,
                thread_id=state.get("thread_id", ""),
                root_thread_id=state.get("root_thread_id", ""),
                child_thread_id=c["child_thread_id"],
                depth=state.get("depth", 0) + 1,
                call_share=c.get("call_share", 0),
                prefetched=c.get("child_chunks", []),
                seen_chunk_ids=seen,
                asked=state.get("asked", []),
                deadline=state.get("deadline", 0.0),
            ),
        )
        for c in planned
    ]
