"""Files, recovery, compaction, snapshots and checkpoints (seed 03 §三, §七)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from tests.keyword_tree.conftest import dump_state
from treerag.keyword_tree import CorruptRecordError, KeywordTree, NotFoundError, TreeConfig


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def test_layout_matches_the_seed(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    tree.create_info("x", keyword_ids=[sample["Go"]])
    tree.write_checkpoint()
    tree.close()
    for rel in [
        "keywords/nodes.jsonl",
        "infos/infos.jsonl",
        "infos/index.json",
        "links/links.jsonl",
        "indexes/inverted.json",
        "indexes/children.json",
        "indexes/info_by_kw.json",
        "indexes/kw_by_info.json",
        "logs/change_log.jsonl",
        "cache/exact_cache.json",
        "cache/descend_cache.json",
        "cache/agent_decision.json",
    ]:
        assert (store_dir / rel).is_file(), rel
    assert (store_dir / "snapshots").is_dir()


def test_updates_append_versions_and_soft_delete(store_dir: Path, tree: KeywordTree) -> None:
    node = tree.create_keyword("A").node
    tree.update_keyword(node.id, {"description": "d"})
    tree.delete_keyword(node.id)
    records = [orjson.loads(line) for line in _lines(store_dir / "keywords/nodes.jsonl")]
    assert [(r["id"], r["version"], r["deleted"]) for r in records] == [
        (node.id, 1, False),
        (node.id, 2, False),
        (node.id, 3, True),
    ]


def test_corrupt_line_is_reported_and_the_rest_loads(store_dir: Path, tree: KeywordTree) -> None:
    ids = [tree.create_keyword(f"k{i}").node.id for i in range(5)]
    info = tree.create_info("body", keyword_ids=ids[:2]).info
    tree.close()
    path = store_dir / "keywords/nodes.jsonl"
    data = bytearray(path.read_bytes())
    third = data.index(b"\n", data.index(b"\n") + 1) + 1  # start of line 3
    data[third : third + 6] = b"#####!"  # same length: offsets stay valid
    path.write_bytes(bytes(data))
    links = store_dir / "links/links.jsonl"
    lines = _lines(links)
    links.write_bytes(lines[0] + b"\n" + b"{broken" + b" " * (len(lines[1]) - 7) + b"\n")

    reopened = KeywordTree(store_dir)
    messages = [str(i) for i in reopened.issues]
    assert any(m.startswith(f"{path}:3: not valid JSON") for m in messages), messages
    assert any(m.startswith(f"{links}:2: not valid JSON") for m in messages), messages
    assert sorted(reopened.index.nodes) == sorted(ids[:2] + ids[3:])
    assert reopened.get_info(info.id).content == "body"
    assert len(reopened.get_keywords_of_info(info.id)) == 1
    reopened.create_keyword("still writable")
    reopened.close()


def test_corrupt_info_body_raises_with_file_and_line(store_dir: Path, tree: KeywordTree) -> None:
    tree.create_info("first")
    second = tree.create_info("second").info
    tree.write_checkpoint()  # infos then load lazily, by offset
    tree.close()
    path = store_dir / "infos/infos.jsonl"
    lines = _lines(path)
    lines[1] = lines[1][:-3] + b"!!!"
    path.write_bytes(b"\n".join(lines) + b"\n")
    reopened = KeywordTree(store_dir)
    with pytest.raises(CorruptRecordError) as err:
        reopened.get_info(second.id)
    assert err.value.line == 2 and err.value.path == str(path)
    reopened.close()


def test_torn_tail_of_a_crashed_writer_is_discarded(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    before = dump_state(tree)
    tree.close()
    with open(store_dir / "keywords/nodes.jsonl", "ab") as fh:  # records without a commit marker
        fh.write(b'{"id":"kw_ghost","name":"ghost","aliases":[],"normalized":["ghost"],')
    reopened = KeywordTree(store_dir)
    assert dump_state(reopened) == before
    assert any("uncommitted" in str(i) for i in reopened.issues)
    assert not (store_dir / "keywords/nodes.jsonl").read_bytes().endswith(b",")
    reopened.close()


def test_lost_data_file_is_rebuilt_from_snapshot_and_log(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    tree.create_info("x", keyword_ids=[sample["Go"]])
    tree.snapshot()
    tree.move_keyword(sample["Go"], sample["生活"])
    tree.create_keyword("after snapshot")
    before = dump_state(tree)
    tree.close()
    os.unlink(store_dir / "keywords/nodes.jsonl")
    (store_dir / "links/links.jsonl").write_bytes(b"")
    reopened = KeywordTree(store_dir)
    assert dump_state(reopened) == before
    assert any("rebuilt from snapshot" in str(i) for i in reopened.issues)
    reopened.close()


def test_compaction_drops_old_versions(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    for i in range(5):
        tree.update_keyword(sample["Go"], {"description": f"v{i}"})
    tree.delete_keyword(sample["美食"])
    info = tree.create_info("keep me", keyword_ids=[sample["Go"]]).info
    tree.update_info(info.id, {"content": "kept"})
    before = dump_state(tree)
    report = tree.compact_storage()
    assert report.bytes_after < report.bytes_before
    assert len(_lines(store_dir / "keywords/nodes.jsonl")) == 7
    assert dump_state(tree) == before
    tree.create_info("after compaction", keyword_ids=[sample["Go"]])
    after = dump_state(tree)
    tree.close()
    assert dump_state(KeywordTree(store_dir)) == after


def test_snapshot_and_restore(store_dir: Path, sample: dict[str, str], tree: KeywordTree) -> None:
    ts = tree.snapshot()
    before = dump_state(tree)
    tree.delete_keyword(sample["技术"], cascade=True, info_policy="unlink")
    safety = tree.restore(ts)
    assert dump_state(tree) == before
    assert set(tree.list_snapshots()) == {ts, safety}
    with pytest.raises(NotFoundError):
        tree.restore("19990101T000000000000Z")
    tree.close()
    assert dump_state(KeywordTree(store_dir)) == before


def test_checkpoint_cold_start_equals_full_rebuild(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    tree.create_info("a", keyword_ids=[sample["Go"], sample["GIL"]])
    tree.write_checkpoint()
    tree.move_keyword(sample["GIL"], sample["Go"])  # after the checkpoint: replayed as tail
    tree.create_info("b", keyword_ids=[sample["GIL"]])
    tree.close()
    with_ckpt = KeywordTree(store_dir)
    state = dump_state(with_ckpt)
    with_ckpt.close()
    (store_dir / "indexes/manifest.json").unlink()
    without = KeywordTree(store_dir)
    assert dump_state(without) == state
    without.close()


def test_mismatched_checkpoint_parts_are_ignored(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    tree.write_checkpoint()
    state = dump_state(tree)
    tree.close()
    path = store_dir / "indexes/children.json"
    payload = orjson.loads(path.read_bytes())
    payload["checkpoint"] = "other"
    payload["data"] = {}
    path.write_bytes(orjson.dumps(payload))
    again = KeywordTree(store_dir)
    assert dump_state(again) == state
    again.close()


def test_interrupted_file_replacement_rolls_forward(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    before = dump_state(tree)
    from treerag.keyword_tree.snapshots import compacted_blobs

    blobs, _ = compacted_blobs(tree.storage, tree.index)
    entry = tree._system_entry("compact", {})

    def crash() -> None:
        raise KeyboardInterrupt  # the process dies between the log marker and the renames

    with pytest.raises(KeyboardInterrupt):
        tree.storage.replace(entry, blobs, tree._commit, before_rename=crash)
    tree.storage.close()
    tree._closed = True
    assert (store_dir / "keywords/nodes.jsonl.tmp").exists()
    reopened = KeywordTree(store_dir)
    assert dump_state(reopened) == before
    assert reopened._commit.gen == 1 and not (store_dir / "keywords/nodes.jsonl.tmp").exists()
    reopened.close()


def test_other_instance_writes_are_picked_up(
    store_dir: Path, sample: dict[str, str], tree: KeywordTree
) -> None:
    other = KeywordTree(store_dir)
    made = other.create_keyword("from other", parent_id=sample["Go"]).node
    assert tree.get_keyword(made.id).name == "from other"  # auto-refresh before a read
    assert [n.name for n in tree.get_children(sample["Go"])] == ["from other"]
    info = tree.create_info("written before compaction", keyword_ids=[made.id]).info
    tree.compact_storage()  # a new generation: the other instance must reopen its files
    tree.create_keyword("after compact")
    assert other.exact_lookup("after compact")
    assert other.get_info(info.id).content == "written before compaction"
    late = other.create_info("written by other after compaction", keyword_ids=[made.id]).info
    assert tree.get_info(late.id).content == "written by other after compaction"
    state = dump_state(tree)
    other.close()
    tree.close()
    fresh = KeywordTree(store_dir)
    assert dump_state(fresh) == state and fresh.issues == []
    fresh.close()


def test_no_fsync_option_still_persists_on_close(tmp_path: Path) -> None:
    t = KeywordTree(tmp_path / "s", config=TreeConfig(fsync=False))
    t.create_keyword("x")
    t.close()
    assert KeywordTree(tmp_path / "s").exact_lookup("x")


def test_closed_store_refuses_writes(tree: KeywordTree) -> None:
    from treerag.keyword_tree import KeywordTreeError

    tree.close()
    with pytest.raises(KeywordTreeError, match="closed"):
        tree.create_keyword("x")
