"""A persistent cache of judge verdicts, in SQLite, keyed on everything a verdict depends on.

The key hashes the question (case, width and whitespace folded), the chunk's text (so an
edited, re-ingested document is judged again), where the graph linked the chunk from (the
offline judge reads it), and the judge's identity (`Reasoner.judge_name`: the model and a
hash of its judge prompt, or the offline rules' version and embedder), so that changing any
of them gives a fresh verdict.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from treerag.reasoning.base import Judgement
from treerag.text import width_and_case


class JudgeCache:
    """Verdicts survive across runs; errors are never cached."""

    def __init__(self, path: Path):
        """Open (or create) the cache file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        # WAL with synchronous=NORMAL: a verdict write no longer waits for an fsync, and a
        # lost last verdict after a power cut only costs one judge call again.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT)")
        self._db.commit()
        self._lock = threading.Lock()

    @staticmethod
    def key(question: str, text: str, judge: str, linked_from: str = "") -> str:
        """Hash the identity of a verdict (see the module docstring)."""
        parts = (" ".join(width_and_case(question).split()), text, judge, linked_from)
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def get(self, key: str) -> Judgement | None:
        """Return the verdict cached under `key` (`JudgeCache.key`), or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM verdicts WHERE key = ?", (key,)).fetchone()
        if not row:
            return None
        data = json.loads(row[0])
        return Judgement(calls=0, **data)

    def put(self, key: str, verdict: Judgement) -> None:
        """Store a verdict under `key` (not if it is an error)."""
        if verdict.error:
            return
        value = json.dumps({k: v for k, v in verdict.as_record().items() if k != "error"})
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)", (key, value))
            self._db.commit()


_caches: dict[str, JudgeCache] = {}
_caches_lock = threading.Lock()


def judge_cache(data_dir: Path) -> JudgeCache:
    """Return the process-wide cache for a data directory."""
    path = (data_dir / "judge_cache.sqlite").resolve()
    with _caches_lock:
        if str(path) not in _caches:
            _caches[str(path)] = JudgeCache(path)
        return _caches[str(path)]
