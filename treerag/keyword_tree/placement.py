"""Agent decisions taken before a keyword is created: duplicates and where it belongs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from treerag.keyword_tree.agent import KeywordAgent, agent_name, call_agent
from treerag.keyword_tree.descent import Descender
from treerag.keyword_tree.normalize import normalized_forms
from treerag.keyword_tree.schemas import DedupDecision

if TYPE_CHECKING:
    from treerag.keyword_tree.search import SearchMixin


@dataclass(slots=True)
class CreatePlan:
    """What the agent decided, gathered before the write lock is taken."""

    parent_id: str | None
    dedup: DedupDecision | None = None
    unplaced: bool = False
    agent_log: list[dict[str, Any]] = field(default_factory=list)


async def plan_dedup(
    store: SearchMixin,
    plan: CreatePlan,
    agent: KeywordAgent,
    name: str,
    aliases: list[str],
    desc: str,
) -> None:
    """Ask dedup_check about keywords sharing a normalized form (seed 03 §5.2 #1–2)."""
    hits: dict[str, None] = {}
    for form in normalized_forms(name, aliases):
        hits.update(dict.fromkeys(store.index.inverted.get(form, ())))
    if not hits:
        return
    existing = [store.candidate(i) for i in hits]
    try:
        decision = await call_agent(
            agent,
            "dedup_check",
            name,
            desc,
            existing,
            schema=DedupDecision,
            timeout=store.config.agent_timeout,
            stats=store.agent_stats,
        )
    except Exception as exc:  # no verdict: create, the sibling check still applies
        plan.agent_log.append({"method": "dedup_check", "error": str(exc)})
        return
    plan.agent_log.append(
        {
            "method": "dedup_check",
            "agent": agent_name(agent),
            "input": list(hits),
            "output": decision.model_dump(),
        }
    )
    if decision.action != "create_new" and decision.target_id in store.index.nodes:
        plan.dedup = decision


async def plan_parent(
    store: SearchMixin, plan: CreatePlan, agent: KeywordAgent, name: str, description: str
) -> None:
    """Descend from the roots to find where the keyword belongs (seed 03 §5.2 #3).

    A "missing" answer names the parent; one that finds no parent (or an agent failure)
    leaves the keyword unplaced, which config.unplaced turns into the uncategorized root.
    """
    if not store.index.nodes:
        return
    question = f"{name}: {description}" if description else name
    descender = Descender(store.index, store.config, store.cache, store.agent_stats)
    outcome = await descender.run(question, agent, use_cache=False)
    plan.agent_log.append(
        {
            "method": "pick_branch",
            "agent": agent_name(agent),
            "outcome": outcome.kind,
            "node_id": outcome.node_id,
            "error": outcome.error,
            "steps": [s.decision for s in outcome.trace.steps],
        }
    )
    if outcome.kind in ("matched", "not_found") and outcome.error is None:
        plan.parent_id = outcome.node_id
    plan.unplaced = plan.parent_id is None and store.config.unplaced == "uncategorized"
