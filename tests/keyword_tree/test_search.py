"""search() of seed 03 §5.1 and the agent-assisted writes of §5.2 and §5.5."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from treerag.keyword_tree import (
    Ambiguous,
    CandidateNode,
    DedupDecision,
    DescentView,
    DisambiguationDecision,
    HeuristicAgent,
    KeywordTree,
    LinkChoice,
    LinkDecision,
    Matched,
    NotFound,
)


class CountingHeuristic(HeuristicAgent):
    """The heuristic agent, with a log of which methods were called."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.called: list[str] = []

    def pick_branch(self, question: str, view: DescentView) -> Any:
        self.called.append("pick_branch")
        return super().pick_branch(question, view)

    def disambiguate_same_name(self, question: str, candidates: list[CandidateNode]) -> Any:
        self.called.append("disambiguate_same_name")
        return super().disambiguate_same_name(question, candidates)


def test_exact_single_hit_needs_no_agent(tree: KeywordTree, sample: dict[str, str]) -> None:
    agent = CountingHeuristic()
    info = tree.create_info("about go", keyword_ids=[sample["Go"]]).info
    result = tree.search("GO", agent=agent)
    assert isinstance(result, Matched) and result.via == "exact"
    assert [h.info.id for h in result.infos.items] == [info.id]
    again = tree.search("go", agent=agent)
    assert again.via == "exact_cache" and agent.called == []


def test_same_name_goes_to_disambiguation(tree: KeywordTree, sample: dict[str, str]) -> None:
    snake = tree.create_keyword("Python", parent_id=sample["生活"], description="a snake").node
    agent = CountingHeuristic()
    picked = tree.search("python", agent=agent)
    assert isinstance(picked, Ambiguous) and agent.called == ["disambiguate_same_name"]
    assert isinstance(tree.search("python", use_agent=False), Ambiguous)

    class PickSnake:
        def disambiguate_same_name(self, question: str, candidates: list[CandidateNode]) -> Any:
            assert {c.path[0] for c in candidates} == {"技术", "生活"}
            return DisambiguationDecision(node_id=snake.id, reason="snake")

    chosen = tree.search("python", agent=PickSnake())
    assert (
        isinstance(chosen, Matched)
        and chosen.node.id == snake.id
        and chosen.via == "disambiguation"
    )


def test_no_exact_hit_descends_and_caches_the_path(
    tree: KeywordTree, sample: dict[str, str]
) -> None:
    agent = CountingHeuristic()
    first = tree.search("Python 的 GIL 是什么？", agent=agent)
    assert isinstance(first, Matched) and first.via == "descent" and first.node.name == "GIL"
    calls = len(agent.called)
    second = tree.search("python 的 gil 是什么", agent=agent)  # same normalized query
    assert second.via == "descend_cache" and len(agent.called) == calls
    tree.move_keyword(sample["GIL"], sample["Go"])  # a node on the path changed
    third = tree.search("Python 的 GIL 是什么？", agent=agent)
    assert third.via == "descent"


def test_no_agent_no_hit_is_not_found(tree: KeywordTree, sample: dict[str, str]) -> None:
    result = tree.search("量子")
    assert isinstance(result, NotFound) and result.via == "none"
    assert [n.name for n in result.candidates] == ["技术", "生活"]


def test_asearch_in_a_running_loop(tree: KeywordTree, sample: dict[str, str]) -> None:
    async def main() -> Any:
        return await tree.asearch("Python GIL", agent=HeuristicAgent())

    assert asyncio.run(main()).node.name == "GIL"


def test_create_keyword_places_it_with_the_agent(tree: KeywordTree, sample: dict[str, str]) -> None:
    agent = HeuristicAgent()
    made = tree.create_keyword(
        "TCP", description="a transport protocol of computer networks", agent=agent
    )
    assert made.node.parent_id == sample["网络"]
    lost = tree.create_keyword("量子纠缠", agent=agent)
    assert tree.get_keyword(lost.node.parent_id).name == "未分类"
    plain = tree.create_keyword("Rust")  # no agent: a root
    assert plain.node.parent_id is None
    entry = tree.operation(made.operation_id)
    assert entry["agent"][0]["method"] == "pick_branch"


@pytest.mark.parametrize(
    ("decision", "action"),
    [
        (DedupDecision(action="alias_of", target_id="T"), "alias_of"),
        (DedupDecision(action="merge", target_id="T"), "merged"),
        (DedupDecision(action="create_new"), "created"),
    ],
)
def test_dedup_check_decisions(
    tree: KeywordTree, sample: dict[str, str], decision: Any, action: str
) -> None:
    if decision.target_id == "T":
        decision.target_id = sample["Python"]

    class Dedup(HeuristicAgent):
        def dedup_check(self, name: str, description: str, existing: list[CandidateNode]) -> Any:
            assert [c.id for c in existing] == [sample["Python"]]
            return decision

    result = tree.create_keyword(
        "PYTHON", parent_id=sample["生活"], description="snake", agent=Dedup()
    )
    assert result.action == action
    if action == "created":
        assert result.node.parent_id == sample["生活"]
    else:
        assert result.node.id == sample["Python"]
    if action == "merged":
        assert tree.get_keyword(sample["Python"]).description == "a dynamic programming language"


def test_heuristic_dedup_rules() -> None:
    agent = HeuristicAgent()
    known = [CandidateNode(id="a", name="Python", description="programming language")]
    assert agent.dedup_check("python", "", known).action == "alias_of"
    assert agent.dedup_check("python", "a large snake", known).action == "create_new"
    bare = [CandidateNode(id="a", name="Python")]
    assert agent.dedup_check("python", "a language", bare).action == "merge"


def test_auto_link_with_agent_and_fallback(tree: KeywordTree, sample: dict[str, str]) -> None:
    text = "Python 的 GIL 让多线程难以并行。GIL 是全局解释器锁。Go 没有 GIL。"
    smart = tree.create_info(text, auto_link=True, agent=HeuristicAgent()).info
    links = {h.keyword.name: h.relation for h in tree.get_keywords_of_info(smart.id)}
    assert links == {"GIL": "PRIMARY", "Python": "RELATED", "Go": "RELATED"}

    class Broken:
        def link_info(self, content: str, candidates: list[CandidateNode]) -> Any:
            raise RuntimeError("model down")

    fallback = tree.create_info(text, auto_link=True, agent=Broken()).info
    relations = {h.keyword.name: h.relation for h in tree.get_keywords_of_info(fallback.id)}
    assert relations == {"GIL": "RELATED", "Python": "RELATED", "Go": "RELATED"}
    entry = tree.operation(tree.history(1)[0]["op_id"])
    assert entry["agent"][0]["error"] == "model down"


def test_auto_link_can_create_missing_keywords(tree: KeywordTree, sample: dict[str, str]) -> None:
    class Suggests(HeuristicAgent):
        def link_info(self, content: str, candidates: list[CandidateNode]) -> Any:
            return LinkDecision(
                links=[LinkChoice(keyword_id=sample["Go"], relation="PRIMARY")],
                new_keywords=["Goroutine"],
            )

    info = tree.create_info(
        "Go goroutines", auto_link=True, create_missing=True, agent=Suggests()
    ).info
    names = sorted(h.keyword.name for h in tree.get_keywords_of_info(info.id))
    assert names == ["Go", "Goroutine"]


def test_lookup_terms_finds_names_in_text(tree: KeywordTree, sample: dict[str, str]) -> None:
    tree.create_keyword("machine learning", parent_id=sample["技术"])
    found = tree.lookup_terms("Intro to Machine-Learning with Python and 網絡")
    assert {tree.get_keyword(i).name for i in found} == {"machine learning", "Python", "网络"}
