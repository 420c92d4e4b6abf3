"""Process-wide handles (stores, clients, connections) kept per key under an LRU bound.

A server serves many tenants from one process. Each tenant opens its own Milvus Lite
folder, checkpoint and judge-cache SQLite files, keyword tree and graphs; kept in plain module
dicts they stayed open for the process's life. Every such table is a `BoundedCache`: the least
recently used entry beyond the bound is closed on eviction and opened again on its next use,
and `close_all()` (the server's shutdown) closes every entry of every table.

A call that uses a handle holds a lease on it (`with table.lease(key, opener) as handle:`):
a handle evicted while leased stays open until its last lease ends (a search in flight is
never cut off by other tenants pushing its store out), and asking for its key meanwhile gets
the same handle back rather than a second one.

A handle is opened under its table's lock, and opening a Milvus Lite client waits for an RPC
answered by a server thread of this process. A lease ended by the garbage collector
(`Lease.release_soon`, a `weakref.finalize` callback) runs in whatever thread collected, that
server thread among them, so it never waits for the lock: it ends at once if the lock is free,
else the next use of the table ends it. Waiting there held the RPC, and the open, until its
60 s deadline.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from cachetools import LRUCache

log = logging.getLogger(__name__)

BOUND_ENV = "TREERAG_OPEN_STORES"
DEFAULT_BOUND = 16
"""Tenants (data dirs) whose stores one process keeps open at once: each open Milvus Lite
folder holds its collection's vectors and BM25 index in memory (the demo's: ~10 MB)."""

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_tables: weakref.WeakSet[BoundedCache[Any, Any]] = weakref.WeakSet()
_tables_lock = threading.Lock()


def env_bound(default: int = DEFAULT_BOUND) -> int:
    """The bound `TREERAG_OPEN_STORES` sets (the `open_stores` setting), else `default`."""
    raw = os.environ.get(BOUND_ENV, "")
    try:
        return max(1, int(raw)) if raw.strip() else default
    except ValueError:
        return default


def close_value(value: Any) -> None:
    """Close a handle by its `close()`, if it has one; a failure is logged, never raised."""
    closer = getattr(value, "close", None)
    if callable(closer):
        try:
            closer()
        except Exception as exc:  # a half-broken handle must not stop the others closing
            log.warning("closing %s failed: %s", type(value).__name__, exc)


class _Evicting(LRUCache):
    """cachetools' LRU, handing each evicted value to a hook (called under the table's lock)."""

    def __init__(self, maxsize: int, on_evict: Callable[[Any, Any], None]):
        super().__init__(maxsize=maxsize)
        self._on_evict = on_evict

    def popitem(self) -> tuple[Any, Any]:
        key, value = super().popitem()
        self._on_evict(key, value)
        return key, value


class Lease(Generic[V]):
    """One use of a table's handle: it stays open until this and every other lease ends.

    A context manager (`with table.lease(...) as handle:`), or held by an object for its life
    and ended by `release()` (idempotent).
    """

    def __init__(self, table: BoundedCache[Any, V], value: V):
        self.value = value
        self._table: BoundedCache[Any, V] | None = table

    def release(self) -> None:
        """End this use; a handle that left the table meanwhile is closed by its last one."""
        table, self._table = self._table, None
        if table is not None:
            table._unlease(self.value)

    def release_soon(self) -> None:
        """End this use without waiting for the table's lock (a garbage collector's callback).

        It ends now when the lock is free, else at the table's next use (see the module).
        """
        table, self._table = self._table, None
        if table is not None:
            table._unlease_soon(self.value)

    def __enter__(self) -> V:
        return self.value

    def __exit__(self, *exc: object) -> None:
        self.release()


class BoundedCache(Generic[K, V]):
    """A thread-safe LRU table of handles; what leaves it is closed.

    Args:
        name: What the table holds (logs and tests).
        maxsize: The bound; None reads `TREERAG_OPEN_STORES` (default `DEFAULT_BOUND`).
        close: How to close an evicted or cleared value (default: its `close()`).
    """

    def __init__(
        self,
        name: str,
        maxsize: int | None = None,
        close: Callable[[V], None] = close_value,
    ):
        self.name = name
        self._close = close
        self._lock = threading.RLock()
        self._data: _Evicting = _Evicting(maxsize or env_bound(), self._evicted)
        self._uses: dict[int, int] = {}
        """Leases per handle (by identity), for the handles leased now."""
        self._parked: dict[Any, V] = {}
        """Handles evicted while leased, by key: the next use of the key takes them back."""
        self._closing: dict[int, V] = {}
        """Handles removed while leased (popped, replaced, cleared): closed by their last lease."""
        self._ending: collections.deque[V] = collections.deque()
        """Leases ended by the garbage collector while the lock was held (`Lease.release_soon`)."""
        self.evictions = 0
        """Entries closed because the table was full (tests and diagnostics)."""
        with _tables_lock:
            _tables.add(self)

    @property
    def maxsize(self) -> int:
        """The current bound."""
        return int(self._data.maxsize)

    def resize(self, maxsize: int) -> None:
        """Change the bound (a run's `open_stores`); entries beyond a smaller one are closed."""
        maxsize = max(1, int(maxsize))
        with self._locked():
            if maxsize == self._data.maxsize:
                return
            kept = list(self._data.items())  # least recently used first
            self._data = _Evicting(maxsize, self._evicted)
            for key, value in kept:
                self._data[key] = value  # the oldest go out first, through the hook

    def _evicted(self, key: Any, value: Any) -> None:
        self.evictions += 1
        if self._uses.get(id(value)):
            log.info("%s: %s is in use: closed when its last call ends", self.name, key)
            earlier = self._parked.get(key)
            if earlier is not None and earlier is not value:  # replaced by `put`, still leased
                self._closing[id(earlier)] = earlier
            self._parked[key] = value
            return
        log.info("%s: closing %s (more than %d open)", self.name, key, self._data.maxsize)
        self._close(value)

    def _retire(self, value: V) -> bool:
        """Close `value` now unless it is leased (then its last lease does); True if closed."""
        with self._locked():
            if self._uses.get(id(value)):
                self._closing[id(value)] = value
                return False
        self._close(value)
        return True

    @contextlib.contextmanager
    def _locked(self) -> Any:
        """Hold the table's lock, first ending the leases the garbage collector left."""
        with self._lock:
            while self._ending:
                self._unlease(self._ending.popleft())
            yield

    def _unlease_soon(self, value: V) -> None:
        if not self._lock.acquire(blocking=False):
            self._ending.append(value)  # deque.append is atomic: no lock needed
            return
        try:
            self._unlease(value)
        finally:
            self._lock.release()

    def _unlease(self, value: V) -> None:
        with self._lock:
            left = self._uses[id(value)] - 1
            if left:
                self._uses[id(value)] = left
                return
            del self._uses[id(value)]
            parked = [k for k, v in self._parked.items() if v is value]
            for key in parked:
                del self._parked[key]
            if parked or self._closing.pop(id(value), None) is not None:
                # Under the lock: nobody reopens the key until this handle is closed.
                self._close(value)

    def _open(self, key: K, opener: Callable[[], V]) -> V:
        """The value under `key`: the table's, one evicted but still in use, or a new one."""
        if key in self._data:
            return self._data[key]
        value = self._parked.pop(key, None)
        if value is None:
            value = opener()
        self._data[key] = value
        return value

    def lease(self, key: K, opener: Callable[[], V], bound: int | None = None) -> Lease[V]:
        """Lease the value under `key` (opened by `opener()` on a miss) for a call.

        Args:
            key: Identifies the handle (a resolved path or URI).
            opener: Opens the handle; its exceptions propagate and nothing is stored.
            bound: The caller's bound (`Context.open_stores`), applied before opening.
        """
        with self._locked():
            if bound is not None:
                self.resize(bound)
            value = self._open(key, opener)
            self._uses[id(value)] = self._uses.get(id(value), 0) + 1
            return Lease(self, value)

    def in_use(self) -> int:
        """How many handles are leased now (tests and diagnostics)."""
        with self._locked():
            return len(self._uses)

    def get(self, key: K) -> V | None:
        """The value under `key` (marking it recently used), or None."""
        with self._locked():
            return self._data.get(key)

    def get_or_open(self, key: K, opener: Callable[[], V], bound: int | None = None) -> V:
        """The value under `key`, opened by `opener()` on a miss (under the table's lock).

        Args:
            key: Identifies the handle (a resolved path or URI).
            opener: Opens the handle; its exceptions propagate and nothing is stored.
            bound: The caller's bound (`Context.open_stores`), applied before opening.
        """
        with self._locked():
            if bound is not None:
                self.resize(bound)
            return self._open(key, opener)

    def put(self, key: K, value: V, bound: int | None = None) -> None:
        """Store `value` under `key`; a value it replaces is closed."""
        with self._locked():
            if bound is not None:
                self.resize(bound)
            old = self._data.get(key)
            self._data[key] = value
        if old is not None and old is not value:
            self._retire(old)

    def pop(self, key: K, close: bool = True) -> V | None:
        """Remove the value under `key` and return it, closed unless `close` is False."""
        with self._locked():
            value = self._data.pop(key, None)
            parked = self._parked.pop(key, None)
        if parked is not None and close:
            self._retire(parked)
        if value is not None and close:
            self._retire(value)
        return value

    def keys(self) -> list[K]:
        """The keys, least recently used first."""
        with self._locked():
            return list(self._data.keys())

    def __len__(self) -> int:
        with self._locked():
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._locked():
            return key in self._data

    def clear(self) -> int:
        """Remove every entry and close it (a leased one when its last lease ends).

        Returns:
            How many entries were removed.
        """
        with self._locked():
            values = [*self._data.values(), *self._parked.values()]
            self._data.clear()
            self._parked.clear()
        for value in values:
            self._retire(value)
        return len(values)


def close_all() -> int:
    """Close every entry of every table (the server's shutdown); return how many closed."""
    with _tables_lock:
        tables = list(_tables)
    closed = 0
    for table in tables:
        with contextlib.suppress(Exception):
            closed += table.clear()
    return closed


def tables() -> list[BoundedCache[Any, Any]]:
    """Every live table (tests and diagnostics)."""
    with _tables_lock:
        return sorted(_tables, key=lambda t: t.name)
