"""`langgraph dev` keeps every checkpoint in the data dir's treerag checkpointer, not in memory.

A real server over a copy of the demo's data, in single-user local mode: a chat turn's
checkpoints (the thread's messages and its search tree's runs) are rows of
`<data_dir>/checkpoints.sqlite`, the API reads them back (state, history), a deleted thread's
rows go, and a restarted server still has the conversation.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from tests.clients.server import langgraph_server, server_log

pytestmark = pytest.mark.slow

QUESTION = "Who led the fishers that founded Quillhaven?"


def stored_threads(data: Path) -> set[str]:
    """The thread ids with checkpoints in the data dir's treerag checkpointer."""
    with sqlite3.connect(data / "checkpoints.sqlite") as conn:
        return {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}


def runtime_checkpoint_bytes(data: Path) -> int:
    """What the server's in-memory runtime pickled of checkpoints (`.langgraph_api/`)."""
    folder = data / ".langgraph_api"
    return sum(f.stat().st_size for f in folder.glob(".langgraph_checkpoint*") if f.is_file())


async def chat(url: str, thread_id: str | None = None) -> tuple[str, dict]:
    client = get_client(url=url)
    if thread_id is None:
        thread_id = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(
        thread_id,
        "chat",
        input={"messages": [{"type": "human", "content": QUESTION}]},  # type: ignore[dict-item]
        context={"max_depth": 1},
    )
    assert isinstance(out, dict) and out.get("messages"), (out, server_log(url)[-4000:])
    return thread_id, out["messages"][-1]["additional_kwargs"]["treerag"]


async def messages_of(url: str, thread_id: str) -> list[dict]:
    state = await get_client(url=url).threads.get_state(thread_id)
    return list((state.get("values") or {}).get("messages") or [])  # type: ignore[union-attr]


def test_the_servers_checkpoints_are_the_data_dirs(data_copy: Path) -> None:
    with langgraph_server(data_copy) as url:
        kept, turn = asyncio.run(chat(url))
        gone, _ = asyncio.run(chat(url))
        stored = stored_threads(data_copy)
        assert {kept, gone, turn["tree_thread_id"]} <= stored
        assert len(asyncio.run(messages_of(url, kept))) == 2
        history = asyncio.run(get_client(url=url).threads.get_history(kept))
        assert len(history) > 2  # every step of the turn, read back through the API

        asyncio.run(get_client(url=url).threads.delete(gone))
        assert gone not in stored_threads(data_copy)
        assert kept in stored_threads(data_copy)
    assert runtime_checkpoint_bytes(data_copy) < 1_000  # nothing of them kept in memory

    # Started again from the same data dir: the conversation is there and goes on.
    with langgraph_server(data_copy) as url:
        assert len(asyncio.run(messages_of(url, kept))) == 2
        asyncio.run(chat(url, kept))
        assert len(asyncio.run(messages_of(url, kept))) == 4
