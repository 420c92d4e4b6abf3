"""Fixtures for the keyword tree tests: stores, a sample tree, a state dump."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from treerag.keyword_tree import KeywordTree, TreeConfig
from treerag.keyword_tree.indexes import unpack_link


def dump_state(tree: KeywordTree) -> dict[str, Any]:
    """Return the content of a store (no versions or timestamps) for comparisons."""
    tree.refresh()
    index = tree.index
    nodes = {
        node_id: (
            rec["name"],
            tuple(rec["aliases"]),
            rec["parent_id"],
            rec["description"],
            json.dumps(rec["metadata"], sort_keys=True),
        )
        for node_id, rec in index.nodes.items()
    }
    infos = {}
    for info_id in index.info_offsets:
        info = tree.get_info(info_id)
        infos[info_id] = (info.content, info.source, json.dumps(info.metadata, sort_keys=True))
    links = {
        (info_id, kw): unpack_link(packed)[0]
        for info_id, by_kw in index.kw_by_info.items()
        for kw, packed in by_kw.items()
    }
    children = {key: list(ids) for key, ids in index.children.items() if ids}
    return {"nodes": nodes, "infos": infos, "links": links, "children": children}


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "kt"


@pytest.fixture
def tree(store_dir: Path) -> Iterator[KeywordTree]:
    t = KeywordTree(store_dir)
    yield t
    t.close()


@pytest.fixture
def sample(tree: KeywordTree) -> dict[str, str]:
    """Build 技术 > (编程语言 > (Python > GIL, Go), 网络), 生活 > 美食 and return name → id."""
    ids: dict[str, str] = {}

    def add(name: str, parent: str | None = None, **kw: Any) -> None:
        ids[name] = tree.create_keyword(
            name, parent_id=ids.get(parent) if parent else None, **kw
        ).node.id

    add("技术", description="technology, computers and engineering")
    add("编程语言", "技术", description="programming languages")
    add("Python", "编程语言", description="a dynamic programming language", aliases=["py"])
    add("GIL", "Python", description="global interpreter lock")
    add("Go", "编程语言", description="a compiled language from Google")
    add("网络", "技术", description="computer networks and protocols")
    add("生活", description="daily life")
    add("美食", "生活", description="food and cooking")
    return ids


def quiet_config(**kw: Any) -> TreeConfig:
    """Return a config without the agent audit log (less disk noise in loops)."""
    return TreeConfig(log_agent_decisions=False, **kw)
