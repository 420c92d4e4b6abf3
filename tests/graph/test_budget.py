"""The LLM-call budget is part of the run: carried in state, granted before each fan-out."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest

from treerag.api import ask
from treerag.checkpointing import open_checkpointer
from treerag.graphs.rag import builder

from ..fakes import ScriptedChatModel
from .test_context_nodes import load_toy_tree, pick_quillhaven


def verdict(score, followup=""):
    return json.dumps({"score": score, "reason": "scripted", "followup_question": followup})


def always_partial(question, title, text):
    return verdict(1, followup=f"Which passage is numbered {hash(text) % 10_000}?")


def budget_errors(run) -> int:
    """Chunks of a tree (all its runs) recorded unjudged for want of calls."""
    own = sum(1 for c in run["chunks"] if c.get("error", "").startswith("budget"))
    return own + sum(budget_errors(c["child"]) for c in run["chunks"] if c.get("child"))


async def run_graph(ctx, inputs, thread_id):
    """Run the rag graph checkpointed under `thread_id`; return its output and its chunks."""
    config = {"configurable": {"thread_id": thread_id}}
    async with open_checkpointer(ctx) as saver:
        graph = builder.compile(checkpointer=saver)
        out = await graph.ainvoke(inputs, config, context=ctx)
        state = await graph.aget_state(config)
        return out, state.values["chunks"]


def test_no_process_keeps_a_budget():
    assert importlib.util.find_spec("treerag.reasoning.ledger") is None


@pytest.mark.parametrize("max_llm_calls", [7, 19])
async def test_the_budget_holds_under_the_send_fan_out(make_ctx, tmp_path, max_llm_calls):
    model = ScriptedChatModel(judge_script=always_partial)
    ctx = make_ctx(
        model,
        max_depth=2,
        max_subqueries=3,
        top_k=3,
        max_llm_calls=max_llm_calls,
        data_dir=str(tmp_path / f"b{max_llm_calls}"),
    )
    result = await ask("Where was Orla Venn born?", ctx)
    # Every call the model saw is counted (a fresh judge cache: no verdict came from it).
    assert len(model.prompts) == result["llm_calls"] <= max_llm_calls


async def test_a_failed_run_leaves_nothing_behind(make_ctx, tmp_path, monkeypatch):
    import treerag.nodes.subrun as subrun

    def broken(*args):
        raise RuntimeError("the store went away")

    settings = {"max_depth": 1, "max_subqueries": 2, "top_k": 3, "max_llm_calls": 10}
    model = ScriptedChatModel(judge_script=always_partial)
    ctx = make_ctx(model, **settings)
    monkeypatch.setattr(subrun, "fetch_subruns", broken)  # after the root's judges spent
    with pytest.raises(RuntimeError, match="the store went away"):
        await ask("Where was Orla Venn born?", ctx, thread_id="same")
    assert model.prompts  # the failed run spent calls
    monkeypatch.undo()
    # A new run on the same thread has the whole budget: the same as on a fresh data dir.
    again = await ask("Which guild built the Saltwren?", ctx, thread_id="same")
    elsewhere = make_ctx(
        ScriptedChatModel(judge_script=always_partial),
        **settings,
        data_dir=str(tmp_path / "elsewhere"),
    )
    fresh = await ask("Which guild built the Saltwren?", elsewhere, thread_id="same")
    assert again["llm_calls"] == fresh["llm_calls"] > 4
    assert budget_errors(again["tree"]) == budget_errors(fresh["tree"])


async def test_runs_without_a_thread_id_do_not_share_a_budget(make_ctx):
    model = ScriptedChatModel(judge_script=lambda q, t, x: verdict(0), delay_s=0.05)
    ctx = make_ctx(model, max_depth=0, top_k=5, max_llm_calls=4)
    graph = builder.compile()  # no checkpointer, no thread_id
    outs = await asyncio.gather(
        graph.ainvoke({"question": "Who founded Quillhaven?"}, context=ctx),
        graph.ainvoke({"question": "Where was Orla Venn born?"}, context=ctx),
    )
    # Each run: its answer and three judges; the others' chunks unjudged.
    assert [out["tree_llm_calls"] for out in outs] == [4, 4]
    assert len(model.prompts) == 8


async def test_a_resumed_run_goes_on_from_its_checkpointed_spend(make_ctx, monkeypatch):
    import treerag.nodes.judge as judge

    real = judge.judged
    failed: list[int] = []

    async def flaky(reasoner, task, link, ctx):
        if task["chunk"]["rank"] == 2 and not failed:
            # After its siblings are done: a task failing earlier cancels those still
            # running, whose writes (and spend) are then lost and made again on resume.
            await asyncio.sleep(0.5)
            failed.append(2)
            raise RuntimeError("the worker died")
        return await real(reasoner, task, link, ctx)

    model = ScriptedChatModel(judge_script=lambda q, t, x: verdict(0))
    ctx = make_ctx(model, max_depth=0, top_k=5, max_llm_calls=4, structure="none")
    monkeypatch.setattr(judge, "judged", flaky)
    with pytest.raises(RuntimeError, match="the worker died"):
        await run_graph(ctx, {"question": "Who founded Quillhaven?"}, "resumed")
    assert len(model.prompts) == 2  # ranks 1 and 3 judged; rank 2 failed before its call
    out, chunks = await run_graph(ctx, None, "resumed")  # resume from the checkpoint
    # Only the failed judge ran again, with the call it was granted before the fan-out; the
    # budget's other two judges had none, and the answer its own: 4 calls in all, not 4 more.
    assert len(model.prompts) == out["tree_llm_calls"] == 4
    by_rank = {c["rank"]: c for c in chunks}
    assert "error" not in by_rank[2] and by_rank[2]["score"] == 0
    assert [r for r, c in sorted(by_rank.items()) if c.get("error", "").startswith("budget")] == [
        4,
        5,
    ]


async def test_sub_runs_are_routed_past_the_root_only_steps(make_ctx):
    model = ScriptedChatModel(judge_script=always_partial)
    ctx = make_ctx(model, max_depth=1, max_subqueries=1, top_k=2, max_llm_calls=60)
    result = await ask("Where was Orla Venn born?", ctx, thread_id="routed")
    [child] = [c["child_thread_id"] for c in result["tree"]["chunks"] if c.get("child")]

    async def steps(thread_id):
        config = {"configurable": {"thread_id": thread_id}}
        async with open_checkpointer(ctx, read_only=True) as saver:
            graph = builder.compile(checkpointer=saver)
            return {n for s in [s async for s in graph.aget_state_history(config)] for n in s.next}

    assert {"keyword_descent", "graph_expand"} <= await steps("routed")
    below = await steps(child)
    assert "answer_question" in below and not below & {"keyword_descent", "graph_expand"}


def _judged(run) -> int:
    return sum(1 for c in run["chunks"] if "score" in c and not c.get("error"))


async def test_keyword_descent_calls_count_as_the_run_s(make_ctx, tmp_path):
    model = ScriptedChatModel(
        judge_script=lambda q, t, x: verdict(0),
        structured_scripts={"BranchDecision": pick_quillhaven},
    )
    ctx = make_ctx(model, max_depth=0, top_k=2)
    load_toy_tree(ctx, tmp_path)
    result = await ask("Tell me about the seat of the federal government", ctx)
    assert result["tree"]["keyword"]["agent_calls"] == 2
    # The judges, the agent's two decisions and the answer: every call the model saw.
    assert result["llm_calls"] == _judged(result["tree"]) + 2 + 1 == len(model.prompts)


async def test_keyword_descent_spends_only_what_the_run_has_left(make_ctx, tmp_path):
    model = ScriptedChatModel(
        judge_script=lambda q, t, x: verdict(0),
        structured_scripts={"BranchDecision": pick_quillhaven},
    )
    ctx = make_ctx(model, max_depth=0, top_k=2, max_llm_calls=4)
    load_toy_tree(ctx, tmp_path)
    events: list[dict] = []
    result = await ask(
        "Tell me about the seat of the federal government", ctx, on_event=events.append
    )
    # Two or three judges and the answer leave the agent one call or none of its two: the
    # descent stops where the budget does, as on any agent failure (seed 03's NotFound).
    [event] = [e for e in events if e["event"] == "keyword_descended"]
    assert event["status"] == "not_found" and "budget" in event["error"]
    assert result["llm_calls"] == len(model.prompts) == 4
