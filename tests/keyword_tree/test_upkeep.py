"""Periodic snapshots and compaction (seed 03: 定期快照, 定期 compaction)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.keyword_tree.conftest import dump_state
from treerag.keyword_tree import KeywordTree, TreeConfig
from treerag.keyword_tree import maintenance as maintenance_module
from treerag.keyword_tree.upkeep import UpkeepMarks, read_marks, snapshot_due


def _data_bytes(store: Path) -> int:
    return sum(
        (store / rel).stat().st_size
        for rel in ("keywords/nodes.jsonl", "infos/infos.jsonl", "links/links.jsonl")
    )


def test_snapshots_are_taken_as_the_log_grows_and_old_automatic_ones_pruned(
    store_dir: Path,
) -> None:
    config = TreeConfig(fsync=False, snapshot_every_bytes=4000, keep_auto_snapshots=2)
    tree = KeywordTree(store_dir, config=config)
    manual = tree.snapshot()
    taken: list[str] = []
    states: dict[str, dict] = {}
    for i in range(60):
        tree.create_keyword(f"keyword {i}", description="d" * 40)
        marks = read_marks(store_dir)
        if marks.auto_snapshots and marks.auto_snapshots[-1] not in taken:
            taken.append(marks.auto_snapshots[-1])
            states[taken[-1]] = dump_state(tree)
    assert len(taken) >= 3  # ~10 KB of change log at 4 KB per snapshot
    kept = tree.list_snapshots()
    assert manual in kept  # a snapshot taken by hand is never pruned
    assert set(kept) - {manual} == set(taken[-2:])
    assert read_marks(store_dir).auto_snapshots == taken[-2:]
    # An automatic snapshot restores the state right after the write that triggered it.
    tree.restore(taken[-1])
    assert dump_state(tree) == states[taken[-1]]
    tree.close()


def test_compaction_keeps_a_store_of_rewritten_records_bounded(store_dir: Path) -> None:
    config = TreeConfig(
        fsync=False, snapshot_every_bytes=0, compact_growth=2.0, compact_min_bytes=6000
    )
    tree = KeywordTree(store_dir, config=config)
    node = tree.create_keyword("drifting", description="v0").node
    peak = 0
    for i in range(1, 150):
        tree.update_keyword(node.id, {"description": f"version {i} " + "x" * 60})
        peak = max(peak, _data_bytes(store_dir))
    # Without compaction 150 versions of ~200 bytes would be ~30 KB.
    assert peak < 2 * 6000 + 400
    assert read_marks(store_dir).compacted_bytes > 0
    before = dump_state(tree)
    assert tree.get_keyword(node.id).description.startswith("version 149 ")
    tree.close()
    assert dump_state(KeywordTree(store_dir, config=config)) == before


def test_zero_turns_periodic_upkeep_off(store_dir: Path) -> None:
    config = TreeConfig(fsync=False, snapshot_every_bytes=0, compact_growth=0, compact_min_bytes=0)
    tree = KeywordTree(store_dir, config=config)
    node = tree.create_keyword("steady").node
    for i in range(40):
        tree.update_keyword(node.id, {"description": f"v{i}"})
    assert tree.list_snapshots() == []
    assert read_marks(store_dir).compacted_bytes == 0
    tree.close()


def test_two_handles_on_one_store_take_each_snapshot_once(store_dir: Path) -> None:
    config = TreeConfig(fsync=False, snapshot_every_bytes=3000, keep_auto_snapshots=50)
    first = KeywordTree(store_dir, config=config)
    second = KeywordTree(store_dir, config=config)
    for i in range(40):
        (first if i % 2 else second).create_keyword(f"shared {i}")
    auto = read_marks(store_dir).auto_snapshots
    assert len(auto) >= 2
    assert sorted(first.list_snapshots()) == sorted(auto)  # no duplicate snapshots
    first.close()
    second.close()


def test_a_failing_snapshot_does_not_fail_the_write(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def disk_full(*args: object, **kwargs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(maintenance_module, "write_snapshot", disk_full)
    tree = KeywordTree(store_dir, config=TreeConfig(fsync=False, snapshot_every_bytes=1))
    with caplog.at_level(logging.WARNING, logger="treerag.keyword_tree"):
        created = tree.create_keyword("still written")
    assert tree.get_keyword(created.node.id).name == "still written"
    assert "periodic upkeep failed" in caplog.text and "No space left" in caplog.text
    tree.close()


def test_a_large_store_waits_for_a_store_size_of_change_log() -> None:
    config = TreeConfig(snapshot_every_bytes=1000, snapshot_log_ratio=1.0)
    marks = UpkeepMarks(snapshot_log_end=500)
    assert snapshot_due(config, marks, log_end=1500, data_bytes=800)
    assert not snapshot_due(config, marks, log_end=1500, data_bytes=5000)
    assert snapshot_due(config, marks, log_end=5500, data_bytes=5000)
    assert not snapshot_due(TreeConfig(snapshot_every_bytes=0), marks, 10**9, 0)
