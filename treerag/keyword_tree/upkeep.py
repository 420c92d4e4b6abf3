"""Periodic snapshots and compaction (seed 03 §3.2: 定期快照; §三: 定期 compaction).

After each committed operation the store compares two sizes it already holds in memory
with the marks of the last upkeep, so the check costs no I/O:

- a snapshot is due when the change log grew since the last automatic snapshot by
  `TreeConfig.snapshot_every_bytes`, or by `snapshot_log_ratio` times the data files if
  that is more (a snapshot writes the whole store, so its cost per write stays constant);
  only the newest `keep_auto_snapshots` automatic ones are kept (snapshots taken by hand
  or by `restore` are never pruned);
- compaction is due when the data files reach `compact_growth` times their size right after
  the last compaction (and at least `compact_min_bytes`): superseded versions and deleted
  records have piled up, or the store doubled, either way a rewrite costs amortised O(1)
  per operation.

The marks live in snapshots/upkeep.json so that every process sharing the store works
from the same ones; a due step re-reads them under the write lock, so two processes never
both take the same snapshot.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from treerag.keyword_tree.config import TreeConfig
from treerag.keyword_tree.snapshots import snapshot_name

STATE_FILE = "upkeep.json"


@dataclass(slots=True)
class UpkeepMarks:
    """Where the last automatic snapshot and the last compaction left the store."""

    snapshot_log_end: int = 0
    """Change-log size when the last automatic snapshot was taken."""
    compacted_bytes: int = 0
    """Data-file bytes right after the last compaction (0: never compacted)."""
    auto_snapshots: list[str] = field(default_factory=list)
    """Timestamps of the automatic snapshots still kept, oldest first."""


def marks_path(root: Path) -> Path:
    """The marks file of the store at root."""
    return root / "snapshots" / STATE_FILE


def read_marks(root: Path) -> UpkeepMarks:
    """Read the marks; a missing or unreadable file means no upkeep has happened yet."""
    try:
        raw: dict[str, Any] = orjson.loads(marks_path(root).read_bytes())
        return UpkeepMarks(
            snapshot_log_end=int(raw.get("snapshot_log_end", 0)),
            compacted_bytes=int(raw.get("compacted_bytes", 0)),
            auto_snapshots=[str(ts) for ts in raw.get("auto_snapshots", [])],
        )
    except (OSError, ValueError, TypeError, AttributeError):
        return UpkeepMarks()


def write_marks(root: Path, marks: UpkeepMarks) -> None:
    """Replace the marks file atomically."""
    target = marks_path(root)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps(asdict(marks)))
    os.replace(tmp, target)


def snapshot_due(config: TreeConfig, marks: UpkeepMarks, log_end: int, data_bytes: int) -> bool:
    """Whether the change log grew enough since the last automatic snapshot."""
    every = config.snapshot_every_bytes
    if every <= 0:
        return False
    return log_end - marks.snapshot_log_end >= max(every, config.snapshot_log_ratio * data_bytes)


def compaction_due(config: TreeConfig, marks: UpkeepMarks, data_bytes: int) -> bool:
    """Whether the data files grew enough since they were last compacted."""
    growth = config.compact_growth
    if growth <= 0 or data_bytes < config.compact_min_bytes:
        return False
    return data_bytes >= growth * marks.compacted_bytes


def prune_auto_snapshots(root: Path, marks: UpkeepMarks, keep: int) -> list[str]:
    """Delete the oldest automatic snapshots beyond `keep`; return the timestamps removed."""
    excess = marks.auto_snapshots[: max(0, len(marks.auto_snapshots) - max(keep, 1))]
    for ts in excess:
        (root / "snapshots" / snapshot_name(ts)).unlink(missing_ok=True)
    marks.auto_snapshots = marks.auto_snapshots[len(excess) :]
    return excess
