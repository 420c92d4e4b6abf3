"""Agent descent of seed 03 §4.3 with scripted agents and with the HeuristicAgent."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from treerag.keyword_tree import (
    Ambiguous,
    BranchDecision,
    DescentView,
    HeuristicAgent,
    KeywordTree,
    Matched,
    NotFound,
    TreeConfig,
)


class ScriptedAgent:
    """Answers pick_branch from a script and records the views it was shown."""

    name = "scripted"

    def __init__(self, *answers: dict[str, Any] | Exception) -> None:
        self.answers = list(answers)
        self.views: list[DescentView] = []

    def pick_branch(self, question: str, view: DescentView) -> BranchDecision:
        self.views.append(view)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return BranchDecision(**answer)


def _descend(tree: KeywordTree, agent: Any, question: str = "q", **kw: Any) -> Any:
    return tree.descend(question, agent=agent, use_cache=False, **kw)


def test_two_level_jump_then_match(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.config.view_max_depth = 2
    agent = ScriptedAgent(
        {"action": "jump", "node_id": sample["编程语言"], "jump_depth": 2},
        {"action": "match", "node_id": sample["GIL"]},
    )
    result = _descend(tree, agent)
    assert isinstance(result, Matched)
    assert [n.name for n in result.path] == ["技术", "编程语言", "Python", "GIL"]
    assert result.trace.agent_calls == 2
    first, second = agent.views
    assert first.current_path == [] and first.depth == 2
    assert [c.name for c in first.candidates] == ["技术", "生活"]
    assert [c.name for c in first.candidates[0].children] == ["编程语言", "网络"]
    assert first.candidates[0].children[0].children == []  # third level not expanded
    assert first.candidates[0].children[0].child_count == 2
    assert [p.name for p in second.current_path] == ["技术", "编程语言"]


def test_jump_to_leaf_is_a_match(tree: KeywordTree, sample: dict[str, str]) -> None:
    agent = ScriptedAgent({"action": "jump", "node_id": sample["美食"], "jump_depth": 2})
    result = _descend(tree, agent)
    assert isinstance(result, Matched) and result.node.name == "美食"
    assert result.trace.agent_calls == 1


def test_missing_suggests_parent_and_name(tree: KeywordTree, sample: dict[str, str]) -> None:
    agent = ScriptedAgent(
        {"action": "jump", "node_id": sample["编程语言"]},
        {"action": "missing", "suggest_name": "Rust", "reason": "no such language"},
    )
    result = _descend(tree, agent)
    assert isinstance(result, NotFound)
    assert result.suggested_parent.name == "编程语言" and result.suggested_name == "Rust"
    assert result.error is None


def test_ambiguous_returns_candidates(tree: KeywordTree, sample: dict[str, str]) -> None:
    agent = ScriptedAgent(
        {"action": "ambiguous", "candidate_ids": [sample["Python"], sample["美食"], "kw_x"]}
    )
    result = _descend(tree, agent)
    assert isinstance(result, Ambiguous)
    assert sorted(n.name for n in result.candidates) == ["Python", "美食"]


def test_agent_timeout_falls_back_to_current_candidates(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    agent = ScriptedAgent({"action": "jump", "node_id": sample["技术"]}, TimeoutError("too slow"))
    tree.config.view_max_depth = 1
    result = _descend(tree, agent)
    assert isinstance(result, NotFound)
    assert "TimeoutError" in (result.error or "")
    assert [n.name for n in result.candidates] == ["编程语言", "网络"]
    assert result.suggested_parent.name == "技术"


def test_slow_async_agent_is_cut_off(
    store_dir: Any, sample: dict[str, str], tree: KeywordTree
) -> None:
    class Slow:
        async def pick_branch(self, question: str, view: DescentView) -> BranchDecision:
            await asyncio.sleep(5)
            raise AssertionError("not reached")

    tree.config.agent_timeout = 0.05
    result = asyncio.run(tree.adescend("q", agent=Slow(), use_cache=False))
    assert isinstance(result, NotFound) and "TimeoutError" in (result.error or "")
    assert [n.name for n in result.candidates] == ["技术", "生活"]


@pytest.mark.parametrize(
    "answer",
    [
        {"action": "match", "node_id": "kw_not_shown"},
        {"action": "ambiguous", "candidate_ids": []},
        {"action": "jump"},
        ValueError("boom"),
    ],
)
def test_unusable_answers_fall_back(tree: KeywordTree, sample: dict[str, str], answer: Any) -> None:
    result = _descend(tree, ScriptedAgent(answer))
    assert isinstance(result, NotFound) and result.error
    assert [n.name for n in result.candidates] == ["技术", "生活"]


def test_dict_answers_and_async_agents_are_accepted(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    class AsyncDict:
        async def pick_branch(self, question: str, view: DescentView) -> dict[str, Any]:
            return {"action": "match", "node_id": view.candidates[1].id}

    assert _descend(tree, AsyncDict()).node.name == "生活"


def test_view_shrinks_when_large(tree: KeywordTree) -> None:
    tree.config.view_max_nodes = 40
    root = tree.create_keyword("root").node
    tree.batch_create_keywords(
        [{"name": f"c{i}", "parent_id": root.id, "id": f"c{i}"} for i in range(30)]
    )
    tree.batch_create_keywords([{"name": f"g{i}", "parent_id": f"c{i % 30}"} for i in range(60)])
    agent = ScriptedAgent(
        {"action": "jump", "node_id": root.id}, {"action": "match", "node_id": "c3"}
    )
    _descend(tree, agent)
    assert agent.views[0].depth == 2  # root + 30 children fit in 40
    assert agent.views[1].depth == 1  # 30 children + 60 grandchildren do not


class OracleAgent:
    """Knows the answer: jumps to the deepest shown ancestor of the target, matches it."""

    name = "oracle"

    def __init__(self, tree: KeywordTree, target: str) -> None:
        self.path = tree.index.path_ids(target)

    def pick_branch(self, question: str, view: DescentView) -> BranchDecision:
        shown = view.flat()
        deepest = [i for i in self.path if i in shown][-1]
        action = "match" if deepest == self.path[-1] else "jump"
        return BranchDecision(action=action, node_id=deepest, jump_depth=shown[deepest][1])


def test_multi_level_views_need_fewer_agent_calls(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    deep = _descend(tree, OracleAgent(tree, sample["GIL"]))
    tree.config.view_max_depth = 1
    shallow = _descend(tree, OracleAgent(tree, sample["GIL"]))
    assert deep.node.id == shallow.node.id == sample["GIL"]
    assert (deep.trace.agent_calls, shallow.trace.agent_calls) == (2, 4)
    assert tree.agent_stats.calls["pick_branch"] == 6


def test_heuristic_agent_jumps_to_named_keywords(tree: KeywordTree, sample: dict[str, str]) -> None:
    result = _descend(tree, HeuristicAgent(), "Python 的 GIL 是什么？")
    assert isinstance(result, Matched) and result.node.name == "GIL"
    assert result.trace.agent_calls == 2  # 技术 > 编程语言 > Python in one jump, then GIL
    assert result.trace.steps[0].decision["jump_depth"] == 3


def test_heuristic_agent_uses_descriptions_and_reports_missing(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    agent = HeuristicAgent()
    result = _descend(tree, agent, "TCP protocols")
    assert isinstance(result, NotFound) and result.suggested_parent.name == "网络"
    nothing = _descend(tree, agent, "量子纠缠")
    assert isinstance(nothing, NotFound) and nothing.suggested_parent is None
    assert nothing.suggested_name == "量子纠缠"


def test_heuristic_agent_with_injected_similarity(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    def similarity(a: str, b: str) -> float:
        return 0.9 if "cooking" in b and "菜谱" in a else 0.0

    result = _descend(tree, HeuristicAgent(similarity=similarity), "红烧肉菜谱")
    assert isinstance(result, NotFound) and result.suggested_parent.name == "美食"
    plain = _descend(tree, HeuristicAgent(), "红烧肉菜谱")
    assert plain.suggested_parent is None


def test_heuristic_ambiguity_between_branches(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.create_keyword("Python", parent_id=sample["生活"], description="a large snake")
    both = _descend(tree, HeuristicAgent(), "python")
    assert isinstance(both, Ambiguous) and len(both.candidates) == 2
    snake = _descend(tree, HeuristicAgent(), "python snake")
    assert isinstance(snake, Matched) and snake.node.parent_id == sample["生活"]


def test_decisions_are_cached_per_subtree_fingerprint(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    agent = HeuristicAgent()
    first = tree.descend("Python 的 GIL", agent=agent)
    again = tree.descend("Python 的 GIL", agent=agent)
    assert first.trace.agent_calls > 0 and again.trace.agent_calls == 0
    assert again.trace.cached_calls == first.trace.agent_calls
    tree.update_keyword(sample["GIL"], {"description": "changed"})  # GIL was in a view
    third = tree.descend("Python 的 GIL", agent=agent)
    assert third.trace.agent_calls >= 1


def test_descent_needs_an_agent(tree: KeywordTree, sample: dict[str, str]) -> None:
    from treerag.keyword_tree import InvalidInputError

    with pytest.raises(InvalidInputError):
        tree.descend("q")


def test_sync_api_inside_event_loop_points_to_async(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    async def inside() -> None:
        with pytest.raises(RuntimeError, match="adescend"):
            tree.descend("q", agent=HeuristicAgent())

    asyncio.run(inside())


def test_view_render_lists_ids_and_hidden_children(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    agent = ScriptedAgent({"action": "match", "node_id": sample["技术"]})
    tree.config = TreeConfig(view_max_depth=1)
    _descend(tree, agent)
    text = agent.views[0].render()
    assert f"[{sample['技术']}] 技术" in text and "[+2 children not shown]" in text
