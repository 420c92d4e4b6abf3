"""Reorganization of seed 03 §八 V4: propose a plan (rules + optional agent), then apply it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from treerag.keyword_tree.agent import KeywordAgent, call_agent
from treerag.keyword_tree.descent import build_view
from treerag.keyword_tree.errors import ConflictError, KeywordTreeError, NotFoundError
from treerag.keyword_tree.keyword_ops import (
    stage_create,
    stage_delete,
    stage_merge,
    stage_move,
    stage_update,
)
from treerag.keyword_tree.models import now_iso
from treerag.keyword_tree.results import WriteResult
from treerag.keyword_tree.schemas import PlanStep, ReorganizeAdvice
from treerag.keyword_tree.txn import Txn

if TYPE_CHECKING:
    from treerag.keyword_tree.store import KeywordTree

MAX_REVIEWS = 50
"""Agent reviews per plan (one per keyword with children, breadth first)."""


@dataclass(slots=True)
class ReorganizePlan:
    """Proposed steps plus the versions they were planned against."""

    scope_id: str | None
    steps: list[PlanStep] = field(default_factory=list)
    expected: dict[str, int] = field(default_factory=dict)
    """Keyword id → version seen when planning; apply refuses if any changed."""
    created_at: str = field(default_factory=now_iso)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready form (to review or store a plan)."""
        return {
            "scope_id": self.scope_id,
            "steps": [s.model_dump() for s in self.steps],
            "expected": self.expected,
            "created_at": self.created_at,
        }


def _rule_steps(store: KeywordTree, scope: list[str]) -> list[PlanStep]:
    """Steps every tree should take: rehome orphans, merge same-named siblings."""
    index = store.index
    steps: list[PlanStep] = []
    for node_id in scope:
        parent = index.nodes[node_id]["parent_id"]
        if parent is not None and parent not in index.nodes:
            steps.append(PlanStep(action="move", node_id=node_id, reason="its parent is gone"))
    seen_parents = {index.nodes[n]["parent_id"] for n in scope}
    for parent in seen_parents:
        owner: dict[str, str] = {}
        for child in index.child_ids(parent):
            for form in index.nodes[child]["normalized"]:
                if form in owner and owner[form] != child:
                    steps.append(
                        PlanStep(
                            action="merge",
                            node_id=child,
                            target_id=owner[form],
                            reason=f"siblings share the normalized form {form!r}",
                        )
                    )
                    break
            else:
                owner.update(dict.fromkeys(index.nodes[child]["normalized"], child))
    return steps


async def build_plan(
    store: KeywordTree, scope_id: str | None, agent: KeywordAgent | None
) -> ReorganizePlan:
    """Propose a plan for the subtree at scope_id (None: the whole tree)."""
    index = store.index
    if scope_id is not None:
        store.get_keyword(scope_id)
    tops = [scope_id] if scope_id is not None else list(index.child_ids(None))
    scope = [n for t in tops for n in index.iter_subtree(t)]
    if scope_id is None:  # keywords not reachable from a root are orphans; include them
        reachable = set(scope)
        scope += [n for n in index.nodes if n not in reachable]
    steps = _rule_steps(store, scope)
    if agent is not None and hasattr(agent, "review_subtree"):
        steps += await _agent_steps(store, agent, scope_id)
    steps = _dedupe(steps)
    ids = {i for s in steps for i in (s.node_id, s.target_id) if i and i in index.nodes}
    expected = {i: index.nodes[i]["version"] for i in ids}
    return ReorganizePlan(scope_id=scope_id, steps=steps, expected=expected)


async def _agent_steps(
    store: KeywordTree, agent: KeywordAgent, scope_id: str | None
) -> list[PlanStep]:
    index = store.index
    queue: list[str | None] = [scope_id]
    steps: list[PlanStep] = []
    reviews = 0
    while queue and reviews < MAX_REVIEWS:
        current = queue.pop(0)
        path = index.path_ids(current) if current else []
        view, _ = build_view(index, "reorganize", path, store.config, 2)
        if not view.candidates:
            continue
        reviews += 1
        try:
            advice = await call_agent(
                agent,
                "review_subtree",
                view,
                schema=ReorganizeAdvice,
                timeout=store.config.agent_timeout,
                stats=store.agent_stats,
            )
        except Exception:  # a failed review proposes nothing; the rules still apply
            continue
        shown = set(view.flat())
        steps += [s for s in advice.steps if s.node_id in shown or s.action == "create"]
        queue.extend(c for c in index.child_ids(current) if index.child_ids(c))
    return steps


def _dedupe(steps: list[PlanStep]) -> list[PlanStep]:
    out, seen = [], set()
    for step in steps:
        key = (step.action, step.node_id, step.target_id, step.name)
        if key not in seen:
            seen.add(key)
            out.append(step)
    return out


def apply_plan(store: KeywordTree, plan: ReorganizePlan) -> WriteResult:
    """Apply a plan as one undoable operation; refuse if planned-on keywords changed."""
    args = {"scope_id": plan.scope_id, "steps": [s.model_dump() for s in plan.steps]}
    with store._write("reorganize", args) as tx:
        for node_id, version in plan.expected.items():
            try:
                tx.node(node_id, version)
            except NotFoundError as exc:
                raise ConflictError(f"the plan is stale: {exc}; make a new one") from exc
        applied, skipped = [], []
        for number, step in enumerate(plan.steps):
            try:
                _apply_step(tx, step)
                applied.append(number)
            except NotFoundError as exc:  # an earlier step already took care of it
                skipped.append({"step": number, "why": str(exc)})
        tx.args["skipped"] = skipped
    op = tx.op_id if tx.changes() else None
    return WriteResult(op, "reorganize", "applied", detail={"applied": applied, "skipped": skipped})


def _apply_step(tx: Txn, step: PlanStep) -> None:
    node_id = step.node_id or ""
    if step.action == "merge":
        stage_merge(tx, node_id, step.target_id or "")
    elif step.action == "move":
        stage_move(tx, node_id, step.target_id, None)
    elif step.action == "update":
        stage_update(tx, node_id, dict(step.patch), None)
    elif step.action == "create":
        stage_create(tx, step.name or "", parent_id=step.target_id)
    elif step.action == "delete":
        stage_delete(tx, node_id, cascade=False, info_policy="reattach", version=None)
    else:  # pragma: no cover - the schema's Literal rules this out
        raise KeywordTreeError(f"unknown step {step.action!r}")
