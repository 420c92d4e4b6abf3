"""Undo of every write kind restores the exact previous state (seed 03 §5.8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.keyword_tree.conftest import dump_state
from treerag.keyword_tree import HeuristicAgent, KeywordTree, UndoError, WriteResult

Op = Callable[[KeywordTree, dict[str, str]], WriteResult]


def _with_info(tree: KeywordTree, ids: dict[str, str]) -> str:
    return tree.create_info("GIL 与线程", keyword_ids=[ids["GIL"]], source="a.md").info.id


OPS: dict[str, Op] = {
    "create_keyword": lambda t, i: t.create_keyword("Rust", parent_id=i["编程语言"]),
    "update_keyword": lambda t, i: t.update_keyword(
        i["Go"], {"name": "Golang", "description": "d"}
    ),
    "add_alias": lambda t, i: t.add_alias(i["Go"], "golang"),
    "remove_alias": lambda t, i: t.remove_alias(i["Python"], "py"),
    "move_keyword": lambda t, i: t.move_keyword(i["Python"], i["生活"]),
    "merge_reattach": lambda t, i: t.merge_keywords(i["编程语言"], i["网络"]),
    "merge_flatten": lambda t, i: t.merge_keywords(i["编程语言"], i["生活"], children="flatten"),
    "delete_cascade_reattach": lambda t, i: t.delete_keyword(i["Python"], cascade=True),
    "delete_cascade_unlink": lambda t, i: t.delete_keyword(
        i["技术"], cascade=True, info_policy="unlink"
    ),
    "create_info": lambda t, i: t.create_info(
        "Go 和 Python", keyword_ids=[i["Go"]], auto_link=True
    ),
    "update_info": lambda t, i: t.update_info(
        _first_info(t), {"content": "changed", "metadata": {"k": 1}}
    ),
    "delete_info": lambda t, i: t.delete_info(_first_info(t)),
    "link_info": lambda t, i: t.link_info(_first_info(t), i["Go"], "PRIMARY"),
    "relink_info": lambda t, i: t.link_info(_first_info(t), i["GIL"], "RELATED"),
    "unlink_info": lambda t, i: t.unlink_info(_first_info(t), i["GIL"]),
    "batch_create_keywords": lambda t, i: t.batch_create_keywords(
        [{"name": "A", "id": "a"}, {"name": "B", "parent_id": "a"}]
    ),
    "batch_create_infos": lambda t, i: t.batch_create_infos(
        [{"content": "x", "keyword_ids": [i["Go"]]}]
    ),
    "batch_link": lambda t, i: t.batch_link([(_first_info(t), i["Go"], "RELATED")]),
    "import_tree": lambda t, i: t.import_tree("- 技术\n  - 数据库: db\n- 新根", "markdown"),
    "derive_tree": lambda t, i: t.derive_from_chunks([("docs/a.md", ["Intro"], "c1", "hello")]),
    "reorganize": lambda t, i: t.apply_reorganize_plan(t.reorganize(agent=HeuristicAgent())),
    "dedup_alias": lambda t, i: t.create_keyword("wangluo", agent=HeuristicAgent()),
}


def _first_info(tree: KeywordTree) -> str:
    return next(iter(tree.index.info_offsets))


@pytest.mark.parametrize("name", sorted(OPS))
def test_undo_restores_previous_state(
    store_dir: Any, tree: KeywordTree, sample: dict[str, str], name: str
) -> None:
    _with_info(tree, sample)
    if name == "reorganize":  # give the rules something to do: siblings sharing a form
        tree.create_keyword("Beijing", parent_id=sample["生活"])
        tree.create_keyword("北京", parent_id=sample["生活"])
    before = dump_state(tree)
    result = OPS[name](tree, sample)
    assert result.operation_id is not None
    after = dump_state(tree)
    assert after != before, "the operation must change something"
    undo = tree.undo(result.operation_id)
    assert dump_state(tree) == before
    tree.close()
    reopened = KeywordTree(store_dir)
    assert dump_state(reopened) == before
    # an undo is an operation too: undoing it redoes the original
    reopened.undo(undo.operation_id)
    assert dump_state(reopened) == after
    reopened.close()


def test_undo_refuses_when_a_later_operation_touched_the_records(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    first = tree.update_keyword(sample["Go"], {"description": "one"})
    tree.update_keyword(sample["Go"], {"description": "two"})
    with pytest.raises(UndoError, match="later operation"):
        tree.undo(first.operation_id)
    assert tree.get_keyword(sample["Go"]).description == "two"


def test_undo_refuses_to_orphan_children(tree: KeywordTree) -> None:
    parent = tree.create_keyword("P")
    tree.create_keyword("C", parent_id=parent.node.id)
    with pytest.raises(UndoError):
        tree.undo(parent.operation_id)
    assert tree.counts()["keywords"] == 2


def test_undo_refuses_a_move_that_would_make_a_cycle(tree: KeywordTree) -> None:
    a = tree.create_keyword("A").node
    b = tree.create_keyword("B", parent_id=a.id).node
    moved = tree.move_keyword(b.id, None)  # B leaves A
    tree.move_keyword(a.id, b.id)  # now A sits under B
    with pytest.raises(UndoError, match="ancestor"):
        tree.undo(moved.operation_id)


def test_compaction_cannot_be_undone_but_history_lists_it(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    tree.compact_storage()
    op = tree.history(1)[0]
    assert op["kind"] == "compact"
    with pytest.raises(UndoError):
        tree.undo(op["op_id"])
