"""Per-tree bookkeeping shared by a root run and all its sub-runs: LLM budget and dedup."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from treerag.reasoning.questions import near_duplicate
from treerag.reasoning.text import normalize


@dataclass
class TreeLedger:
    """Counts LLM-role calls against the budget; remembers questions asked and chunks fetched."""

    max_calls: int
    calls: int = 0
    asked: set[str] = field(default_factory=set)
    questions: list[str] = field(default_factory=list)
    fetched: set[str] = field(default_factory=set)
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

    def claim(self, question: str) -> bool:
        """Record a question; False when this tree has asked it or a near-duplicate of it.

        Near-duplicates are judged by `questions.near_duplicate` (content-term overlap), so a
        follow-up that repeats its question with a few words added is not asked again.
        """
        key = " ".join(normalize(question).split()).rstrip("?？")
        with self._lock:
            if key in self.asked or any(near_duplicate(question, q) for q in self.questions):
                return False
            self.asked.add(key)
            self.questions.append(question)
            return True

    def fetch(self, chunk_ids: list[str], limit: int) -> list[str]:
        """Claim up to `limit` of the chunks no run of this tree fetched before, in order."""
        with self._lock:
            new = [c for c in dict.fromkeys(chunk_ids) if c not in self.fetched][:limit]
            self.fetched.update(new)
            return new


_ledgers: dict[str, TreeLedger] = {}
_registry_lock = threading.Lock()


def ledger_for(root_thread_id: str, max_calls: int) -> TreeLedger:
    """Return the ledger of a search tree, creating it for a new root."""
    with _registry_lock:
        if root_thread_id not in _ledgers:
            _ledgers[root_thread_id] = TreeLedger(max_calls=max_calls)
        return _ledgers[root_thread_id]


def release(root_thread_id: str) -> None:
    """Forget a finished tree's ledger."""
    with _registry_lock:
        _ledgers.pop(root_thread_id, None)
