"""Operations API of seed 03 §六: undo, compaction, snapshots, restore, metrics, reorganize."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from treerag.keyword_tree.agent import KeywordAgent, run_sync
from treerag.keyword_tree.changelog import find_op, iter_log
from treerag.keyword_tree.checkpoint import drop_checkpoint, write_checkpoint
from treerag.keyword_tree.errors import KeywordTreeError, NotFoundError
from treerag.keyword_tree.info_writes import InfoWrites
from treerag.keyword_tree.jsonl import LoadIssue
from treerag.keyword_tree.metrics import TreeMetrics, tree_metrics
from treerag.keyword_tree.reorganize import ReorganizePlan, apply_plan, build_plan
from treerag.keyword_tree.results import WriteResult
from treerag.keyword_tree.snapshots import (
    compacted_blobs,
    list_snapshots,
    read_snapshot,
    rebuild_from_log,
    resolve_snapshot,
    write_snapshot,
)
from treerag.keyword_tree.storage import DATA_FILES
from treerag.keyword_tree.undo import stage_undo
from treerag.keyword_tree.upkeep import (
    compaction_due,
    prune_auto_snapshots,
    read_marks,
    snapshot_due,
    write_marks,
)

log = logging.getLogger("treerag.keyword_tree")


@dataclass(slots=True)
class CompactionReport:
    """Sizes of the data files before and after compaction."""

    bytes_before: int
    bytes_after: int
    seconds: float


class Maintenance(InfoWrites):
    """undo, history, compact_storage, snapshot / restore / recover, metrics, reorganize."""

    def undo(self, operation_id: str) -> WriteResult:
        """Reverse an operation (seed 03 §5.8); the undo is itself an undoable operation.

        Raises:
            NotFoundError: No such operation in logs/change_log.jsonl.
            UndoError: A later operation changed the same records (undo it first), or the
                operation kind cannot be undone (compaction, restore).
        """
        with self._write("undo", {"operation_id": operation_id}) as tx:
            entry = find_op(self.storage, operation_id)
            if entry is None:
                raise NotFoundError("operation", operation_id, "see history() or the change log")
            tx.undo_of = operation_id
            restored = stage_undo(tx, entry)
        return WriteResult(
            tx.op_id if tx.changes() else None,
            "undo",
            "undone",
            detail={"undo_of": operation_id, "of_kind": entry.get("kind"), "records": restored},
        )

    def operation(self, operation_id: str) -> dict[str, Any]:
        """Return the change-log entry of an operation: args, agent decisions, before/after."""
        self._maybe_refresh()
        entry = find_op(self.storage, operation_id)
        if entry is None:
            raise NotFoundError("operation", operation_id)
        return entry

    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        """Return the latest operations, newest first: op_id, kind, ts, args, change count."""
        self._maybe_refresh()
        entries = [
            {
                "op_id": e["op_id"],
                "kind": e.get("kind"),
                "ts": e.get("ts"),
                "args": e.get("args", {}),
                "changes": len(e.get("changes", [])),
                "undo_of": e.get("undo_of"),
            }
            for _, e in iter_log(self.storage)
        ]
        return entries[::-1][:limit]

    # -- files --------------------------------------------------------------------------------

    def compact_storage(self) -> CompactionReport:
        """Rewrite the JSONL files with only the latest live version of each record.

        The change log is kept whole: it holds the before-images undo and audits need.
        """
        started = time.perf_counter()
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            before = sum(self.storage.size(name) for name in DATA_FILES)
            blobs, offsets = compacted_blobs(self.storage, self.index)
            entry = self._system_entry("compact", {"bytes_before": before})
            self._commit = self.storage.replace(entry, blobs, self._commit)
            self.index.info_offsets = offsets
            write_checkpoint(self.path, self.index, self._commit, fsync=self.config.fsync)
            self._dirty = 0
            after = sum(len(blob) for blob in blobs.values())
            self._marks = read_marks(self.path)
            self._marks.compacted_bytes = after
            write_marks(self.path, self._marks)
        return CompactionReport(before, after, time.perf_counter() - started)

    def snapshot(self) -> str:
        """Write snapshots/snapshot_{ts}.tar.gz of the current state; return ts."""
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            blobs, _ = compacted_blobs(self.storage, self.index)
            meta = {
                "gen": self._commit.gen,
                "ends": self._commit.ends,
                "log_end": self._commit.log_end,
                "counts": {
                    "keywords": len(self.index.nodes),
                    "infos": len(self.index.info_offsets),
                },
            }
            return write_snapshot(self.path, blobs, meta)

    def _after_commit(self) -> None:
        """Take the periodic snapshot or compaction that is due, if any (see upkeep.py).

        The operation is committed by now: a failing upkeep step is logged, not raised, and
        is tried again after the next operation.
        """
        config, marks, commit = self.config, self._marks, self._commit
        if not (
            snapshot_due(config, marks, commit.log_end, commit.data_bytes)
            or compaction_due(config, marks, commit.data_bytes)
        ):
            return
        try:
            self._upkeep()
        except (OSError, KeywordTreeError) as exc:
            log.warning("keyword tree: periodic upkeep failed (retried later): %s", exc)

    def _upkeep(self) -> None:
        with self._mutex, self.storage.lock.hold():
            self._marks = read_marks(self.path)  # another process may have done it already
            if compaction_due(self.config, self._marks, self._commit.data_bytes):
                self.compact_storage()
            commit = self._commit  # compaction moved it
            if snapshot_due(self.config, self._marks, commit.log_end, commit.data_bytes):
                ts = self.snapshot()
                self._marks.auto_snapshots.append(ts)
                self._marks.snapshot_log_end = self._commit.log_end
                prune_auto_snapshots(self.path, self._marks, self.config.keep_auto_snapshots)
                write_marks(self.path, self._marks)

    def list_snapshots(self) -> list[str]:
        """Return the snapshot timestamps, oldest first."""
        return list_snapshots(self.path)

    def restore(self, ts: str) -> str:
        """Replace the current state with a snapshot ("latest" works); return the safety snapshot.

        A snapshot of the current state is taken first, so a restore can itself be
        reverted by restoring that one.
        """
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            ts = resolve_snapshot(self.path, ts)
            _, blobs = read_snapshot(self.path, ts)
            safety = self.snapshot()
            entry = self._system_entry("restore", {"snapshot": ts, "safety_snapshot": safety})
            self._commit = self.storage.replace(entry, blobs, self._commit)
            drop_checkpoint(self.path)
            self._load_locked()
            self.cache.clear()
        return safety

    def recover(self) -> LoadIssue:
        """Rebuild the data files from the latest snapshot plus the change log (seed 03 §七)."""
        with self._mutex, self.storage.lock.hold():
            self._sync_for_write()
            blobs, issue = rebuild_from_log(self.storage, self._commit)
            entry = self._system_entry("recover", {"requested": True})
            self._commit = self.storage.replace(entry, blobs, self._commit)
            drop_checkpoint(self.path)
            self._load_locked()
            self.cache.clear()
        return issue

    # -- health -------------------------------------------------------------------------------

    def tree_metrics(self, depth_limit: int = 6) -> TreeMetrics:
        """Return orphans, missing-description rate, over-deep subtrees and branching factors."""
        self._maybe_refresh()
        return tree_metrics(self.index, depth_limit)

    def reorganize(
        self, scope_id: str | None = None, *, agent: KeywordAgent | None = None
    ) -> ReorganizePlan:
        """Propose a reorganization plan (synchronous); see areorganize."""
        return run_sync(self.areorganize(scope_id, agent=agent))

    async def areorganize(
        self, scope_id: str | None = None, *, agent: KeywordAgent | None = None
    ) -> ReorganizePlan:
        """Propose a plan for the subtree at scope_id (None: everything).

        Rules always run (orphans go to the top, same-named siblings merge); an agent with
        a ``review_subtree(view) -> ReorganizeAdvice`` method adds its proposals.
        """
        self._maybe_refresh()
        return await build_plan(self, scope_id, self._agent_for(agent))  # type: ignore[arg-type]

    def apply_reorganize_plan(self, plan: ReorganizePlan) -> WriteResult:
        """Apply a plan as one undoable operation (refused if planned-on keywords changed)."""
        return apply_plan(self, plan)  # type: ignore[arg-type]
