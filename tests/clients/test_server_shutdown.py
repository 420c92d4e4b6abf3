"""A stopped `langgraph dev` closes the stores its runs opened (lifespan, checkpointer exit)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.clients.server import langgraph_server


async def _ask(url: str) -> bool:
    from langgraph_sdk import get_client

    client = get_client(url=url)
    thread = await client.threads.create()
    out = await client.runs.wait(
        thread["thread_id"],
        "chat",
        input={
            "messages": [
                {
                    "type": "human",
                    "content": "From which island did the first settlers of Quillhaven come?",
                }
            ]
        },
    )
    return isinstance(out, dict) and bool(out.get("messages"))


def test_stopping_the_server_closes_its_stores(data_copy: Path) -> None:
    with langgraph_server(data_copy) as url:
        assert asyncio.run(_ask(url))
        # Open while it serves: the judge cache and the server's checkpointer in WAL mode,
        # Milvus Lite served to others.
        assert (data_copy / "judge_cache.sqlite-wal").exists()
        assert (data_copy / "checkpoints.sqlite-wal").exists()
        assert (data_copy / "milvus.db.endpoint").exists()
    # SQLite removes the WAL when its last connection closes; the endpoint file goes when
    # the folder is released. Before the shutdown hook both stayed behind a stopped server.
    # The server's process group may still be finishing its shutdown: wait for it a while.
    left = [
        data_copy / "judge_cache.sqlite-wal",
        data_copy / "checkpoints.sqlite-wal",
        data_copy / "milvus.db.endpoint",
    ]
    deadline = time.monotonic() + 30
    while any(p.exists() for p in left) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p.name for p in left if p.exists()]
