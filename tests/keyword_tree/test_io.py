"""Import/export round trips (JSON, YAML, markdown) and deriving a tree from chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.keyword_tree.conftest import dump_state
from treerag.keyword_tree import (
    ChunkRecord,
    DuplicateError,
    InvalidInputError,
    KeywordTree,
    NotFoundError,
)


def _shape(tree: KeywordTree, with_ids: bool = True) -> list[tuple]:
    """Return (depth, name, description, aliases[, id]) in tree order."""
    out = []
    for node in tree.iter_keywords():
        row = (node.level, node.name, node.description, tuple(node.aliases))
        out.append(row + ((node.id,) if with_ids else ()))
    return out


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_json_yaml_round_trip_keeps_everything(
    tmp_path: Path, tree: KeywordTree, sample: dict[str, str], fmt: str
) -> None:
    tree.update_keyword(sample["Go"], {"metadata": {"year": 2009}, "aliases": ["golang"]})
    info = tree.create_info("GIL 文本", keyword_ids=[sample["GIL"]], source="a.md").info
    tree.link_info(info.id, sample["Go"], "RELATED")
    text = tree.export_tree(fmt, include_infos=True)
    other = KeywordTree(tmp_path / "copy")
    other.import_tree(text, fmt)
    assert dump_state(other) == dump_state(tree)
    assert other.export_tree(fmt, include_infos=True) == text
    other.close()


def test_markdown_round_trip_keeps_names_descriptions_order(
    tmp_path: Path, tree: KeywordTree, sample: dict[str, str]
) -> None:
    text = tree.export_tree("markdown")
    assert text.startswith(
        "- 技术: technology, computers and engineering\n  - 编程语言: programming languages\n"
    )
    other = KeywordTree(tmp_path / "copy")
    other.import_tree(text, "markdown")
    strip = lambda rows: [r[:3] for r in rows]  # noqa: E731 - aliases are not in markdown
    assert strip(_shape(other, with_ids=False)) == strip(_shape(tree, with_ids=False))
    assert other.export_tree("markdown") == text
    other.close()


def test_markdown_headings_and_bullets(tree: KeywordTree) -> None:
    outline = """# 技术：技术相关
Notes under the heading become its description.
## 编程语言
* Python: a language
    * GIL
+ Go
```
- not a keyword
```
# 生活
- 美食
"""
    tree.import_tree(outline, "markdown")
    rows = [(lvl, name, desc) for lvl, name, desc, *_ in _shape(tree, with_ids=False)]
    assert rows == [
        (0, "技术", "技术相关 Notes under the heading become its description."),
        (1, "编程语言", ""),
        (2, "Python", "a language"),
        (3, "GIL", ""),
        (2, "Go", ""),
        (0, "生活", ""),
        (1, "美食", ""),
    ]


def test_simple_yaml_mapping_and_import_is_idempotent(tree: KeywordTree) -> None:
    text = """
技术:
  编程语言: [Python, Go]
  网络: computer networks
生活: null
"""
    first = tree.import_tree(text, "yaml")
    assert len(first.ids) == 6
    assert tree.get_keyword(tree.exact_ids("网络")[0]).description == "computer networks"
    again = tree.import_tree(text, "yaml")
    assert again.operation_id is None and again.ids == []
    with pytest.raises(DuplicateError):
        tree.import_tree(text, "yaml", on_duplicate="error")
    skipped = tree.import_tree("技术:\n  新: x\n", "yaml", on_duplicate="skip")
    assert skipped.ids == []


def test_import_from_file_and_under_a_parent(
    tmp_path: Path, tree: KeywordTree, sample: dict[str, str]
) -> None:
    path = tmp_path / "t.md"
    path.write_text("- 数据库: databases\n  - SQL\n", encoding="utf-8")
    tree.import_tree(path, parent_id=sample["技术"])
    assert [n.name for n in tree.get_path(tree.exact_ids("sql")[0])] == ["技术", "数据库", "SQL"]
    with pytest.raises(InvalidInputError):
        tree.import_tree("{not json", "json")
    (tmp_path / "t.txt2").write_text("x")
    with pytest.raises(InvalidInputError, match="format"):
        tree.import_tree(tmp_path / "t.txt2")
    with pytest.raises(NotFoundError):
        tree.import_tree(tmp_path / "missing.md")


def test_derive_tree_from_chunks(tree: KeywordTree) -> None:
    records = [
        ChunkRecord(
            "docs/guide/intro.md", ["Getting started", "Install"], "c1", "pip install treerag"
        ),
        {
            "source_path": "docs/guide/intro.md",
            "heading_path": ["Getting started", "Install"],
            "chunk_id": "c2",
            "text": "then run it",
        },
        ("docs/guide/intro.md", ["FAQ"], "c3", "answers"),
        ("docs/api.md", [], "c 4", "the api"),
    ]
    result = tree.derive_from_chunks(records, root_name="corpus")
    assert result.detail["chunks"] == 4
    install = tree.exact_ids("install")[0]
    assert [n.name for n in tree.get_path(install)] == [
        "corpus",
        "docs",
        "guide",
        "intro.md",
        "Getting started",
        "Install",
    ]
    assert [h.info.id for h in tree.get_infos_of_keyword(install).items] == ["c1", "c2"]
    assert tree.get_info("c_4").metadata["chunk_id"] == "c 4"
    assert tree.get_keyword(install).description == "pip install treerag"
    before = dump_state(tree)
    again = tree.derive_from_chunks(records, root_name="corpus")
    assert again.operation_id is None and dump_state(tree) == before
    tree.derive_from_chunks([("docs/api.md", [], "c 4", "the new api")], root_name="corpus")
    assert tree.get_info("c_4").content == "the new api"
