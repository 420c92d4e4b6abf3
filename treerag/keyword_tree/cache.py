"""Caches of seed 03 §4.4 with TTLs, a node → keys reverse index, and persistence."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from treerag.keyword_tree.models import Record

MISSING: Any = object()
"""Returned by TreeCache.get when a key is absent or expired."""

# Key families and the file each persists to; "kw:" pages stay in memory (cheap to rebuild).
PERSISTED = {
    "exact:": "exact_cache.json",
    "descend:": "descend_cache.json",
    "agent:": "agent_decision.json",
}


@dataclass(slots=True)
class Touched:
    """What a batch of record changes makes stale."""

    nodes: set[str] = field(default_factory=set)
    """Keywords that changed, plus their old and new parents."""
    pages: set[str] = field(default_factory=set)
    """Keywords whose info lists changed."""
    tokens: set[str] = field(default_factory=set)
    """Normalized forms that appeared or disappeared (stale exact-lookup entries)."""

    def node(self, before: Record | None, after: Record | None) -> None:
        """Record a keyword change from before to after (either may be None)."""
        for rec in (before, after):
            if rec is None:
                continue
            self.nodes.add(rec["id"])
            if rec.get("parent_id"):
                self.nodes.add(rec["parent_id"])
            self.tokens.update(rec.get("normalized", ()))
        self.pages.update(rec["id"] for rec in (before, after) if rec is not None)

    def update(self, other: Touched) -> None:
        """Merge another Touched into this one."""
        self.nodes |= other.nodes
        self.pages |= other.pages
        self.tokens |= other.tokens


class TreeCache:
    """Key → value with expiry; each key lists the keyword ids it depends on.

    ``node_used_by_keys`` (seed 03 §4.4) is the reverse map that makes invalidation
    targeted: a change to keyword K drops exactly the keys that depended on K.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._entries: dict[str, tuple[float, Any, tuple[str, ...]]] = {}
        self.node_used_by_keys: dict[str, set[str]] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Any:
        """Return the cached value, or MISSING."""
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return MISSING
        if entry[0] < self._clock():
            self.drop(key)
            self.misses += 1
            return MISSING
        self.hits += 1
        return entry[1]

    def put(self, key: str, value: Any, ttl: float, deps: Iterable[str] = ()) -> None:
        """Store value under key for ttl seconds, invalidated when any dep changes."""
        self.drop(key)
        dep_tuple = tuple(dict.fromkeys(deps))
        self._entries[key] = (self._clock() + ttl, value, dep_tuple)
        for dep in dep_tuple:
            self.node_used_by_keys.setdefault(dep, set()).add(key)

    def drop(self, key: str) -> None:
        """Remove one key."""
        entry = self._entries.pop(key, None)
        if entry is None:
            return
        for dep in entry[2]:
            keys = self.node_used_by_keys.get(dep)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self.node_used_by_keys[dep]

    def invalidate(self, touched: Touched) -> int:
        """Drop every key made stale by touched; return how many were dropped."""
        stale: set[str] = set()
        for node_id in touched.nodes:
            stale |= self.node_used_by_keys.get(node_id, set())
        for node_id in touched.pages:
            stale |= self.node_used_by_keys.get(page_dep(node_id), set())
        stale.update(f"exact:{token}" for token in touched.tokens)
        count = 0
        for key in stale:
            if key in self._entries:
                self.drop(key)
                count += 1
        return count

    def clear(self) -> None:
        """Drop everything."""
        self._entries.clear()
        self.node_used_by_keys.clear()

    def save(self, folder: Path, at: dict[str, Any]) -> None:
        """Persist the exact, descend and agent entries under folder (cache/*.json)."""
        now = self._clock()
        for prefix, filename in PERSISTED.items():
            entries = {
                key: [expires, value, list(deps)]
                for key, (expires, value, deps) in self._entries.items()
                if key.startswith(prefix) and expires >= now
            }
            tmp = folder / (filename + ".tmp")
            tmp.write_bytes(orjson.dumps({"at": at, "entries": entries}))
            os.replace(tmp, folder / filename)

    def load(self, folder: Path, accept: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Load persisted entries whose position ``accept`` approves; return those positions."""
        now = self._clock()
        positions = []
        for filename in PERSISTED.values():
            try:
                payload = orjson.loads((folder / filename).read_bytes())
            except (OSError, orjson.JSONDecodeError):
                continue
            if not isinstance(payload, dict) or not accept(payload.get("at") or {}):
                continue
            positions.append(payload["at"])
            for key, (expires, value, deps) in payload.get("entries", {}).items():
                if expires >= now:
                    self._entries[key] = (expires, value, tuple(deps))
                    for dep in deps:
                        self.node_used_by_keys.setdefault(dep, set()).add(key)
        return positions


def page_dep(keyword_id: str) -> str:
    """Return the dependency name of a keyword's info pages (kept apart from its node)."""
    return f"page:{keyword_id}"
