"""The LLM-call budget of a run, read from its state: what is left, and what a fan-out gets.

The rule is written at the top of `treerag.state.rag`: the budget lives in the run's state
(`call_share`, `llm_calls`), and a fan-out's tasks are granted their calls before they start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def answer_calls(depth: int) -> int:
    """Calls a run's answer costs: the root's is one; a sub-run answers by quoting, none."""
    return 0 if depth else 1


def run_share(granted: int, max_llm_calls: int) -> int:
    """The share a run starts with: what it was granted (0: all), never over `max_llm_calls`."""
    return min(granted or max_llm_calls, max_llm_calls)


def calls_left(state: Mapping[str, Any]) -> int:
    """Calls the run may still grant: its share less its own and its sub-runs' spend.

    The root keeps back its answer's call. Read between steps, never by parallel tasks: what
    it returns is split among a fan-out's tasks before they start (`grant_judges`, a level's
    sub-runs' `call_share`).
    """
    spent = state.get("llm_calls", 0) + sum(
        c.get("sub_llm_calls", 0) for c in state.get("chunks", [])
    )
    reserved = answer_calls(state.get("depth", 0))
    return max(0, state.get("call_share", 0) - spent - reserved)


def grant_judges(tasks: int, left: int) -> list[int]:
    """The calls each of a fan-out's judge tasks may make: one each while `left` lasts."""
    return [1 if i < left else 0 for i in range(tasks)]
