"""What every node needs: the run's settings, thread ids, and tree events on the stream."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from treerag.context import Context


def context_of(runtime: Runtime[Context] | None) -> Context:
    """The run's settings (defaults and env when the caller passed none), scoped to the caller.

    Under a users file, the tenant and storage settings come from the signed-in user and the
    server's environment, never from the run's context (`treerag.server.scope`).
    """
    from treerag.server.scope import scoped

    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, Context):
        return scoped(ctx)
    if isinstance(ctx, dict):
        return scoped(Context(**ctx))
    return scoped(Context())


def thread_of(config: RunnableConfig) -> str:
    """This run's thread_id ("" when run without a checkpointer)."""
    return str((config.get("configurable") or {}).get("thread_id") or "")


def emit(event: str, **fields: Any) -> None:
    """Write a tree event to the `custom` stream (silently dropped when nobody streams)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run
        return
    writer({"event": event, **fields})


def time_left(deadline: float | None) -> float | None:
    """Seconds until the question's deadline (`RagState.deadline`), None when it has none."""
    return max(0.0, deadline - time.time()) if deadline else None
