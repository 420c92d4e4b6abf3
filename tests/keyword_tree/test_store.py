"""Keyword and info writes, reads, and the errors bad input gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from treerag.keyword_tree import (
    ConflictError,
    CycleError,
    DuplicateError,
    InvalidInputError,
    KeywordTree,
    NotFoundError,
    VersionConflictError,
)


def test_create_and_read_back(tree: KeywordTree, sample: dict[str, str]) -> None:
    gil = tree.get_keyword(sample["GIL"])
    assert gil.level == 3
    assert gil.parent_id == sample["Python"]
    assert [n.name for n in tree.get_path(gil.id)] == ["技术", "编程语言", "Python", "GIL"]
    assert [n.name for n in tree.get_children(sample["编程语言"])] == ["Python", "Go"]
    assert [n.name for n in tree.get_roots()] == ["技术", "生活"]
    assert tree.get_keyword(sample["编程语言"]).children == [sample["Python"], sample["Go"]]
    assert tree.get_keyword(sample["Python"]).version == 1


def test_unknown_ids_raise_not_found(tree: KeywordTree, sample: dict[str, str]) -> None:
    for call in (
        lambda: tree.get_keyword("kw_nope"),
        lambda: tree.get_children("kw_nope"),
        lambda: tree.create_keyword("x", parent_id="kw_nope"),
        lambda: tree.move_keyword("kw_nope", None),
        lambda: tree.merge_keywords("kw_nope", sample["Go"]),
        lambda: tree.delete_keyword("kw_nope"),
        lambda: tree.get_info("info_nope"),
        lambda: tree.link_info("info_nope", sample["Go"]),
        lambda: tree.undo("op_nope"),
    ):
        with pytest.raises(NotFoundError):
            call()


def test_duplicate_name_under_same_parent(tree: KeywordTree, sample: dict[str, str]) -> None:
    with pytest.raises(DuplicateError) as err:
        tree.create_keyword("python", parent_id=sample["编程语言"])  # differs only by case
    assert err.value.existing_id == sample["Python"]
    tree.create_keyword("Python", parent_id=sample["生活"])  # another parent is fine
    with pytest.raises(DuplicateError):
        tree.update_keyword(sample["Go"], {"name": "PYTHON"})
    with pytest.raises(DuplicateError):
        tree.create_keyword("技術")  # traditional form of an existing root


def test_move_refuses_cycles_and_clashes(tree: KeywordTree, sample: dict[str, str]) -> None:
    with pytest.raises(CycleError):
        tree.move_keyword(sample["技术"], sample["GIL"])
    with pytest.raises(CycleError):
        tree.move_keyword(sample["Python"], sample["Python"])
    tree.create_keyword("GIL", parent_id=sample["生活"])
    with pytest.raises(DuplicateError):
        tree.move_keyword(sample["GIL"], sample["生活"])
    moved = tree.move_keyword(sample["Python"], sample["生活"])
    assert moved.action == "moved"
    assert tree.get_keyword(sample["GIL"]).level == 2


def test_stale_version_is_a_clear_conflict(tree: KeywordTree, sample: dict[str, str]) -> None:
    node = tree.get_keyword(sample["Go"])
    tree.update_keyword(node.id, {"description": "new"}, version=node.version)
    with pytest.raises(VersionConflictError) as err:
        tree.update_keyword(node.id, {"description": "newer"}, version=node.version)
    assert "version 2" in str(err.value) and "version 1" in str(err.value)
    assert tree.get_keyword(node.id).description == "new"


def test_bad_arguments(tree: KeywordTree, sample: dict[str, str]) -> None:
    for call in (
        lambda: tree.create_keyword("   "),
        lambda: tree.create_keyword("!!!"),
        lambda: tree.create_keyword("a\nb"),
        lambda: tree.create_keyword("x", aliases="notalist"),  # type: ignore[arg-type]
        lambda: tree.create_keyword("x", metadata={"bad": object()}),
        lambda: tree.update_keyword(sample["Go"], {"parent_id": None}),
        lambda: tree.delete_keyword(sample["Go"], info_policy="burn"),  # type: ignore[arg-type]
        lambda: tree.create_info("  "),
    ):
        with pytest.raises(InvalidInputError):
            call()
    assert tree.counts()["keywords"] == 8


def test_aliases(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.add_alias(sample["Go"], "Golang")
    assert [n.id for n in tree.exact_lookup("golang")] == [sample["Go"]]
    unchanged = tree.add_alias(sample["Go"], "GOLANG")
    assert unchanged.operation_id is None and unchanged.action == "unchanged"
    tree.remove_alias(sample["Go"], "golang")
    assert tree.exact_lookup("golang") == []
    with pytest.raises(NotFoundError):
        tree.remove_alias(sample["Go"], "golang")


def test_infos_links_and_paging(tree: KeywordTree, sample: dict[str, str]) -> None:
    py = sample["Python"]
    ids = [
        tree.create_info(
            f"note {i}", keyword_ids=[py], relation="PRIMARY" if i % 2 else "RELATED"
        ).info.id
        for i in range(7)
    ]
    page0 = tree.get_infos_of_keyword(py, size=3)
    assert page0.total == 7 and [h.info.id for h in page0.items] == ids[:3]
    page2 = tree.get_infos_of_keyword(py, page=2, size=3)
    assert [h.info.id for h in page2.items] == ids[6:]
    primary = tree.get_infos_of_keyword(py, relation="PRIMARY")
    assert [h.info.id for h in primary.items] == ids[1::2]
    assert {h.relation for h in primary.items} == {"PRIMARY"}
    tree.link_info(ids[0], sample["Go"])
    hits = tree.get_keywords_of_info(ids[0])
    assert sorted((h.keyword.name, h.relation) for h in hits) == [
        ("Go", "RELATED"),
        ("Python", "RELATED"),
    ]
    tree.unlink_info(ids[0], py)
    assert tree.get_infos_of_keyword(py).total == 6
    with pytest.raises(NotFoundError):
        tree.unlink_info(ids[0], py)
    with pytest.raises(InvalidInputError):
        tree.link_info(ids[0], py, relation="FRIEND")


def test_update_and_delete_info(tree: KeywordTree, sample: dict[str, str]) -> None:
    info = tree.create_info("old text", keyword_ids=[sample["Go"]], source="a.md").info
    updated = tree.update_info(info.id, {"content": "new text"}, version=1)
    assert updated.info.content == "new text" and updated.info.version == 2
    with pytest.raises(VersionConflictError):
        tree.update_info(info.id, {"content": "x"}, version=1)
    assert tree.get_infos_of_keyword(sample["Go"]).items[0].info.content == "new text"
    tree.delete_info(info.id)
    with pytest.raises(NotFoundError):
        tree.get_info(info.id)
    assert tree.get_infos_of_keyword(sample["Go"]).total == 0


def test_merge_moves_aliases_links_children(tree: KeywordTree, sample: dict[str, str]) -> None:
    golang = tree.create_keyword("Golang", parent_id=sample["技术"], aliases=["go语言"]).node
    sub = tree.create_keyword("goroutine", parent_id=golang.id).node
    tree.create_keyword("goroutine", parent_id=sample["Go"])  # same-named child on both sides
    info = tree.create_info("channels", keyword_ids=[golang.id]).info
    tree.link_info(info.id, sample["Go"], "RELATED")
    result = tree.merge_keywords(golang.id, sample["Go"])
    go = result.node
    assert go is not None and {"Golang", "go语言"} <= set(go.aliases)
    assert not tree.has_keyword(golang.id) and not tree.has_keyword(sub.id)  # twin merged
    assert [n.name for n in tree.get_children(go.id)] == ["goroutine"]
    assert [(h.keyword.id, h.relation) for h in tree.get_keywords_of_info(info.id)] == [
        (go.id, "PRIMARY")
    ]
    assert [n.id for n in tree.exact_lookup("golang")] == [go.id]
    with pytest.raises(CycleError):
        tree.merge_keywords(sample["技术"], sample["GIL"])
    with pytest.raises(InvalidInputError):
        tree.merge_keywords(go.id, go.id)


def test_merge_into_the_parent_keeps_a_child_named_like_the_merged_keyword(
    tree: KeywordTree, sample: dict[str, str], store_dir: Path
) -> None:
    # 技术 > 编程语言 > 编程语言 (a same-named child) > Rust: merge the middle one upwards.
    inner = tree.create_keyword("编程语言", parent_id=sample["编程语言"]).node
    rust = tree.create_keyword("Rust", parent_id=inner.id).node
    tree.merge_keywords(sample["编程语言"], sample["技术"])
    assert not tree.has_keyword(sample["编程语言"])
    assert tree.get_keyword(inner.id).parent_id == sample["技术"]
    assert [n.name for n in tree.get_path(rust.id)] == ["技术", "编程语言", "Rust"]
    assert not tree.index.children.get(sample["编程语言"])  # nothing hangs off the merged one
    tree.close()
    reopened = KeywordTree(store_dir)
    assert [n.name for n in reopened.get_path(rust.id)] == ["技术", "编程语言", "Rust"]
    reopened.close()


def test_merge_flatten(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.merge_keywords(sample["编程语言"], sample["生活"], children="flatten")
    names = sorted(n.name for n in tree.get_children(sample["生活"]))
    assert names == ["GIL", "Go", "Python", "美食"]
    assert tree.get_children(sample["Python"]) == []


def test_delete_policies(tree: KeywordTree, sample: dict[str, str]) -> None:
    info = tree.create_info("gil text", keyword_ids=[sample["GIL"]]).info
    with pytest.raises(ConflictError):
        tree.delete_keyword(sample["Python"])  # has a child, no cascade
    with pytest.raises(ConflictError):
        tree.delete_keyword(sample["Python"], cascade=True, info_policy="forbid")
    result = tree.delete_keyword(sample["Python"], cascade=True, info_policy="reattach")
    assert set(result.ids) == {sample["Python"], sample["GIL"]}
    assert [h.keyword.id for h in tree.get_keywords_of_info(info.id)] == [sample["编程语言"]]
    tree.delete_keyword(sample["编程语言"], cascade=True, info_policy="unlink")
    assert tree.get_keywords_of_info(info.id) == []
    assert tree.get_info(info.id).content == "gil text"  # the info itself stays
    tree.link_info(info.id, sample["生活"])
    with pytest.raises(InvalidInputError):
        tree.delete_keyword(sample["生活"], cascade=True)  # a root has no parent to reattach to


def test_batches_are_one_operation(tree: KeywordTree) -> None:
    result = tree.batch_create_keywords(
        [{"name": "A", "id": "a"}, {"name": "B", "parent_id": "a"}, {"name": "C", "parent_id": "a"}]
    )
    assert len(result.ids) == 3 and tree.get_keyword(result.ids[1]).parent_id == "a"
    infos = tree.batch_create_infos([{"content": "x", "keyword_ids": ["a"]}, {"content": "y"}])
    assert tree.get_infos_of_keyword("a").total == 1
    tree.undo(infos.operation_id)
    tree.undo(result.operation_id)
    assert tree.counts() == {"keywords": 0, "infos": 0, "links": 0}
    with pytest.raises(DuplicateError):
        tree.batch_create_keywords([{"name": "A"}, {"name": "a"}])
    assert tree.counts()["keywords"] == 0  # the failed batch left nothing behind


def test_reopen_keeps_everything(store_dir, sample: dict[str, str], tree: KeywordTree) -> None:
    from tests.keyword_tree.conftest import dump_state

    tree.create_info("text", keyword_ids=[sample["Go"]])
    tree.move_keyword(sample["Go"], sample["生活"])
    before = dump_state(tree)
    tree.close()
    again = KeywordTree(store_dir)
    assert dump_state(again) == before
    assert again.issues == []
    again.close()


def test_yaml_with_a_single_top_keyword_imports_as_one_tree(tmp_path):
    from treerag.keyword_tree import KeywordTree

    source = tmp_path / "tree.yaml"
    source.write_text(
        "name: World\ndescription: everything\nchildren:\n"
        "  - name: Places\n    children:\n      - name: Quillhaven\n",
        encoding="utf-8",
    )
    tree = KeywordTree(tmp_path / "kt")
    tree.import_tree(source)
    names = sorted(n.name for n in tree.iter_keywords())
    assert names == ["Places", "Quillhaven", "World"]
    [quill] = tree.exact_lookup("Quillhaven")
    assert [n.name for n in tree.get_path(quill.id)] == ["World", "Places", "Quillhaven"]
    tree.close()


def test_renormalize_writes_todays_forms_of_keywords_written_by_older_rules(
    tree: KeywordTree, sample: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from treerag.keyword_tree import keyword_ops

    # An older release that folded names otherwise: its forms are stored with the keyword.
    monkeypatch.setattr(keyword_ops, "normalized_forms", lambda name, aliases=(): [f"~{name}"])
    rust = tree.create_keyword("Rust", parent_id=sample["编程语言"]).node.id
    monkeypatch.undo()
    assert tree.exact_lookup("Rust") == []

    done = tree.renormalize()
    assert done.detail == {"keywords": 1} and done.operation_id
    assert [n.id for n in tree.exact_lookup("rust")] == [rust]
    assert [n.id for n in tree.exact_lookup("Python")] == [sample["Python"]]  # others as they were
    assert tree.renormalize().operation_id is None  # nothing left to write

    tree.undo(done.operation_id)
    assert tree.exact_lookup("Rust") == []
