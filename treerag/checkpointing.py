"""Open the checkpointer named by the settings: SQLite file by default, Postgres by URI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from treerag.context import Context, SettingsError


@asynccontextmanager
async def open_checkpointer(ctx: Context, *, read_only: bool = False) -> AsyncIterator[Any]:
    """Yield an async checkpointer for `TREERAG_CHECKPOINTER_URI` (set up on first use).

    With `read_only`, a SQLite file that does not exist is not created: an empty in-memory
    checkpointer stands for it, so listing runs in a folder with none leaves no `./data`.
    """
    uri = ctx.resolved_checkpointer_uri
    if uri.startswith(("postgres://", "postgresql://")):
        try:
            from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        except ImportError as exc:
            raise SettingsError(
                "TREERAG_CHECKPOINTER_URI is a Postgres URI: pip install "
                "'treerag[postgres]' (langgraph-checkpoint-postgres)"
            ) from exc
        async with AsyncPostgresSaver.from_conn_string(uri) as saver:
            await saver.setup()
            yield saver
        return
    if read_only and not Path(uri).expanduser().exists():
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver()
        return
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    Path(uri).expanduser().parent.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(Path(uri).expanduser())) as saver:
        yield saver
