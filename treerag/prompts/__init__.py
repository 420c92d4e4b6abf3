"""Prompt templates, one module per family; any of them can be overridden per run by name."""

from __future__ import annotations

from treerag.prompts import answer, condense, extraction, judge, keyword

DEFAULTS: dict[str, str] = {
    "judge": judge.JUDGE_PROMPT,
    "answer": answer.ANSWER_PROMPT,
    "condense": condense.CONDENSE_PROMPT,
    "pick_branch": keyword.PICK_BRANCH_PROMPT,
    "dedup": keyword.DEDUP_PROMPT,
    "link": keyword.LINK_PROMPT,
    "disambiguate": keyword.DISAMBIGUATE_PROMPT,
    "reorganize": keyword.REORGANIZE_PROMPT,
    "extraction": extraction.EXTRACTION_PROMPT,
}


def get_prompt(name: str, overrides: dict[str, str] | None = None) -> str:
    """Return the template for `name`, or its per-run override."""
    if overrides and name in overrides:
        return overrides[name]
    return DEFAULTS[name]
