"""One check of the settings, models and question before a run starts (CLI, API, server).

A run that starts with a setting it cannot use fails midway: it draws pending chunks, leaves
a half-run in the checkpointer (`treerag runs`), then errors. `check_run` finds those
problems first, without building a model or opening a store, and raises SettingsError
naming the setting and what to do. `check_question` does the same for the question (empty,
not text, too long) and `check_setting_names` for settings passed by name (`topk`).
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from treerag.context import Context, SettingsError


class QuestionError(ValueError):
    """A run's question cannot be answered as given; the one-sentence message says why."""


AT_LEAST_ONE = (
    "top_k",
    "subrun_top_k",
    "chunk_size",
    "hybrid_candidates",
    "rerank_candidates",
    "max_llm_calls",
    "answer_token_budget",
    "rrf_k",
    "max_question_chars",
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
    from treerag.prompts import DEFAULTS

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
    for name in ("llm_timeout_s", "run_timeout_s"):
        if getattr(ctx, name) <= 0:
            problems.append(f"{_var(name)}={getattr(ctx, name)} must be positive")
    unknown = sorted(set(ctx.prompt_overrides) - set(DEFAULTS))
    if unknown:
        problems.append(
            f"{_var('prompt_overrides')} names no prompt {', '.join(map(repr, unknown))} "
            f"(the prompts: {', '.join(sorted(DEFAULTS))})"
        )
    try:
        if models:
            check_model_settings(ctx)
    except SettingsError as exc:
        problems.append(str(exc))
    if problems:
        raise SettingsError("; ".join(problems))


def _var(name: str) -> str:
    return f"TREERAG_{name.upper()}"


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40


def check_question(question: Any, ctx: Context) -> str:
    """Return the question if a run can take it, else raise QuestionError saying why.

    The one check of every door a run comes in by (`treerag ask`, `treerag chat`,
    `treerag.ask`, server runs): the question must be text, not blank, and at most
    `ctx.max_question_chars` characters long.
    """
    if question is None:
        raise QuestionError("no question was given")
    if not isinstance(question, str):
        shown = _SHORT.repr(question)
        raise QuestionError(f"the question must be text, not {type(question).__name__} ({shown})")
    if not question.strip():
        raise QuestionError("the question is empty")
    if len(question) > ctx.max_question_chars:
        raise QuestionError(
            f"the question is {len(question):,} characters long, over the limit of "
            f"{ctx.max_question_chars:,} (TREERAG_MAX_QUESTION_CHARS)"
        )
    return question


def check_setting_names(names: Iterable[str]) -> None:
    """Raise SettingsError naming each name that is no setting, with the closest one that is.

    Args:
        names: Setting names as a caller passed them (e.g. the keys of a run's context).
    """
    known = [f.name for f in fields(Context)]
    unknown = [name for name in names if name not in known]
    if not unknown:
        return
    said = []
    for name in unknown:
        close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
        said.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    noun = "setting" if len(unknown) == 1 else "settings"
    raise SettingsError(f"unknown {noun} {', '.join(said)}")


def chat_question(messages: Any) -> Any:
    """The text of the last human message of a chat graph's input (what `check_question` sees).

    Takes the forms LangGraph's `add_messages` accepts: message objects, their JSON dicts
    (`type` or `role`), `(role, content)` pairs, plain strings, or one of these alone.

    Raises:
        QuestionError: the messages hold no human message.
    """
    items = messages if isinstance(messages, list) else [messages]
    for item in reversed(items):
        role, content = _role_and_content(item)
        if role in ("human", "user"):
            if isinstance(content, list):  # multi-part content: its text parts
                content = " ".join(
                    str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content
                )
            return content
    raise QuestionError("the messages hold no question: send a human message")


def _role_and_content(item: Any) -> tuple[Any, Any]:
    if isinstance(item, str):
        return "human", item
    if isinstance(item, dict):
        return item.get("type") or item.get("role"), item.get("content")
    if isinstance(item, (list, tuple)) and len(item) == 2:
        return item[0], item[1]
    return getattr(item, "type", None), getattr(item, "content", None)
