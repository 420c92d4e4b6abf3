"""Process-wide handles (stores, clients, connections) kept per key under an LRU bound.

A server serves many tenants from one process. Each tenant opens its own Milvus Lite
folder, checkpoint and judge-cache SQLite files, keyword tree and graphs; kept in plain module
dicts they stayed open for the process's life. Every such table is a `BoundedCache`: the least
recently used entry beyond the bound is closed on eviction and opened again on its next use,
and `close_all()` (the server's shutdown) closes every entry of every table.
"""

from __future__ import annotations

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
        with self._lock:
            if maxsize == self._data.maxsize:
                return
            kept = list(self._data.items())  # least recently used first
            self._data = _Evicting(maxsize, self._evicted)
            for key, value in kept:
                self._data[key] = value  # the oldest go out first, through the hook

    def _evicted(self, key: Any, value: Any) -> None:
        self.evictions += 1
        log.info("%s: closing %s (more than %d open)", self.name, key, self._data.maxsize)
        self._close(value)

    def get(self, key: K) -> V | None:
        """The value under `key` (marking it recently used), or None."""
        with self._lock:
            return self._data.get(key)

    def get_or_open(self, key: K, opener: Callable[[], V], bound: int | None = None) -> V:
        """The value under `key`, opened by `opener()` on a miss (under the table's lock).

        Args:
            key: Identifies the handle (a resolved path or URI).
            opener: Opens the handle; its exceptions propagate and nothing is stored.
            bound: The caller's bound (`Context.open_stores`), applied before opening.
        """
        with self._lock:
            if bound is not None:
                self.resize(bound)
            if key in self._data:
                return self._data[key]
            value = opener()
            self._data[key] = value
            return value

    def put(self, key: K, value: V, bound: int | None = None) -> None:
        """Store `value` under `key`; a value it replaces is closed."""
        with self._lock:
            if bound is not None:
                self.resize(bound)
            old = self._data.get(key)
            self._data[key] = value
        if old is not None and old is not value:
            self._close(old)

    def pop(self, key: K, close: bool = True) -> V | None:
        """Remove the value under `key` and return it, closed unless `close` is False."""
        with self._lock:
            value = self._data.pop(key, None)
        if value is not None and close:
            self._close(value)
        return value

    def keys(self) -> list[K]:
        """The keys, least recently used first."""
        with self._lock:
            return list(self._data.keys())

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def clear(self) -> int:
        """Close and remove every entry; return how many were closed."""
        with self._lock:
            values = list(self._data.values())
            self._data.clear()
        for value in values:
            self._close(value)
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
