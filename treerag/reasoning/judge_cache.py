"""A persistent cache of judge verdicts keyed by (question, chunk id, model), in SQLite."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from treerag.reasoning.base import Judgement
from treerag.reasoning.text import normalize


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
    def key(question: str, chunk_id: str, model: str) -> str:
        """Hash the identity of a verdict."""
        raw = f"{' '.join(normalize(question).split())}\x00{chunk_id}\x00{model}"
        return hashlib.sha256(raw.encode()).hexdigest()

    def get(self, question: str, chunk_id: str, model: str) -> Judgement | None:
        """Return a cached verdict or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM verdicts WHERE key = ?", (self.key(question, chunk_id, model),)
            ).fetchone()
        if not row:
            return None
        data = json.loads(row[0])
        return Judgement(calls=0, **data)

    def put(self, question: str, chunk_id: str, model: str, verdict: Judgement) -> None:
        """Store a verdict (not if it is an error)."""
        if verdict.error:
            return
        value = json.dumps({k: v for k, v in verdict.as_record().items() if k != "error"})
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?)",
                (self.key(question, chunk_id, model), value),
            )
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
