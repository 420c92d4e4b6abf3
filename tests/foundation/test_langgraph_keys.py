"""The LangGraph name treerag takes from outside LangGraph's public API still works.

`treerag.langgraph_keys` holds them; this runs a graph under the installed langgraph and
checks that a node finds the run's checkpointer under it. A langgraph release
that moves it fails here, by name, rather than in a sub-run.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from treerag.context import Context
from treerag.langgraph_keys import CONFIG_KEY_CHECKPOINTER


class _State(TypedDict, total=False):
    done: bool


def _graph(saver: InMemorySaver, seen: dict[str, Any]) -> Any:
    def look(state: _State, config: RunnableConfig) -> _State:
        configurable = config.get("configurable") or {}
        seen["checkpointer"] = configurable.get(CONFIG_KEY_CHECKPOINTER)
        seen["recursion_limit"] = config.get("recursion_limit")
        return {"done": True}

    builder = StateGraph(_State, context_schema=Context)
    builder.add_node("look", look)
    builder.add_edge(START, "look")
    builder.add_edge("look", END)
    return builder.compile(checkpointer=saver)


def test_a_node_finds_the_checkpointer_under_the_key(tmp_path):
    saver = InMemorySaver()
    ctx = Context(data_dir=str(tmp_path), top_k=4)
    config: Any = {"configurable": {"thread_id": "t"}, "recursion_limit": 31}
    seen: dict[str, Any] = {}
    assert asyncio.run(_graph(saver, seen).ainvoke({}, config, context=ctx)) == {"done": True}
    assert seen["checkpointer"] is saver, "CONFIG_KEY_CHECKPOINTER no longer names the saver"
    assert seen["recursion_limit"] == 31  # what a sub-run inherits (nodes/relay.py)
