"""One check of the settings and models before a run starts (CLI, Python API and server).

A run that starts with a setting it cannot use fails midway: it draws pending chunks, leaves
a half-run in the checkpointer (`treerag runs`), then errors. `check_run` finds those
problems first, without building a model or opening a store, and raises SettingsError
naming the setting and what to do.
"""

from __future__ import annotations

from treerag.context import Context, SettingsError

AT_LEAST_ONE = (
    "top_k",
    "chunk_size",
    "hybrid_candidates",
    "rerank_candidates",
    "max_llm_calls",
    "answer_token_budget",
    "rrf_k",
)
"""Integer settings for which 0 leaves a run with nothing to do."""


def check_run(ctx: Context) -> None:
    """Raise SettingsError if a question cannot be answered with these settings.

    Checks the bounds a run needs (top_k >= 1 and the like), that the chat and embedding
    model strings name a known provider, and that the key such a provider needs is set.
    """
    check_bounds(ctx, models=True)


def check_bounds(ctx: Context, models: bool = False) -> None:
    """Raise SettingsError for settings out of bounds (and, with `models`, bad model settings).

    `treerag search` uses it without models: it needs no chat model.
    """
    from treerag.models import check_model_settings

    problems = [
        f"{_var(name)}={getattr(ctx, name)} must be at least 1"
        for name in AT_LEAST_ONE
        if getattr(ctx, name) < 1
    ]
    if ctx.chunk_overlap >= ctx.chunk_size:
        problems.append(
            f"{_var('chunk_overlap')}={ctx.chunk_overlap} must be smaller than "
            f"{_var('chunk_size')}={ctx.chunk_size}"
        )
    if not 0 <= ctx.dense_weight <= 1:
        problems.append(f"{_var('dense_weight')}={ctx.dense_weight} must lie in [0, 1]")
    if ctx.llm_timeout_s <= 0:
        problems.append(f"{_var('llm_timeout_s')}={ctx.llm_timeout_s} must be positive")
    try:
        if models:
            check_model_settings(ctx)
    except SettingsError as exc:
        problems.append(str(exc))
    if problems:
        raise SettingsError("; ".join(problems))


def _var(name: str) -> str:
    return f"TREERAG_{name.upper()}"
