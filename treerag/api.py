"""The public entry points: ask a question, rebuild a tree, list recent runs."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from treerag.context import Context
from treerag.nodes.answer import public_evidence
from treerag.search_tree import TreeFold, rebuild, size

EventHandler = Callable[[dict[str, Any]], None]
TokenHandler = Callable[[str, dict[str, Any]], None]


def new_thread_id() -> str:
    """A fresh root thread_id (children append `/rank`)."""
    return uuid.uuid4().hex[:12]


async def ask(
    question: str,
    ctx: Context | None = None,
    *,
    thread_id: str | None = None,
    on_event: EventHandler | None = None,
    on_token: TokenHandler | None = None,
) -> dict[str, Any]:
    """Answer a question with the rag graph, checkpointed; stream events and root tokens.

    Returns the `--json` object: answer, thread_id, citations, evidence (ranked), llm_calls,
    elapsed_s and the tree (folded from the live stream).

    Raises:
        QuestionError: the question is not text, blank or over `ctx.max_question_chars`.
        SettingsError: a setting or model the run cannot use (`treerag.preflight.check_run`).
    """
    from treerag.checkpointing import open_checkpointer
    from treerag.graphs.rag import builder
    from treerag.preflight import check_question, check_run

    ctx = ctx or Context()
    # Before the checkpointer: a run that cannot start or finish is never recorded.
    check_question(question, ctx)
    check_run(ctx)
    thread_id = thread_id or new_thread_id()
    fold = TreeFold()
    final: dict[str, Any] = {}
    start = time.perf_counter()
    async with open_checkpointer(ctx) as saver:
        graph = builder.compile(checkpointer=saver, name="rag")
        stream: Any = graph.astream(
            {"question": question},
            {"configurable": {"thread_id": thread_id}, "recursion_limit": 50},
            context=ctx,
            stream_mode=["custom", "messages", "values"],
        )
        async for mode, payload in stream:
            if mode == "custom":
                fold.apply(payload)
                if on_event:
                    on_event(payload)
            elif mode == "messages":
                message, meta = payload
                if on_token and meta.get("langgraph_node") == "answer_question" and message.content:
                    on_token(str(message.content), meta)
            else:
                final = payload
    return {
        "answer": final.get("answer", ""),
        "thread_id": thread_id,
        "citations": final.get("citations", []),
        "evidence": public_evidence(final.get("evidence", [])),
        "llm_calls": final.get("tree_llm_calls", 0),
        "reasoner": final.get("reasoner", ""),
        "error": final.get("error", ""),
        "elapsed_s": round(time.perf_counter() - start, 3),
        "tree": fold.root,
    }


async def tree(thread_id: str, ctx: Context | None = None) -> dict[str, Any] | None:
    """Rebuild the search tree of a run from the checkpointer."""
    from treerag.checkpointing import open_checkpointer
    from treerag.graphs.rag import builder

    async with open_checkpointer(ctx or Context(), read_only=True) as saver:
        return await rebuild(builder.compile(checkpointer=saver), thread_id)


async def runs(ctx: Context | None = None, limit: int = 20) -> list[dict[str, Any]]:
    """List recent root runs: thread_id, time, question, tree size."""
    from treerag.checkpointing import open_checkpointer
    from treerag.graphs.rag import builder

    latest: dict[str, Any] = {}
    threads: set[str] = set()
    async with open_checkpointer(ctx or Context(), read_only=True) as saver:
        async for item in saver.alist(None):
            tid = item.config["configurable"]["thread_id"]
            threads.add(tid)
            if "/" not in tid and item.config["configurable"].get("checkpoint_ns", "") == "":
                if tid not in latest or item.checkpoint["ts"] > latest[tid].checkpoint["ts"]:
                    latest[tid] = item
        roots = sorted(latest.values(), key=lambda i: i.checkpoint["ts"], reverse=True)[:limit]
        graph = builder.compile(checkpointer=saver)
        out = []
        for item in roots:
            tid = item.config["configurable"]["thread_id"]
            values = item.checkpoint.get("channel_values", {})
            out.append(
                {
                    "thread_id": tid,
                    "time": item.checkpoint["ts"],
                    "question": values.get("question", ""),
                    "runs": 1 + sum(1 for t in threads if t.startswith(tid + "/")),
                    "answered": bool(values.get("answer")),
                }
            )
        del graph
    return out


__all__ = ["ask", "new_thread_id", "runs", "size", "tree"]
