"""The store core: open, recover, load, refresh from other processes, run write transactions."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from treerag.keyword_tree.agent import AgentStats, KeywordAgent
from treerag.keyword_tree.cache import TreeCache
from treerag.keyword_tree.checkpoint import drop_checkpoint, write_checkpoint
from treerag.keyword_tree.config import TreeConfig
from treerag.keyword_tree.errors import KeywordTreeError
from treerag.keyword_tree.indexes import TreeIndex
from treerag.keyword_tree.jsonl import LoadIssue
from treerag.keyword_tree.loader import apply_tail, load_index, touched_between
from treerag.keyword_tree.models import KeywordNode, Record, new_id, node_from_record, now_iso
from treerag.keyword_tree.snapshots import rebuild_from_log
from treerag.keyword_tree.storage import Commit, Storage
from treerag.keyword_tree.txn import Txn
from treerag.keyword_tree.upkeep import read_marks

log = logging.getLogger("treerag.keyword_tree")


class StoreBase:
    """State shared by the API mixins: files, indexes, caches, the agent, the commit point."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        agent: KeywordAgent | None = None,
        config: TreeConfig | None = None,
    ) -> None:
        """Open (creating if needed) the store at path and load it into memory.

        Args:
            path: The store directory (seed 03 §3.1 layout is created inside it).
            agent: The default agent for descent, dedup, auto-linking and disambiguation.
            config: Tuning knobs; defaults when omitted.
        """
        self.path = Path(path)
        self.config = config or TreeConfig()
        self.agent = agent
        self.agent_stats = AgentStats()
        self.cache = TreeCache()
        self.issues: list[LoadIssue] = []
        """Problems found while loading or recovering (corrupt lines, discarded tails)."""
        self.storage = Storage(self.path, fsync=self.config.fsync)
        self._mutex = threading.RLock()
        self._closed = False
        self._dirty = 0
        self._marks = read_marks(self.path)
        """Marks of the last periodic snapshot and compaction (see upkeep.py)."""
        with self.storage.lock.hold():
            self._commit = self._recover_locked()
            self._load_locked()
        self._load_cache()
        for issue in self.issues:
            log.warning("keyword tree: %s", issue)

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> StoreBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Write a checkpoint if many records changed, persist caches, release files."""
        if self._closed:
            return
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            if self._dirty >= self.config.checkpoint_every:
                self.write_checkpoint()
            self.cache.save(self.path / "cache", self._position())
        self.storage.close()
        self._closed = True

    def write_checkpoint(self) -> None:
        """Write the in-memory indexes to indexes/*.json now (speeds up the next cold start)."""
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            write_checkpoint(self.path, self.index, self._commit, fsync=self.config.fsync)
            self._dirty = 0

    def _check_open(self) -> None:
        if self._closed:
            raise KeywordTreeError(f"the keyword tree at {self.path} is closed")

    def _position(self) -> dict[str, Any]:
        return {"gen": self._commit.gen, "ends": self._commit.ends}

    # -- recovery and loading ---------------------------------------------------------------

    def _recover_locked(self) -> Commit:
        commit, issues, short = self.storage.recover()
        self.issues.extend(issues)
        if short:
            blobs, issue = rebuild_from_log(self.storage, commit)
            entry = self._system_entry("recover", {"short_files": short})
            commit = self.storage.replace(entry, blobs, commit)
            drop_checkpoint(self.path)
            self.issues.append(issue)
        return commit

    def _system_entry(self, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {"t": "op", "op_id": new_id("op"), "kind": kind}
        entry.update(ts=now_iso(), actor="system", args=args, changes=[])
        return entry

    def _load_locked(self) -> None:
        self.index: TreeIndex = load_index(self.storage, self._commit, self.issues)
        self._dirty = (
            0 if self._has_checkpoint() else len(self.index.nodes) + len(self.index.info_offsets)
        )

    def _has_checkpoint(self) -> bool:
        return (self.path / "indexes" / "manifest.json").exists()

    def _load_cache(self) -> None:
        commit = self._commit

        def accept(at: dict[str, Any]) -> bool:
            ends = at.get("ends") or {}
            return at.get("gen") == commit.gen and all(
                0 <= ends.get(name, -1) <= end for name, end in commit.ends.items()
            )

        for at in self.cache.load(self.path / "cache", accept):
            if at["ends"] != commit.ends:
                self.cache.invalidate(touched_between(self.storage, at["ends"], commit.ends))

    # -- following other processes ----------------------------------------------------------

    def refresh(self) -> None:
        """Pick up what other processes committed since this one last looked."""
        self._check_open()
        with self._mutex:
            if self.storage.last_commit().pending is not None:
                with self.storage.lock.hold():
                    self._sync_for_write()
                return
            with self.storage.lock.hold(shared=True):
                self._follow(self.storage.last_commit())

    def _maybe_refresh(self) -> None:
        """Refresh when the change log grew (one fstat when nothing happened)."""
        if self.config.auto_refresh and self.storage.log_size() != self._commit.log_end:
            self.refresh()

    def _follow(self, commit: Commit) -> None:
        """Move the in-memory state to commit: replay the tail, or reload on a new generation."""
        if commit.gen != self._commit.gen:
            # Another process replaced the files: descriptors still point at the old ones.
            self.storage.reopen()
            self._commit = commit
            self._load_locked()
            self.cache.clear()
        elif commit.log_end != self._commit.log_end:
            touched = apply_tail(
                self.storage, self.index, self._commit.ends, commit.ends, self.issues
            )
            self._dirty += 1
            self._commit = commit
            self.cache.invalidate(touched)

    def _sync_for_write(self) -> None:
        """Under the write lock: repair a crashed writer's leftovers and replay others' writes."""
        storage = self.storage
        if storage.log_size() == self._commit.log_end and all(
            storage.size(name) == end for name, end in self._commit.ends.items()
        ):
            return
        self._follow(self._recover_locked())

    # -- writing --------------------------------------------------------------------------------

    @contextmanager
    def _write(self, kind: str, args: dict[str, Any]) -> Iterator[Txn]:
        """Run one operation: lock, sync, stage, then append + fsync + log (seed 03 §4.5)."""
        self._check_open()
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            tx = Txn(self.index, kind, args)
            try:
                yield tx
                self._commit_txn(tx)
            except BaseException:
                tx.rollback()
                raise
            self._after_commit()

    def _after_commit(self) -> None:
        """Called under the write lock after each operation (periodic upkeep hooks in here)."""

    def _commit_txn(self, tx: Txn) -> None:
        changes = tx.changes()
        if not changes:
            return
        blobs, info_pos, touched = tx.encode()
        base = self._commit
        self._commit = self.storage.append(tx.entry(), blobs, base)
        for info_id, pos in info_pos.items():
            self.index.info_offsets[info_id] = base.ends["infos"] + pos
        self._dirty += len(changes)
        self.cache.invalidate(touched)

    # -- record helpers -----------------------------------------------------------------------

    def _node(self, rec: Record) -> KeywordNode:
        node_id = rec["id"]
        return node_from_record(
            rec, level=self.index.level_of(node_id), children=self.index.child_ids(node_id)
        )
