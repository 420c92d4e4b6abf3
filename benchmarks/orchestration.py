"""Orchestration benchmark: does the graph reach the critical path of its LLM calls?

Run from the repository root::

    python benchmarks/orchestration.py            # k=5 and k=3, d=2, L=0.2 s
    python benchmarks/orchestration.py --write    # also splice the results into BENCHMARKS.md

A scripted chat model answers every LLM role after a fixed latency L (asyncio.sleep): the judge
(structured output) and the answer step each cost L. Every judge returns score 1 with a unique
follow-up, so every level recurses; with ``top_k=k`` and ``max_subqueries=1`` the search tree is
a chain of d+1 runs with k judged chunks each. Its critical path is, per level, one judge call
(the k judges run side by side) plus that level's answer call: ``(d+1) * L + (d+1) * L``
(the follow-up comes with the judge's structured output: no extra call).

Retrieval is not LLM time: each retrieval is timed (one per level, all on the critical path) and
subtracted from the wall time before dividing by the bound (goal: <= 1.2).

Baseline, in the same run: the same graph with the judge fan-out replaced by one node that
awaits the project's ``judge_chunk`` for each chunk in turn (sub-runs recurse into that same
sequential graph). The judge-step speedup is the summed judge span (first judge start to last
judge end, per level) of the sequential graph over the parallel one (goal: ~k).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Literal

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402

import treerag.nodes.retrieve as retrieve_module  # noqa: E402
from benchmarks._report import machine_summary, publish  # noqa: E402
from treerag.api import ask, new_thread_id  # noqa: E402
from treerag.checkpointing import open_checkpointer  # noqa: E402
from treerag.context import Context  # noqa: E402
from treerag.ingest.indexer import ingest  # noqa: E402
from treerag.models import register_chat_model  # noqa: E402
from treerag.nodes.answer import answer_question  # noqa: E402
from treerag.nodes.judge import judge_chunk  # noqa: E402
from treerag.nodes.retrieve import retrieve_chunks  # noqa: E402
from treerag.nodes.subrun import make_run_sub_rag, plan_followups, route_followups  # noqa: E402
from treerag.state import (  # noqa: E402
    JudgeTask,
    RagInput,
    RagOutput,
    RagState,
    calls_left,
    grant_judges,
)

RATIO_GOAL = 1.2
QUESTION = "Who founded Quillhaven and where was its founder born?"
_Q = re.compile(r"^Question: (.*)$", re.M)
_TITLE = re.compile(r'<<<PASSAGE title="(.*)">>>')
_PASSAGE = re.compile(r"<<<PASSAGE[^\n]*\n(.*)\n<<<END PASSAGE>>>", re.S)


# -- the fixed-latency chat model --------------------------------------------------------------
class FixedLatencyChatModel(BaseChatModel):
    """Judges 'partial' with a unique follow-up and answers after ``delay_s``; logs call spans."""

    delay_s: float = 0.2
    answer_text: str = "Scripted answer [1]."
    judge_log: list = []  # (question, start, end) per judge call
    answer_log: list = []  # (start, end) per answer call

    @property
    def _llm_type(self) -> str:
        return "fixed-latency"

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        async def run(messages: Any) -> Any:
            prompt = messages[-1].content
            question = _Q.search(prompt).group(1)
            title = _TITLE.search(prompt).group(1)
            text = _PASSAGE.search(prompt).group(1)
            start = time.perf_counter()
            await asyncio.sleep(self.delay_s)
            self.judge_log.append((question, start, time.perf_counter()))
            return schema.model_validate(
                {
                    "score": 1,
                    "reason": "scripted: partial",
                    "followup_question": f"{question} / {title} {abs(hash(text)) % 10_000}",
                    "quote": "",
                }
            )

        return RunnableLambda(lambda m: None, afunc=run)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        time.sleep(self.delay_s)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.answer_text))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: Any = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        start = time.perf_counter()
        await asyncio.sleep(self.delay_s)
        self.answer_log.append((start, time.perf_counter()))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.answer_text))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: Any = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ):
        start = time.perf_counter()
        await asyncio.sleep(self.delay_s)
        self.answer_log.append((start, time.perf_counter()))
        chunk = ChatGenerationChunk(message=AIMessageChunk(content=self.answer_text))
        if run_manager:
            await run_manager.on_llm_new_token(self.answer_text, chunk=chunk)
        yield chunk


# -- the sequential-judge baseline graph -------------------------------------------------------
def route_to_sequential(state: RagState) -> Literal["judge_sequentially", "answer_question"]:
    """Judge when anything was retrieved, else answer straight away (as the real graph does)."""
    return "judge_sequentially" if state.get("chunks") else "answer_question"


async def judge_sequentially(state: RagState, runtime: Runtime[Context]) -> dict:
    """Await the project's judge node once per chunk, one after the other."""
    records, calls = [], 0
    grants = grant_judges(len(state["chunks"]), calls_left(state))
    for chunk, grant in zip(state["chunks"], grants, strict=True):
        task = JudgeTask(
            question=state["question"],
            chunk=chunk,
            thread_id=state.get("thread_id", ""),
            root_thread_id=state.get("root_thread_id", ""),
            depth=state.get("depth", 0),
            call_share=grant,
        )
        out = await judge_chunk(task, runtime)
        records.extend(out["chunks"])
        calls += out["llm_calls"]
    return {"chunks": records, "llm_calls": calls}


def build_sequential() -> Any:
    """The rag graph with the judge fan-out replaced by a sequential loop (recursing into it)."""
    compiled: dict[str, Any] = {}

    def provider() -> Any:
        return compiled["plain"]

    seq = StateGraph(
        RagState, context_schema=Context, input_schema=RagInput, output_schema=RagOutput
    )
    seq.add_node("retrieve_chunks", retrieve_chunks)  # type: ignore[call-overload]
    seq.add_node("judge_sequentially", judge_sequentially)  # type: ignore[call-overload]
    seq.add_node("plan_followups", plan_followups)
    seq.add_node("run_sub_rag", make_run_sub_rag(provider))
    seq.add_node("answer_question", answer_question)
    seq.add_edge(START, "retrieve_chunks")
    seq.add_conditional_edges(
        "retrieve_chunks", route_to_sequential, ["judge_sequentially", "answer_question"]
    )
    seq.add_edge("judge_sequentially", "plan_followups")
    seq.add_conditional_edges("plan_followups", route_followups, ["run_sub_rag", "answer_question"])
    seq.add_edge("run_sub_rag", "answer_question")
    seq.add_edge("answer_question", END)
    compiled["plain"] = seq.compile(name="rag-sequential")
    return seq


async def run_builder(graph_builder: Any, question: str, ctx: Context) -> dict[str, Any]:
    """Run a builder the way ``treerag.api.ask`` does (checkpointed, same stream modes)."""
    final: dict[str, Any] = {}
    async with open_checkpointer(ctx) as saver:
        graph = graph_builder.compile(checkpointer=saver)
        async for mode, payload in graph.astream(
            {"question": question},
            {"configurable": {"thread_id": new_thread_id()}, "recursion_limit": 50},
            context=ctx,
            stream_mode=["custom", "messages", "values"],
        ):
            if mode == "values":
                final = payload
    return {"llm_calls": final.get("tree_llm_calls", 0), "answer": final.get("answer", "")}


# -- measuring ---------------------------------------------------------------------------------
@contextmanager
def timed_retrieval() -> Iterator[list[float]]:
    """Record the seconds of every retrieval made by the graph's retrieve node."""
    spans: list[float] = []
    original = retrieve_module._search

    def search(ctx: Context, question: str) -> list[dict[str, Any]]:
        start = time.perf_counter()
        try:
            return original(ctx, question)
        finally:
            spans.append(time.perf_counter() - start)

    retrieve_module._search = search
    try:
        yield spans
    finally:
        retrieve_module._search = original


def judge_span(log: list[tuple[str, float, float]]) -> float:
    """Sum over levels (one question each) of last judge end minus first judge start."""
    levels: dict[str, list[float]] = {}
    for question, start, end in log:
        span = levels.setdefault(question, [start, end])
        span[0], span[1] = min(span[0], start), max(span[1], end)
    return sum(end - start for start, end in levels.values())


async def measure(
    variant: str,
    runner: Callable[[Context], Any],
    model: FixedLatencyChatModel,
    make_ctx: Callable[[], Context],
    repeats: int,
) -> dict[str, float]:
    """Run one variant `repeats` times; medians of wall, retrieval and judge span, and calls."""
    walls, retrievals, spans, calls = [], [], [], []
    for _ in range(repeats):
        model.judge_log.clear()
        model.answer_log.clear()
        ctx = make_ctx()
        with timed_retrieval() as retrieval:
            start = time.perf_counter()
            out = await runner(ctx)
            walls.append(time.perf_counter() - start)
        retrievals.append(sum(retrieval))
        spans.append(judge_span(model.judge_log))
        calls.append(out["llm_calls"])
    row = {
        "wall": statistics.median(walls),
        "retrieval": statistics.median(retrievals),
        "judge_span": statistics.median(spans),
        "llm_calls": statistics.median(calls),
        "judges": len(model.judge_log),
        "answers": len(model.answer_log),
    }
    print(
        f"    {variant:>10}: wall {row['wall']:.3f} s, retrieval {row['retrieval']:.3f} s, "
        f"judge span {row['judge_span']:.3f} s, llm calls {row['llm_calls']:.0f}",
        flush=True,
    )
    return row


async def bench_shape(
    k: int,
    depth: int,
    latency: float,
    milvus_uri: str,
    collection: str,
    workdir: Path,
    repeats: int,
) -> dict[str, Any]:
    """Parallel (``ask``) and sequential graphs on a chain of depth `depth`, k chunks per level."""
    model = FixedLatencyChatModel(delay_s=latency)
    name = f"fixed-latency-k{k}-d{depth}"
    register_chat_model(name, model)
    runs = iter(range(10_000))

    def make_ctx() -> Context:
        # A fresh data dir per run: new checkpoints and an empty judge cache.
        return Context(
            data_dir=str(workdir / f"{name}-{next(runs)}"),
            milvus_uri=milvus_uri,
            collection=collection,
            chat_model=f"registered:{name}",
            top_k=k,
            max_depth=depth,
            max_subqueries=1,
            max_llm_calls=1000,
            llm_timeout_s=30.0,
            llm_retries=0,
        )

    sequential = build_sequential()
    print(f"  k={k}, d={depth}, L={latency}s", flush=True)
    await ask(QUESTION, make_ctx())  # warm-up: embeddings, Milvus client, graph compile
    par = await measure("parallel", lambda c: ask(QUESTION, c), model, make_ctx, repeats)
    seq = await measure(
        "sequential", lambda c: run_builder(sequential, QUESTION, c), model, make_ctx, repeats
    )
    levels = depth + 1
    bound = levels * latency + levels * latency
    expected_calls = levels * (k + 1)
    return {
        "k": k,
        "d": depth,
        "L": latency,
        "bound": bound,
        "par": par,
        "seq": seq,
        "expected_calls": expected_calls,
        "ratio": (par["wall"] - par["retrieval"]) / bound,
        "ratio_raw": par["wall"] / (bound + par["retrieval"]),
        "seq_ratio": (seq["wall"] - seq["retrieval"]) / bound,
        "speedup": seq["judge_span"] / par["judge_span"],
        "wall_speedup": seq["wall"] / par["wall"],
    }


# -- report ------------------------------------------------------------------------------------
def mark(ok: bool) -> str:
    return "✅" if ok else "❌"


def render(rows: list[dict[str, Any]], repeats: int, seconds: float) -> str:
    """Markdown tables (also printed)."""
    lines = [
        "## Orchestration: wall time vs the critical path of LLM calls",
        "",
        f"Machine: {machine_summary()}. Runtime of this benchmark: {seconds:.0f} s. "
        f"Medians of {repeats} runs after one warm-up run.",
        "",
        "Scripted chat model with a fixed latency L per call (judge and answer alike, "
        "asyncio.sleep). Every judge scores 1 with a unique follow-up; `top_k=k`, "
        "`max_subqueries=1`, so the tree is a chain of d+1 runs of k judged chunks. "
        "Critical-path bound = (d+1)·L judges + (d+1)·L answers. Retrieval (one per level, "
        "all on the critical path, offline MiniLM + Milvus Lite on the sample corpus) is "
        "timed and **subtracted** from the wall time before dividing by the bound.",
        "",
        "| k | d | L (s) | LLM calls (expected) | bound (s) | wall (s) | retrieval (s) "
        "| non-LLM overhead per level (ms) | (wall − retrieval) / bound | goal ≤ 1.2 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        p = r["par"]
        lines.append(
            f"| {r['k']} | {r['d']} | {r['L']} | {p['llm_calls']:.0f} ({r['expected_calls']}) "
            f"| {r['bound']:.2f} | {p['wall']:.3f} | {p['retrieval']:.3f} "
            f"| {(p['wall'] - p['retrieval'] - r['bound']) / (r['d'] + 1) * 1000:.0f} "
            f"| {r['ratio']:.3f} "
            f"| {mark(r['ratio'] <= RATIO_GOAL)} |"
        )
    lines += [
        "",
        "Baseline (same run): the same graph with the per-chunk `Send` fan-out replaced by one "
        "node awaiting the project's `judge_chunk` for each chunk in turn (its sub-runs recurse "
        "into the sequential graph too). Judge span = per level, first judge start to last "
        "judge end, summed over the d+1 levels.",
        "",
        "| k | judge span parallel (s) | judge span sequential (s) | judge-step speedup "
        "| goal ≈ k | wall parallel (s) | wall sequential (s) | wall speedup |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ok = r["speedup"] >= 0.8 * r["k"]
        lines.append(
            f"| {r['k']} | {r['par']['judge_span']:.3f} | {r['seq']['judge_span']:.3f} "
            f"| {r['speedup']:.2f}× | {mark(ok)} (≥ {0.8 * r['k']:.1f}) | {r['par']['wall']:.3f} "
            f"| {r['seq']['wall']:.3f} | {r['wall_speedup']:.2f}× |"
        )
    lines += [
        "",
        "Without subtracting retrieval, wall / (bound + retrieval) = "
        + ", ".join(f"{r['ratio_raw']:.3f} (k={r['k']})" for r in rows)
        + ".",
    ]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> str:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="treerag-orch-") as tmp:
        workdir = Path(tmp)
        docs = Path(str(resources.files("treerag") / "sample_corpus" / "docs"))
        ctx = Context(data_dir=str(workdir / "store"), collection="orchestration")
        report = ingest([docs], ctx)
        print(f"  ingested the sample corpus: {report.total_chunks} chunks", flush=True)
        rows = []
        for k in args.k:
            rows.append(
                await bench_shape(
                    k,
                    args.depth,
                    args.latency,
                    ctx.resolved_milvus_uri,
                    ctx.collection,
                    workdir,
                    args.repeats,
                )
            )
    markdown = render(rows, args.repeats, time.perf_counter() - started)
    return markdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, nargs="+", default=[5, 3], help="chunks per level")
    parser.add_argument("--depth", type=int, default=2, help="recursion depth d")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per LLM call")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per variant")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    markdown = asyncio.run(main_async(args))
    print()
    publish("orchestration", markdown, args.write)


if __name__ == "__main__":
    main()
