"""Which tenant a server thread belongs to: a small SQLite index in the server's data dir.

The server reads and deletes checkpoints by thread_id alone (its state, history and delete
calls carry no user), while each thread's checkpoints live in its tenant's own file. The
first checkpoint a run writes claims the thread for the run's tenant; every later call finds
the file through this index, and a run of another tenant on a claimed thread is refused.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from cachetools import LRUCache

KNOWN_THREADS = 10_000
"""Thread → tenant pairs kept in memory in front of the file (each a few hundred bytes)."""


class OwnershipError(PermissionError):
    """A thread used by a tenant other than the one that claimed it, or by none."""


class ThreadTenants:
    """The thread → tenant index of one data dir (blocking: call it from a worker thread).

    Args:
        path: The index file (created with its folder on first use).
    """

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS thread_tenants "
            "(thread_id TEXT PRIMARY KEY, tenant TEXT NOT NULL)"
        )
        self._conn.commit()
        self._lock = threading.Lock()
        self._known: LRUCache[str, str] = LRUCache(maxsize=KNOWN_THREADS)

    def tenant_of(self, thread_id: str) -> str | None:
        """The tenant that claimed `thread_id`, or None when no run has written to it."""
        with self._lock:
            if thread_id in self._known:
                return self._known[thread_id]
            row = self._conn.execute(
                "SELECT tenant FROM thread_tenants WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            if row is not None:
                self._known[thread_id] = row[0]
            return row[0] if row else None

    def claim(self, thread_id: str, tenant: str) -> None:
        """Record `thread_id` as `tenant`'s; raise OwnershipError if another tenant has it."""
        owner = self.tenant_of(thread_id)
        if owner is None:
            with self._lock:
                self._conn.execute(
                    "INSERT OR IGNORE INTO thread_tenants VALUES (?, ?)", (thread_id, tenant)
                )
                self._conn.commit()
            owner = self.tenant_of(thread_id)  # a racing claim by another tenant wins too
        if owner != tenant:
            raise OwnershipError(f"thread {thread_id} belongs to another tenant")

    def forget(self, thread_id: str) -> None:
        """Drop `thread_id` from the index (its checkpoints were deleted)."""
        with self._lock:
            self._known.pop(thread_id, None)
            self._conn.execute("DELETE FROM thread_tenants WHERE thread_id = ?", (thread_id,))
            self._conn.commit()

    def close(self) -> None:
        """Close the index file."""
        with self._lock:
            self._conn.close()
