"""One history: the rag runs a LangGraph server runs are also written to treerag's checkpointer.

`langgraph dev` checkpoints the runs it serves with its own checkpointer (in memory, saved
under its working directory), while `treerag runs` and `treerag tree` read the data
directory's (`TREERAG_CHECKPOINTER_URI`, by default `<data_dir>/checkpoints.sqlite`). Inside
the server, every rag run (a run of the `rag` graph, each chat turn's run, and all their
sub-runs) is checkpointed through a `MirroredSaver`: the server's checkpointer stays the one
everything is read from, and every checkpoint and pending write is copied to the run's own
treerag checkpointer (its tenant's, as `Context.resolved_checkpointer_uri` names it). So
`treerag runs` lists the page's runs next to those of `treerag ask`, and `treerag tree`
rebuilds them, whichever process started them. Chat threads themselves (messages) are not
copied: they are not search trees.

Only inside the server (`LANGGRAPH_RUNTIME_EDITION` set, as `langgraph dev` and the
LangGraph platform set it): a graph compiled in-process with treerag's own checkpointer has
nothing to copy. A copy that fails is logged and skipped; the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from typing_extensions import override

from treerag.bounded import BoundedCache, Lease
from treerag.context import Context

log = logging.getLogger(__name__)

SERVER_ENV = "LANGGRAPH_RUNTIME_EDITION"


def in_server() -> bool:
    """Whether this process is a LangGraph API server (`langgraph dev` or the platform)."""
    return bool(os.environ.get(SERVER_ENV))


# -- the copies' savers: one synchronous saver per URI, under the open-stores bound ----------


class _Target:
    """A saver and what closes its connection (an evicted or shut-down target is closed)."""

    def __init__(self, saver: BaseCheckpointSaver, stack: contextlib.ExitStack):
        self.saver = saver
        self._stack = stack

    def close(self) -> None:
        self._stack.close()


_targets: BoundedCache[str, _Target] = BoundedCache("checkpoint copies")
"""Open treerag checkpointers the server copies runs to, one per tenant."""


def _open_target(uri: str) -> _Target:
    stack = contextlib.ExitStack()
    if uri.startswith(("postgres://", "postgresql://")):
        from langgraph.checkpoint.postgres import PostgresSaver

        saver: BaseCheckpointSaver = stack.enter_context(PostgresSaver.from_conn_string(uri))
        saver.setup()  # type: ignore[attr-defined]
    else:
        import sqlite3

        from langgraph.checkpoint.sqlite import SqliteSaver

        path = Path(uri).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        stack.callback(conn.close)
        saver = SqliteSaver(conn)
    return _Target(saver, stack)


def _target(uri: str) -> Lease[_Target]:
    """Lease the synchronous saver writing to `uri` (SQLite file or Postgres), opened once."""
    return _targets.lease(uri, lambda: _open_target(uri))


def _context_of_config(config: RunnableConfig) -> Context:
    """The run's scoped settings, from the runtime LangGraph keeps in the run's config."""
    from treerag.langgraph_keys import CONFIG_KEY_RUNTIME
    from treerag.server.scope import scoped

    runtime = (config.get("configurable") or {}).get(CONFIG_KEY_RUNTIME)
    given = getattr(runtime, "context", None)
    if isinstance(given, Context):
        ctx = given
    elif isinstance(given, dict):
        ctx = Context(**given)
    else:
        ctx = Context()
    return scoped(ctx, config)


class MirroredSaver(BaseCheckpointSaver):
    """Read from and write to `primary`; copy every write to the run's treerag checkpointer.

    Args:
        primary: The server's checkpointer, which stays the one runs and the API read.
        ctx: The run's settings, naming the checkpointer the copies go to; None: read from
            each write's config (a root run started by the server).
    """

    def __init__(self, primary: BaseCheckpointSaver, ctx: Context | None = None):
        super().__init__(serde=primary.serde)
        self.primary = primary
        self.ctx = ctx
        self._uri: str | None = ctx.resolved_checkpointer_uri if ctx is not None else None
        self._warned = False

    # -- writes: the server's, then the copy -------------------------------------------------
    def _uri_for(self, config: RunnableConfig) -> str:
        if self._uri is None:
            self._uri = _context_of_config(config).resolved_checkpointer_uri
        return self._uri

    def _copy(self, method: str, config: RunnableConfig, *args: Any) -> None:
        try:
            with _target(self._uri_for(config)) as target:  # not closed under the write
                getattr(target.saver, method)(config, *args)
        except Exception as exc:  # a copy must never fail the run
            if not self._warned:
                self._warned = True
                log.warning("cannot copy a checkpoint to treerag's checkpointer: %s", exc)

    @override
    def put(self, config: RunnableConfig, checkpoint: Any, metadata: Any, new_versions: Any):
        stored = self.primary.put(config, checkpoint, metadata, new_versions)
        self._copy("put", config, checkpoint, metadata, new_versions)
        return stored

    @override
    async def aput(
        self, config: RunnableConfig, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> RunnableConfig:
        stored = await self.primary.aput(config, checkpoint, metadata, new_versions)
        await asyncio.to_thread(self._copy, "put", config, checkpoint, metadata, new_versions)
        return stored

    @override
    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.primary.put_writes(config, writes, task_id, task_path)
        self._copy("put_writes", config, writes, task_id, task_path)

    @override
    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self.primary.aput_writes(config, writes, task_id, task_path)
        await asyncio.to_thread(self._copy, "put_writes", config, writes, task_id, task_path)

    # -- everything else: the server's checkpointer alone ------------------------------------
    @property
    @override
    def config_specs(self) -> list:
        return self.primary.config_specs

    @override
    def get_tuple(self, config: RunnableConfig) -> Any:
        return self.primary.get_tuple(config)

    @override
    async def aget_tuple(self, config: RunnableConfig) -> Any:
        return await self.primary.aget_tuple(config)

    @override
    def list(self, config: RunnableConfig | None, **kwargs: Any) -> Iterator[Any]:
        return self.primary.list(config, **kwargs)

    @override
    async def alist(self, config: RunnableConfig | None, **kwargs: Any) -> AsyncIterator[Any]:
        async for item in self.primary.alist(config, **kwargs):
            yield item

    @override
    def get_next_version(self, current: Any, channel: None) -> Any:
        return self.primary.get_next_version(current, channel)

    @override
    def get_delta_channel_history(self, **kwargs: Any) -> Any:
        return self.primary.get_delta_channel_history(**kwargs)

    @override
    async def aget_delta_channel_history(self, **kwargs: Any) -> Any:
        return await self.primary.aget_delta_channel_history(**kwargs)

    @override
    def delete_thread(self, thread_id: str) -> None:
        self.primary.delete_thread(thread_id)

    @override
    async def adelete_thread(self, thread_id: str) -> None:
        await self.primary.adelete_thread(thread_id)

    @override
    def delete_for_runs(self, run_ids: Any) -> None:
        self.primary.delete_for_runs(run_ids)

    @override
    async def adelete_for_runs(self, run_ids: Any) -> None:
        await self.primary.adelete_for_runs(run_ids)

    @override
    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.primary.copy_thread(source_thread_id, target_thread_id)

    @override
    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.primary.acopy_thread(source_thread_id, target_thread_id)

    @override
    def prune(self, thread_ids: Any, **kwargs: Any) -> None:
        self.primary.prune(thread_ids, **kwargs)

    @override
    async def aprune(self, thread_ids: Any, **kwargs: Any) -> None:
        await self.primary.aprune(thread_ids, **kwargs)

    @override
    def with_allowlist(self, extra_allowlist: Any) -> MirroredSaver:
        primary = self.primary.with_allowlist(extra_allowlist)
        if primary is self.primary:
            return self
        mirrored = MirroredSaver(primary, self.ctx)
        mirrored._uri = self._uri
        return mirrored

    def __getattr__(self, name: str) -> Any:  # anything else a server's saver offers
        primary = self.__dict__.get("primary")
        if primary is None:
            raise AttributeError(name)
        return getattr(primary, name)


def mirrored(saver: Any, ctx: Context | None = None) -> Any:
    """`saver` with its rag runs copied to treerag's checkpointer (inside the server only)."""
    if not in_server() or not isinstance(saver, BaseCheckpointSaver):
        return saver
    if isinstance(saver, MirroredSaver):
        return saver
    return MirroredSaver(saver, ctx)


def serve_mirrored(graph: Any) -> Any:
    """Make a compiled graph copy its runs to treerag's checkpointer when a server runs it.

    The LangGraph server hands a served graph its checkpointer through `graph.copy(update=
    {"checkpointer": …})` before each run or state read; the copy made here wraps that
    checkpointer in a `MirroredSaver`. Outside a server the graph behaves as compiled.
    """
    base = type(graph)

    class Served(base):  # type: ignore[valid-type, misc]
        def copy(self, update: dict[str, Any] | None = None) -> Any:
            if update and update.get("checkpointer") is not None:
                update = {**update, "checkpointer": mirrored(update["checkpointer"])}
            return super().copy(update)

    Served.__name__ = Served.__qualname__ = f"Mirrored{base.__name__}"
    served = graph.copy()
    served.__class__ = Served
    return served


__all__ = ["MirroredSaver", "in_server", "mirrored", "serve_mirrored"]
