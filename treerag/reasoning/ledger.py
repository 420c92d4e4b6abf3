"""The LLM-call budget a root run and all its sub-runs share."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from treerag.bounded import BoundedCache


@dataclass
class TreeLedger:
    """Counts LLM-role calls against the tree's budget (a hard cap under the fair shares)."""

    max_calls: int
    calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def spend(self, n: int = 1, force: bool = False) -> bool:
        """Reserve n calls; False when the budget would be exceeded (unless forced)."""
        with self._lock:
            if not force and self.calls + n > self.max_calls:
                return False
            self.calls += n
            return True

    def refund(self, n: int) -> None:
        """Give back reserved calls that were not made (e.g. a cache hit)."""
        with self._lock:
            self.calls = max(0, self.calls - n)

    @property
    def left(self) -> int:
        """Calls not yet spent or reserved."""
        with self._lock:
            return max(0, self.max_calls - self.calls)


LEDGERS_KEPT = 4096
"""Trees whose ledger is kept: only the answer node releases one, so a run that failed before
it left its ledger behind for good. Far above the trees a server runs at once (the soak's 4
clients run 4), so only such leftovers are dropped."""
_ledgers: BoundedCache[str, TreeLedger] = BoundedCache("call ledgers", LEDGERS_KEPT)


def ledger_for(root_thread_id: str, max_calls: int) -> TreeLedger:
    """Return the ledger of a search tree, creating it for a new root."""
    return _ledgers.get_or_open(root_thread_id, lambda: TreeLedger(max_calls=max_calls))


def release(root_thread_id: str) -> None:
    """Forget a finished tree's ledger."""
    _ledgers.pop(root_thread_id)
