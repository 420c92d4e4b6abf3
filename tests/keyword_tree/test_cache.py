"""Caches of seed 03 §4.4: TTLs, targeted invalidation, persistence, other processes."""

from __future__ import annotations

from pathlib import Path

from treerag.keyword_tree import HeuristicAgent, KeywordTree
from treerag.keyword_tree.cache import MISSING, Touched, TreeCache


def test_ttl_expiry_and_reverse_index() -> None:
    now = [1000.0]
    cache = TreeCache(clock=lambda: now[0])
    cache.put("descend:q", ["a", "b"], ttl=10, deps=["a", "b"])
    cache.put("agent:pick:1", {"x": 1}, ttl=100, deps=["b", "c"])
    cache.put("exact:python", ["p"], ttl=100, deps=["p"])
    assert cache.get("descend:q") == ["a", "b"]
    now[0] += 11
    assert cache.get("descend:q") is MISSING  # expired
    assert cache.node_used_by_keys == {
        "b": {"agent:pick:1"},
        "c": {"agent:pick:1"},
        "p": {"exact:python"},
    }
    assert cache.invalidate(Touched(nodes={"c"})) == 1
    assert cache.get("agent:pick:1") is MISSING and cache.get("exact:python") == ["p"]
    assert cache.invalidate(Touched(tokens={"python"})) == 1  # a new keyword named python
    assert len(cache) == 0


def test_writes_invalidate_only_what_they_touch(tree: KeywordTree, sample: dict[str, str]) -> None:
    agent = HeuristicAgent()
    tree.search("Python GIL", agent=agent)  # descend cache through 技术/编程语言/Python/GIL
    tree.search("美食")  # exact cache
    tree.get_infos_of_keyword(sample["Go"])  # page cache
    keys = set(tree.cache._entries)
    assert {"descend:python gil", "exact:美食", f"kw:{sample['Go']}:infos:*:s50:p0"} <= keys
    tree.update_keyword(sample["美食"], {"description": "changed"})
    assert "descend:python gil" in tree.cache._entries
    tree.create_keyword("Rust", parent_id=sample["编程语言"])  # 编程语言 is on the cached path
    assert "descend:python gil" not in tree.cache._entries
    tree.create_info("go text", keyword_ids=[sample["Go"]])
    assert f"kw:{sample['Go']}:infos:*:s50:p0" not in tree.cache._entries
    assert tree.get_infos_of_keyword(sample["Go"]).total == 1


def test_new_keyword_invalidates_cached_zero_hits(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    assert tree.search("Rust", use_agent=False).kind == "not_found"
    assert tree.cache.get("exact:rust") == []
    tree.create_keyword("Rust")
    assert tree.search("rust").kind == "matched"


def test_caches_persist_and_survive_reopen(
    store_dir: Path, tree: KeywordTree, sample: dict[str, str]
) -> None:
    tree.search("Python GIL", agent=HeuristicAgent())
    tree.close()
    for name in ("descend_cache.json", "agent_decision.json", "exact_cache.json"):
        assert (store_dir / "cache" / name).stat().st_size > 20
    again = KeywordTree(store_dir)
    result = again.search("python gil", agent=HeuristicAgent())
    assert result.via == "descend_cache"
    again.close()


def test_writes_by_another_process_invalidate_persisted_entries(
    store_dir: Path, tree: KeywordTree, sample: dict[str, str]
) -> None:
    tree.search("Python GIL", agent=HeuristicAgent())
    tree.close()  # the cache files now describe this position
    writer = KeywordTree(store_dir)
    writer.move_keyword(sample["GIL"], sample["Go"])
    writer.storage.close()  # a process that dies without saving its cache
    writer._closed = True
    reader = KeywordTree(store_dir)
    assert "descend:python gil" not in reader.cache._entries  # its path changed after the save
    assert reader.search("python gil", agent=HeuristicAgent()).via == "descent"
    reader.close()
