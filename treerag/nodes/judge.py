"""Nodes: fan out one judge task per chunk (`Send`), and judge a chunk."""

from __future__ import annotations

import asyncio
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from treerag.context import Context
from treerag.nodes.common import context_of, emit, time_left
from treerag.reasoning import Judgement, Reasoner, get_reasoner, offline_reasoner
from treerag.reasoning.judge_cache import JudgeCache, judge_cache_lease
from treerag.reasoning.named import linked_from, title_of
from treerag.state import ChunkRecord, JudgeTask, RagState, calls_left, grant_judges

MODEL_FAILED = "the chat model failed"
"""How a stand-in verdict's error begins (`nodes.answer` counts them)."""


def judge_tasks(state: RagState, chunks: list[ChunkRecord]) -> list[Send]:
    """One judge task per chunk, sent together: they run in one parallel step.

    Each is granted its call before the step (`state.budget.grant_judges`): one while the
    run's share lasts, in rank order, none after it.
    """
    grants = grant_judges(len(chunks), calls_left(state))
    return [
        Send(
            "judge_chunk",
            JudgeTask(
                question=state["question"],
                chunk=chunk,
                thread_id=state.get("thread_id", ""),
                root_thread_id=state.get("root_thread_id", ""),
                depth=state.get("depth", 0),
                deadline=state.get("deadline", 0.0),
                call_share=grant,
            ),
        )
        for chunk, grant in zip(chunks, grants, strict=True)
    ]


def route_to_judges(state: RagState) -> list[Send] | Literal["answer_question"]:
    """Send every retrieved chunk but the held-back finds (`nodes.reserve`) to a judge."""
    if not state.get("chunks"):
        return "answer_question"
    return judge_tasks(state, [c for c in state["chunks"] if not c.get("reserve")])


async def judge_chunk(task: JudgeTask, runtime: Runtime[Context]) -> dict:
    """Judge one chunk: cache first, then the reasoner when the task was granted a call."""
    ctx = context_of(runtime)
    chunk = task["chunk"]
    reasoner = get_reasoner(ctx)
    link = linked_from(chunk)
    # Off the event loop (`langgraph dev` refuses blocking calls there): the offline judge's
    # name hashes its rules' source files the first time it is read (`rules_version`).
    key = await asyncio.to_thread(_key, task, reasoner, link)
    # SQLite file I/O stays off the event loop (`langgraph dev` refuses blocking calls there).
    # Leased for the call: other tenants pushing it out meanwhile do not drop the verdict.
    lease = await asyncio.to_thread(judge_cache_lease, ctx.tenant_path, ctx.open_stores)
    try:
        verdict, cached = await _cached_or_judged(lease.value, key, reasoner, task, link, ctx)
    finally:
        await asyncio.to_thread(lease.release)  # may close the file: off the loop
    record = {"chunk_id": chunk["chunk_id"], **verdict.as_record(), "cached": cached}
    emit(
        "chunk_judged",
        thread_id=task["thread_id"],
        root_thread_id=task["root_thread_id"],
        depth=task["depth"],
        **record,
    )
    return {"chunks": [record], "llm_calls": verdict.calls}


def _key(task: JudgeTask, reasoner: Reasoner, link: str) -> str:
    """The verdict's cache key: the title is part of what the judge reads, keyed with the text."""
    chunk = task["chunk"]
    return JudgeCache.key(
        task["question"], f"{chunk.get('title', '')}\n{chunk['text']}", reasoner.judge_name, link
    )


async def _cached_or_judged(
    cache: JudgeCache, key: str, reasoner: Reasoner, task: JudgeTask, link: str, ctx: Context
) -> tuple[Judgement, bool]:
    """The cached verdict, else the reasoner's (cached), else none while the budget is spent."""
    verdict = await asyncio.to_thread(cache.get, key)
    if verdict is not None:
        return verdict, True
    if task.get("call_share", 0) > 0:
        verdict = await judged(reasoner, task, link, ctx)  # retries count as calls too
        await asyncio.to_thread(cache.put, key, verdict)
        return verdict, False
    skipped = Judgement(
        0,
        "not judged: the LLM call budget is spent",
        calls=0,
        error=f"budget: max_llm_calls={ctx.max_llm_calls} reached",
    )
    return skipped, False


async def judged(reasoner: Reasoner, task: JudgeTask, link: str, ctx: Context) -> Judgement:
    """The reasoner's verdict within the question's deadline, the offline judge's if it fails.

    A model that times out, errors or answers out of shape (`Judgement.error`) leaves the
    chunk to the offline judge, whose verdict stands in, marked with the model's error; the
    run's answer says so in one sentence (`nodes.answer`).
    """
    chunk = task["chunk"]
    args = (task["question"], title_of(chunk), chunk["text"], link)
    try:
        verdict = await asyncio.wait_for(reasoner.judge(*args), time_left(task.get("deadline")))
    except TimeoutError:
        verdict = Judgement(0, "", error=f"timeout: run_timeout_s={ctx.run_timeout_s:g} passed")
    if not verdict.error or reasoner.offline:
        return verdict
    stand_in = await offline_reasoner(ctx).judge(*args)
    stand_in.calls = verdict.calls
    stand_in.error = f"{MODEL_FAILED} ({verdict.error}); the offline judge decided"
    return stand_in
