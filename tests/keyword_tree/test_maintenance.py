"""tree_metrics and reorganize → plan → apply (seed 03 §八 V4)."""

from __future__ import annotations

import pytest

from treerag.keyword_tree import (
    ConflictError,
    HeuristicAgent,
    KeywordTree,
    PlanStep,
    ReorganizeAdvice,
)


def test_metrics(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.create_info("gil", keyword_ids=[sample["GIL"]])
    tree.create_info("floating")
    chain = sample["美食"]
    for i in range(8):
        chain = tree.create_keyword(f"d{i}", parent_id=chain, description="x").node.id
    m = tree.tree_metrics(depth_limit=6)
    assert (m.keywords, m.infos, m.links, m.roots) == (16, 2, 1, 2)
    assert m.max_depth == 9 and m.depth_histogram[0] == 2
    assert m.orphans == []
    assert m.unlinked_infos == 1
    assert m.empty_leaves == 3  # Go, 网络, d7
    assert m.missing_description_rate == 0.0
    assert len(m.over_deep) == 1 and tree.get_keyword(m.over_deep[0]).name == "d5"
    assert m.branching_histogram == {1: 10, 2: 2}  # 技术 and 编程语言 have two
    assert m.branching_max == 2 and m.widest[0][1] == 2


def test_missing_descriptions_counted(tree: KeywordTree) -> None:
    tree.create_keyword("a")
    tree.create_keyword("b", description="has one")
    assert tree.tree_metrics().missing_description_rate == 0.5


def test_reorganize_merges_siblings_sharing_a_form(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    bj = tree.create_keyword("北京", parent_id=sample["生活"]).node
    en = tree.create_keyword("Beijing", parent_id=sample["生活"], description="capital").node
    info = tree.create_info("about beijing", keyword_ids=[en.id]).info
    plan = tree.reorganize()
    assert [(s.action, s.node_id, s.target_id) for s in plan.steps] == [("merge", en.id, bj.id)]
    result = tree.apply_reorganize_plan(plan)
    assert not tree.has_keyword(en.id)
    assert tree.get_keyword(bj.id).aliases == ["Beijing"]
    assert [h.keyword.id for h in tree.get_keywords_of_info(info.id)] == [bj.id]
    tree.undo(result.operation_id)
    assert tree.has_keyword(en.id)


def test_stale_plan_is_refused(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.create_keyword("北京", parent_id=sample["生活"])
    en = tree.create_keyword("Beijing", parent_id=sample["生活"]).node
    plan = tree.reorganize()
    tree.update_keyword(en.id, {"description": "changed meanwhile"})
    with pytest.raises(ConflictError):
        tree.apply_reorganize_plan(plan)


def test_agent_proposals_join_the_plan(tree: KeywordTree, sample: dict[str, str]) -> None:
    class Describer(HeuristicAgent):
        def review_subtree(self, view):  # type: ignore[no-untyped-def]
            steps = [
                PlanStep(action="update", node_id=n.id, patch={"description": "from agent"})
                for n in view.candidates
                if n.id == sample["Go"]
            ]
            steps.append(PlanStep(action="delete", node_id="kw_not_shown"))  # dropped: not in view
            return ReorganizeAdvice(steps=steps)

    plan = tree.reorganize(sample["编程语言"], agent=Describer())
    assert [(s.action, s.node_id) for s in plan.steps] == [("update", sample["Go"])]
    tree.apply_reorganize_plan(plan)
    assert tree.get_keyword(sample["Go"]).description == "from agent"
    assert tree.agent_stats.calls["review_subtree"] >= 1


def test_orphans_are_rehomed(store_dir, tree: KeywordTree, sample: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    # An orphan can only come from damaged files: drop the parent's line by hand.
    tree.close()
    path = store_dir / "keywords/nodes.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    needle = f'"id":"{sample["编程语言"]}"'.encode()
    victim = next(i for i, line in enumerate(lines) if needle in line)
    lines[victim] = b" " * (len(lines[victim]) - 1) + b"\n"
    path.write_bytes(b"".join(lines))
    damaged = KeywordTree(store_dir)
    m = damaged.tree_metrics()
    assert sorted(m.orphans) == sorted([sample["Python"], sample["Go"]])
    plan = damaged.reorganize()
    assert {(s.action, s.node_id) for s in plan.steps} == {
        ("move", sample["Python"]),
        ("move", sample["Go"]),
    }
    damaged.apply_reorganize_plan(plan)
    assert damaged.tree_metrics().orphans == []
    assert {n.name for n in damaged.get_roots()} == {"技术", "生活", "Python", "Go"}
    damaged.close()
