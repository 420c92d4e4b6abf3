"""The server's checkpointer: every checkpoint in its tenant's treerag checkpointer.

Declared in langgraph.json (`"checkpointer": {"path": "treerag.server.checkpointer.
checkpointer"}`: langgraph-api 0.16.7 splits that path at its last dot, not at a colon; an
async context manager yielding a `BaseCheckpointSaver`, which the server
enters at start-up and leaves at shutdown; docs.langchain.com/langsmith/custom-checkpointer).
So the checkpoints of chat threads, rag runs and their sub-runs are written once, on disk, to
the file `treerag runs` and `treerag tree` read (`Context.resolved_checkpointer_uri` of the
run's tenant, by default `<data_dir>[/tenants/<tenant>]/checkpoints.sqlite`), instead of
being kept in the server's memory. A run's tenant comes from its authenticated user
(`treerag.server.scope.caller_of`); calls that carry only a thread_id (state, history,
delete, copy) find the thread's tenant in `treerag.server.thread_tenants`. Without a users
file there is one tenant, the data dir's own.

Each tenant's file is opened once, under the open-stores bound (`TREERAG_OPEN_STORES`), and
closed at shutdown; every call leases it, so a file pushed out of the bound by other tenants
while a call writes to it is closed when that call ends. The SQLite savers are synchronous:
the async methods run them in worker threads (the server refuses blocking calls on its event
loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from typing_extensions import override

from treerag.bounded import BoundedCache, Lease
from treerag.context import Context
from treerag.data_layout import thread_tenants_file
from treerag.server.identity import auth_enabled
from treerag.server.scope import caller_of
from treerag.server.thread_tenants import OwnershipError, ThreadTenants


class _Store:
    """A tenant's synchronous saver and what closes its connection."""

    def __init__(self, saver: BaseCheckpointSaver, stack: contextlib.ExitStack):
        self.saver = saver
        self._stack = stack

    def close(self) -> None:
        self._stack.close()


_stores: BoundedCache[str, _Store] = BoundedCache("server checkpoints")
"""Open tenant checkpointers, one per URI."""
_indexes: BoundedCache[str, ThreadTenants] = BoundedCache("thread tenants", maxsize=1)
"""The thread → tenant index of the server's data dir."""


def _open_store(uri: str) -> _Store:
    stack = contextlib.ExitStack()
    if uri.startswith(("postgres://", "postgresql://")):
        from langgraph.checkpoint.postgres import PostgresSaver

        saver: BaseCheckpointSaver = stack.enter_context(PostgresSaver.from_conn_string(uri))
        saver.setup()  # type: ignore[attr-defined]
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver

        path = Path(uri).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        stack.callback(conn.close)
        saver = SqliteSaver(conn)
    return _Store(saver, stack)


@lru_cache(maxsize=256)
def _uri_of(tenant: str) -> str:
    """The checkpointer URI of `tenant`, from the server's settings (as `scoped` builds them)."""
    return Context(tenant=tenant).resolved_checkpointer_uri


def store_of(tenant: str) -> Lease[_Store]:
    """Lease `tenant`'s checkpointer for one call (opened on first use; blocking)."""
    uri = _uri_of(tenant)
    return _stores.lease(uri, lambda: _open_store(uri))


def thread_index() -> ThreadTenants:
    """The server data dir's thread → tenant index, opened once (blocking)."""
    path = thread_tenants_file(Context().data_path)
    return _indexes.get_or_open(str(path), lambda: ThreadTenants(path))


def _thread_of(config: RunnableConfig) -> str:
    return str(config["configurable"]["thread_id"])


class TenantSaver(BaseCheckpointSaver):
    """Route every checkpoint call to the checkpointer of the thread's tenant.

    Args:
        tenant: Read this tenant's checkpointer only (a caller's own reads, such as the
            page's tree route); None: each thread's, as the index names it (the server).
    """

    def __init__(self, tenant: str | None = None):
        super().__init__()
        self.tenant = tenant

    # -- which tenant --------------------------------------------------------------------------
    def _write_tenant(self, config: RunnableConfig) -> str:
        """The tenant a write goes to: the run's, which claims the thread."""
        if not auth_enabled():
            return ""
        thread_id = _thread_of(config)
        identity = caller_of(config)
        if identity is None:  # a write with no user (a state update): the thread's owner
            owner = thread_index().tenant_of(thread_id)
            if owner is None:
                raise OwnershipError(f"thread {thread_id} has no run yet: no tenant to write to")
            return owner
        thread_index().claim(thread_id, identity.tenant)
        return identity.tenant

    def _read_tenant(self, thread_id: str) -> str | None:
        """The tenant holding `thread_id`'s checkpoints, or None when no run wrote any."""
        if self.tenant is not None:
            return self.tenant
        if not auth_enabled():
            return ""
        return thread_index().tenant_of(thread_id)

    @contextlib.contextmanager
    def _writer(self, config: RunnableConfig) -> Iterator[BaseCheckpointSaver]:
        with store_of(self._write_tenant(config)) as store:
            yield store.saver

    @contextlib.contextmanager
    def _reader(self, thread_id: str | None) -> Iterator[BaseCheckpointSaver | None]:
        """The saver holding `thread_id`'s checkpoints (None: every thread), leased; or None."""
        if thread_id is None:  # every thread: the single tenant's, none across tenants
            tenant = None if auth_enabled() else ""
        else:
            tenant = self._read_tenant(thread_id)
        if tenant is None:
            yield None
            return
        with store_of(tenant) as store:
            yield store.saver

    # -- synchronous calls (blocking) --------------------------------------------------------
    @override
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        with self._reader(_thread_of(config)) as store:
            return None if store is None else store.get_tuple(config)

    @override
    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        with self._reader(None if config is None else _thread_of(config)) as store:
            if store is not None:
                yield from store.list(config, filter=filter, before=before, limit=limit)

    @override
    def put(
        self, config: RunnableConfig, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> RunnableConfig:
        with self._writer(config) as store:
            return store.put(config, checkpoint, metadata, new_versions)

    @override
    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        with self._writer(config) as store:
            store.put_writes(config, writes, task_id, task_path)

    @override
    def delete_thread(self, thread_id: str) -> None:
        with self._reader(str(thread_id)) as store:
            if store is not None:
                store.delete_thread(str(thread_id))
        if auth_enabled():
            thread_index().forget(str(thread_id))

    @override
    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread's checkpoints and pending writes to a new thread of the same tenant."""
        source, target = str(source_thread_id), str(target_thread_id)
        with self._reader(source) as store:
            if store is None:
                return
            if auth_enabled():
                owner = thread_index().tenant_of(source)
                thread_index().claim(target, owner or "")
            _copy_checkpoints(store, source, target)

    @override
    def get_next_version(self, current: Any, channel: None) -> str:
        """The next channel version, in the SQLite saver's format (a counter, then noise)."""
        if current is None:
            number = 0
        elif isinstance(current, int):
            number = current
        else:
            number = int(str(current).split(".")[0])
        return f"{number + 1:032}.{random.random():016}"

    # -- asynchronous calls: the same, in a worker thread ----------------------------------
    @override
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    @override
    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        found = await asyncio.to_thread(
            lambda: list(self.list(config, filter=filter, before=before, limit=limit))
        )
        for item in found:
            yield item

    @override
    async def aput(
        self, config: RunnableConfig, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    @override
    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    @override
    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    @override
    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)


def _copy_checkpoints(store: BaseCheckpointSaver, source: str, target: str) -> None:
    """Write `source`'s checkpoints, oldest first, and their pending writes under `target`.

    The same replay as langgraph-api's fallback for savers without a copy
    (`_CustomCheckpointerAdapter.acopy_thread`): each checkpoint keeps its parent.
    """
    items = sorted(
        store.list({"configurable": {"thread_id": source}}),
        key=lambda item: item.config["configurable"]["checkpoint_id"],
    )
    for item in items:
        configurable: dict[str, Any] = {
            "thread_id": target,
            "checkpoint_ns": item.config["configurable"].get("checkpoint_ns", ""),
        }
        parent = (item.parent_config or {}).get("configurable") or {}
        if parent.get("checkpoint_id") is not None:
            configurable["checkpoint_id"] = parent["checkpoint_id"]
        metadata: dict[str, Any] = dict(item.metadata)
        if "thread_id" in metadata:
            metadata["thread_id"] = target
        versions = item.checkpoint.get("channel_versions", {})
        stored = store.put(
            {"configurable": configurable}, item.checkpoint, cast(Any, metadata), versions
        )
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in item.pending_writes or []:
            by_task.setdefault(task_id, []).append((channel, value))
        for task_id, writes in by_task.items():
            store.put_writes(stored, writes, task_id)


def close_checkpointers() -> int:
    """Close every tenant's checkpointer and the thread index; return how many closed."""
    return _stores.clear() + _indexes.clear()


@contextlib.asynccontextmanager
async def checkpointer() -> AsyncIterator[TenantSaver]:
    """Yield the server's saver; close the files it opened when the server stops."""
    try:
        yield TenantSaver()
    finally:
        await asyncio.to_thread(close_checkpointers)


__all__ = ["TenantSaver", "checkpointer", "close_checkpointers", "store_of", "thread_index"]
