"""Run the rag graph under a thread_id of its own and relay its stream to the caller's stream."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

from treerag.context import Context
from treerag.langgraph_keys import CONFIG_KEY_CHECKPOINTER

SUBRUN_RECURSION_LIMIT = 50
"""A sub-run's step limit when its caller set none (a tree level takes about ten steps)."""


async def run_relayed(
    graph: Any, inputs: dict[str, Any], thread_id: str, config: RunnableConfig, ctx: Context
) -> dict[str, Any]:
    """Run `graph` on `inputs` as thread `thread_id`; return its final state values.

    A fresh config (not the caller's) files the run's checkpoints under its own thread_id
    (LANDMINES.md: passing the node's config on nests them under the task's namespace); the
    caller's checkpointer is handed on explicitly (inside a LangGraph server, the server's,
    which writes to the tenant's treerag checkpointer: `treerag.server.checkpointer`). The
    run's tree events are re-emitted on the caller's `custom` stream, and its answer tokens as
    `token` events tagged with the run's thread_id and depth, so clients can show or hide them. The
    caller's `recursion_limit` holds for the sub-run too.
    """
    from treerag.server.scope import auth_configurable

    # The caller's identity goes on with the sub-run: it scopes the sub-run's data too.
    configurable: dict[str, Any] = {"thread_id": thread_id, **auth_configurable(config)}
    checkpointer = (config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINTER)
    if checkpointer is not None:
        configurable[CONFIG_KEY_CHECKPOINTER] = checkpointer
    writer = get_stream_writer()
    final: dict[str, Any] = {}
    async for mode, payload in graph.astream(
        inputs,
        {
            "configurable": configurable,
            "recursion_limit": config.get("recursion_limit") or SUBRUN_RECURSION_LIMIT,
        },
        context=ctx,
        stream_mode=["custom", "messages", "values"],
    ):
        if mode == "custom":
            writer(payload)
        elif mode == "messages":
            message, meta = payload
            if meta.get("langgraph_node") == "answer_question" and message.content:
                writer(
                    {
                        "event": "token",
                        "thread_id": thread_id,
                        "depth": inputs.get("depth", 0),
                        "text": message.content,
                    }
                )
        else:
            final = payload
    return final
