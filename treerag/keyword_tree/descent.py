"""Agent descent of seed 03 §4.3: multi-level subtree views and the control loop."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from treerag.keyword_tree.agent import AgentStats, agent_name, call_agent
from treerag.keyword_tree.cache import MISSING, TreeCache
from treerag.keyword_tree.config import TreeConfig
from treerag.keyword_tree.indexes import TreeIndex
from treerag.keyword_tree.results import DescentStep, DescentTrace
from treerag.keyword_tree.schemas import BranchDecision, DescentView, PathItem, ViewNode
from treerag.text import query_key


@dataclass(slots=True)
class Outcome:
    """A descent's result in ids (the store turns it into Matched / Ambiguous / NotFound)."""

    kind: Literal["matched", "ambiguous", "not_found"]
    node_id: str | None = None
    path: list[str] = field(default_factory=list)
    candidate_ids: list[str] = field(default_factory=list)
    suggested_name: str | None = None
    reason: str = ""
    error: str | None = None
    trace: DescentTrace = field(default_factory=DescentTrace)


def choose_depth(index: TreeIndex, ids: list[str], max_depth: int, max_nodes: int) -> int:
    """Return how many levels to expand: as many as fit in max_nodes, at least one."""
    depth, total, frontier = 1, len(ids), ids
    while depth < max_depth:
        below = [c for node_id in frontier for c in index.child_ids(node_id)]
        if not below or total + len(below) > max_nodes:
            break
        depth, total, frontier = depth + 1, total + len(below), below
    return depth


def build_view(
    index: TreeIndex, question: str, path: list[str], config: TreeConfig, max_depth: int
) -> tuple[DescentView, str]:
    """Return the view below the end of path (the roots when empty) and its fingerprint.

    The fingerprint hashes the id and version of every shown keyword and of the current
    one, so a cached decision is reused only while that subtree is unchanged (§4.4).
    """
    ids = index.child_ids(path[-1] if path else None)
    depth = choose_depth(index, ids, max_depth, config.view_max_nodes)
    digest = hashlib.sha1()
    for node_id in path[-1:]:
        digest.update(f"{node_id}@{index.nodes[node_id]['version']};".encode())

    def make(node_id: str, levels_left: int) -> ViewNode:
        rec = index.nodes[node_id]
        kids = index.child_ids(node_id)
        digest.update(f"{node_id}@{rec['version']}:{len(kids)};".encode())
        shown = [make(c, levels_left - 1) for c in kids] if levels_left > 0 else []
        return ViewNode(
            id=node_id,
            name=rec["name"],
            description=rec["description"],
            aliases=list(rec["aliases"]),
            child_count=len(kids),
            children=shown,
        )

    candidates = [make(node_id, depth - 1) for node_id in ids]
    items = [
        PathItem(id=i, name=index.nodes[i]["name"], description=index.nodes[i]["description"])
        for i in path
    ]
    view = DescentView(question=question, current_path=items, candidates=candidates, depth=depth)
    return view, digest.hexdigest()


def _view_path(view: DescentView, node_id: str) -> list[str]:
    """Return the ids from the view's top level down to node_id."""
    flat = view.flat()
    chain = [node_id]
    parent = flat[node_id][2]
    while parent is not None:
        chain.append(parent)
        parent = flat[parent][2]
    return chain[::-1]


def _extend(view: DescentView, path: list[str], node_id: str | None) -> list[str]:
    """Return path continued down to node_id through the view (unchanged for the current)."""
    if node_id is None or (path and node_id == path[-1]):
        return list(path)
    return path + _view_path(view, node_id)


def _fully_shown(node: ViewNode) -> bool:
    return node.child_count == len(node.children) and all(map(_fully_shown, node.children))


class Descender:
    """Runs the control loop of seed 03 §4.3 for one store."""

    def __init__(
        self, index: TreeIndex, config: TreeConfig, cache: TreeCache, stats: AgentStats
    ) -> None:
        self.index, self.config, self.cache, self.stats = index, config, cache, stats

    async def run(
        self,
        question: str,
        agent: object,
        *,
        start_id: str | None = None,
        use_cache: bool = True,
        max_depth: int | None = None,
    ) -> Outcome:
        """Descend from start_id (or the roots) until the agent matches, misses or fails."""
        path = self.index.path_ids(start_id) if start_id else []
        trace = DescentTrace()
        depth_cap = max_depth or self.config.view_max_depth
        for _ in range(self.config.max_rounds):
            view, fingerprint = build_view(self.index, question, path, self.config, depth_cap)
            if not view.candidates:
                if path:
                    return Outcome("matched", path[-1], path, reason="reached a leaf", trace=trace)
                return Outcome("not_found", reason="the tree is empty", trace=trace)
            try:
                decision = await self._decide(question, agent, view, fingerprint, use_cache, trace)
            except Exception as exc:  # seed 03 §4.3 #7: any agent failure degrades to NotFound
                trace.error = f"{type(exc).__name__}: {exc}"
                trace.steps.append(
                    DescentStep(list(path), len(view.flat()), view.depth, {"error": trace.error})
                )
                return self._fallback(view, path, trace)
            trace.steps[-1].path = list(path)
            outcome = self._apply(decision, view, path, trace)
            if outcome is not None:
                return outcome
        trace.error = f"no decision after {self.config.max_rounds} rounds"
        return self._fallback(view, path, trace)

    async def _decide(
        self,
        question: str,
        agent: object,
        view: DescentView,
        fingerprint: str,
        use_cache: bool,
        trace: DescentTrace,
    ) -> BranchDecision:
        raw = f"{agent_name(agent)}\0{query_key(question)}\0{fingerprint}"
        key = "agent:pick:" + hashlib.sha1(raw.encode()).hexdigest()
        shown = view.flat()
        if use_cache:
            cached = self.cache.get(key)
            if cached is not MISSING:
                decision = BranchDecision.model_validate(cached)
                trace.cached_calls += 1
                self.stats.cached += 1
                trace.steps.append(DescentStep([], len(shown), view.depth, cached, cached=True))
                return decision
        trace.agent_calls += 1
        decision = await call_agent(
            agent,
            "pick_branch",
            question,
            view,
            schema=BranchDecision,
            timeout=self.config.agent_timeout,
            stats=self.stats,
        )
        dumped = decision.model_dump()
        trace.steps.append(DescentStep([], len(shown), view.depth, dumped))
        if use_cache:
            deps = [*shown, *(p.id for p in view.current_path[-1:])]
            self.cache.put(key, dumped, self.config.agent_ttl, deps)
        return decision

    def _apply(
        self, decision: BranchDecision, view: DescentView, path: list[str], trace: DescentTrace
    ) -> Outcome | None:
        """Turn one decision into an outcome, or extend path and return None to go on."""
        flat = view.flat()
        here = path[-1] if path else None
        reachable = set(flat) | ({here} if here else set())
        target, reason = decision.node_id, decision.reason
        if decision.action in ("jump", "match") and target not in reachable:
            trace.error = f"agent chose {target!r}, which was not among the candidates"
            return self._fallback(view, path, trace)
        if decision.action == "match" or (decision.action == "jump" and target == here):
            return Outcome(
                "matched", target, _extend(view, path, target), reason=reason, trace=trace
            )
        if decision.action == "jump":
            assert target is not None
            path[:] = _extend(view, path, target)
            if not self.index.child_ids(target) or _fully_shown(flat[target][0]):
                return Outcome("matched", target, list(path), reason=reason, trace=trace)
            return None  # seed 03 §4.3 #3: the subtree below has more to show: next round
        if decision.action == "missing":
            parent = target if target in reachable else here
            return Outcome(
                "not_found",
                parent,
                _extend(view, path, parent),
                suggested_name=decision.suggest_name,
                reason=reason,
                trace=trace,
            )
        chosen = [i for i in decision.candidate_ids if i in reachable]
        if len(chosen) == 1:
            return Outcome(
                "matched", chosen[0], _extend(view, path, chosen[0]), reason=reason, trace=trace
            )
        if not chosen:
            trace.error = "agent said ambiguous without naming shown candidates"
            return self._fallback(view, path, trace)
        return Outcome(
            "ambiguous", candidate_ids=chosen, path=list(path), reason=reason, trace=trace
        )

    @staticmethod
    def _fallback(view: DescentView, path: list[str], trace: DescentTrace) -> Outcome:
        """NotFound with the current candidates (seed 03 §4.3 #7)."""
        return Outcome(
            "not_found",
            path[-1] if path else None,
            list(path),
            candidate_ids=[node.id for node in view.candidates],
            reason="the agent failed; these are the candidates it was looking at",
            error=trace.error,
            trace=trace,
        )


def decision_log(question: str, outcome: Outcome, agent: Any) -> dict[str, Any]:
    """Return an audit record of a descent for logs/agent_log.jsonl."""
    return {
        "question": question,
        "agent": agent_name(agent),
        "outcome": outcome.kind,
        "node_id": outcome.node_id,
        "candidate_ids": outcome.candidate_ids,
        "error": outcome.error,
        "steps": [
            {"path": s.path, "shown": s.shown, "decision": s.decision, "cached": s.cached}
            for s in outcome.trace.steps
        ],
    }
