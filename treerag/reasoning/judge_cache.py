"""A persistent cache of judge verdicts, in SQLite, keyed on everything a verdict depends on.

The key hashes the question (case, width and whitespace folded), the chunk's text (so an
edited, re-ingested document is judged again), where the graph linked the chunk from (the
offline judge reads it), and the judge's identity (`Reasoner.judge_name`: the model and a
hash of its judge prompt, or a hash of the offline rules' source (`rules_version`) and the
embedder), so that changing any of them gives a fresh verdict.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import sqlite3
import threading
from pathlib import Path

from treerag.bounded import BoundedCache, Lease
from treerag.data_layout import damaged_sqlite, judge_cache_file, set_aside
from treerag.reasoning.base import Judgement
from treerag.source_digest import source_digest
from treerag.text import width_and_case

log = logging.getLogger(__name__)

RULE_PACKAGES = ("treerag.reasoning", "treerag.text", "treerag.segment", "treerag.transliteration")
"""Where the offline judge's rules live: the reading, answering and follow-up rules, and the
text they read with (scripts, names; segmentation and foreign names, which are modules of
their own: a change to jieba's tagging had left the old verdicts in the cache)."""


@functools.cache
def rules_version() -> str:
    """A hash of the offline rules' source (`RULE_PACKAGES`), part of the offline judge's name.

    The rules are the code: a release that changes any of them judges afresh, where a
    hand-kept version number left verdicts of the old rules in a data folder's cache.
    """
    return source_digest(RULE_PACKAGES)


MAX_VERDICTS = 100_000
"""Verdicts one cache file keeps; beyond it the oldest written go. On the demo's data a verdict
takes ~0.65 KB of file (133 verdicts in 86 KB) and a question writes ~11: ~65 MB, ~9,000
questions' worth."""
PRUNE_EVERY = 512
"""Writes between two prunes: a prune is one indexed DELETE, cheap, but not worth each write."""


class JudgeCache:
    """Verdicts survive across runs; errors are never cached."""

    def __init__(self, path: Path, max_verdicts: int = MAX_VERDICTS):
        """Open (or create) the cache file, which keeps at most `max_verdicts` verdicts.

        A damaged file (a disk fault, a copy cut short) is set aside and a new one started:
        verdicts are judged again, no question fails for a cache (`data_layout.set_aside`).
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        try:
            self._db = _connect(path)
        except sqlite3.DatabaseError as exc:
            self._db = self._started_over(exc)
        self._lock = threading.Lock()
        self.max_verdicts = max_verdicts
        self._writes = 0
        self._closed = False

    def _started_over(self, exc: sqlite3.DatabaseError) -> sqlite3.Connection:
        """A new cache file in place of a damaged one, kept aside (any other error raises)."""
        if not damaged_sqlite(exc):
            raise exc
        aside = set_aside(self.path)
        log.warning("the judge cache %s was damaged (%s): moved to %s", self.path, exc, aside)
        return _connect(self.path)

    @staticmethod
    def key(question: str, text: str, judge: str, linked_from: str = "") -> str:
        """Hash the identity of a verdict (see the module docstring)."""
        parts = (" ".join(width_and_case(question).split()), text, judge, linked_from)
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def get(self, key: str) -> Judgement | None:
        """Return the verdict cached under `key` (`JudgeCache.key`), or None."""
        with self._lock:
            if self._closed:  # evicted while a judge held it: a miss, judged again
                return None
            try:
                row = self._db.execute(
                    "SELECT value FROM verdicts WHERE key = ?", (key,)
                ).fetchone()
            except sqlite3.DatabaseError as exc:  # damaged since it was opened: a miss
                self._db.close()
                self._db = self._started_over(exc)
                return None
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
            if self._closed:
                return
            try:
                # REPLACE gives the row a new rowid: rowids order verdicts by their last write.
                self._db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)", (key, value))
                self._writes += 1
                if self._writes % PRUNE_EVERY == 0:
                    self._prune()
                self._db.commit()
            except sqlite3.DatabaseError as exc:  # damaged since it was opened: not kept
                self._db.close()
                self._db = self._started_over(exc)

    def _prune(self) -> None:
        self._db.execute(
            "DELETE FROM verdicts WHERE rowid <= (SELECT MAX(rowid) FROM verdicts) - ?",
            (self.max_verdicts,),
        )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    def close(self) -> None:
        """Close the file; later reads miss and writes are dropped (it is only a cache)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()


def _connect(path: Path) -> sqlite3.Connection:
    """Open a cache file, creating its table (raises `sqlite3.DatabaseError` if damaged)."""
    db = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
    try:
        # WAL with synchronous=NORMAL: a verdict write no longer waits for an fsync, and a
        # lost last verdict after a power cut only costs one judge call again.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT)")
        db.commit()
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


_caches: BoundedCache[str, JudgeCache] = BoundedCache("judge caches")
"""Open judge-cache files, one per tenant."""


def judge_cache(tenant_dir: Path, bound: int | None = None) -> JudgeCache:
    """Return the process-wide cache of a tenant directory (`bound`: `Context.open_stores`)."""
    path = judge_cache_file(tenant_dir).resolve()
    return _caches.get_or_open(str(path), lambda: JudgeCache(path), bound)


def judge_cache_lease(tenant_dir: Path, bound: int | None = None) -> Lease[JudgeCache]:
    """Lease the process-wide cache of a tenant directory for a call (see `treerag.bounded`)."""
    path = judge_cache_file(tenant_dir).resolve()
    return _caches.lease(str(path), lambda: JudgeCache(path), bound)
