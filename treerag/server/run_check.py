"""Refuse a server run whose settings cannot work, before the server records anything of it.

The LangGraph server calls the `threads.create_run` auth handler (treerag.server.auth) for
every run it is asked to create, before it stores the run or creates its thread (in
langgraph-runtime-inmem 0.36 `Runs.put` the handler comes first; an `HTTPException` raised
there answers the request with its status and detail). That is where `treerag.preflight.
check_run`, the CLI's and the Python API's check, is applied to server runs: a refused run
leaves no pending run, no checkpoint and no half-drawn tree.

The settings checked are the ones the graph would get: the request's `context` (only the
`Context` fields: the server drops other keys before the graph sees them) over the server's
environment, as the graph builds them from the request; under a users file then bound to the
caller's tenant, with the storage settings of the server, as `treerag.server.scope` binds
them when the run starts. A key that is no setting (`topk`) is refused with the closest one
that is, rather than dropped in silence; keys LangGraph itself puts there pass.

The run's input is checked as `treerag ask` checks its argument (`treerag.preflight.
check_question`): the `rag` graph's `question`, the `chat` graph's last human message. A run
with no input is refused too unless it carries a `command` (`Command(resume=…)`): neither graph
stops midway by itself, so a run without a question or a command has nothing to do (the server
would record it as failed with `EmptyInputError`).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import fields
from typing import Any, get_origin, get_type_hints
from uuid import UUID, uuid5

from treerag.context import Context, SettingsError
from treerag.preflight import (
    QuestionError,
    chat_question,
    check_question,
    check_run,
    check_setting_names,
)
from treerag.server.identity import Identity
from treerag.server.scope import AUTH_USER_KEY, scoped

NAMESPACE_GRAPH = UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
"""langgraph_api.graph.NAMESPACE_GRAPH: a served graph's own assistant is uuid5(this, graph)."""
GRAPH_ASSISTANTS = {str(uuid5(NAMESPACE_GRAPH, g)): g for g in ("rag", "chat")}

SERVER_KEYS = frozenset({"thread_id", "run_id", "assistant_id", "graph_id", "user_id", "cron_id"})
"""Context keys that are no treerag setting but LangGraph's (a client may copy them from a
config's `configurable`); with those starting "langgraph_", "checkpoint" or "__" they pass."""

_JSON_TYPES: dict[Any, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (int, float),
    bool: (bool,),
    dict: (dict,),
}


def run_context(context: dict[str, Any], identity: Identity | None) -> Context:
    """Build the settings a server run with this request `context` would get.

    Raises:
        SettingsError: a value of the wrong JSON type, or one `Context` refuses.
    """
    hints = get_type_hints(Context)
    known = {f.name for f in fields(Context)}
    check_setting_names(k for k in context if not _server_key(k))
    given = {k: v for k, v in context.items() if k in known}
    for name, value in given.items():
        hint = hints[name]
        allowed = _JSON_TYPES.get(dict if get_origin(hint) is dict else hint, (str,))
        # bool is an int in Python, but `true` is no top_k.
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            kind = getattr(hint, "__name__", str(hint))
            raise SettingsError(f"setting {name}={value!r} is not a valid {kind}")
    # The graph builds its Context from the request as it is, then binds the caller's tenant.
    ctx = Context(**given)
    if identity is None or identity.local:
        return ctx
    return scoped(
        ctx,
        {"configurable": {AUTH_USER_KEY: {"identity": identity.name, "tenant": identity.tenant}}},
    )


def _server_key(name: str) -> bool:
    return name in SERVER_KEYS or name.startswith(("langgraph_", "checkpoint", "__"))


def run_question(assistant_id: Any, run_input: Any) -> Any:
    """The question a run's input asks (not yet checked).

    Args:
        assistant_id: The run's assistant: a served graph's (its name or uuid5) says which
            input to read; another's is read by the input's shape.
        run_input: The request's `input`.

    Raises:
        QuestionError: no input, an input that is no JSON object, or one that lacks the
            graph's question.
    """
    graph = GRAPH_ASSISTANTS.get(str(assistant_id), str(assistant_id))
    if graph not in ("rag", "chat"):
        graph = "chat" if isinstance(run_input, dict) and "messages" in run_input else "rag"
    example = (
        '{"messages": [{"type": "human", "content": "…"}]}'
        if graph == "chat"
        else '{"question": "…"}'
    )
    key = "messages" if graph == "chat" else "question"
    if run_input is None:
        raise QuestionError(f"the run has no input: send {example}")
    if not isinstance(run_input, dict) or key not in run_input:
        raise QuestionError(f"the {graph} graph's input has no {key}: send {example}")
    if graph == "chat":
        return chat_question(run_input["messages"])
    return run_input["question"]


def _settings_refusal(context: dict[str, Any], identity: Identity | None) -> str | None:
    """The reason a resumed run (no question) with this `context` must not start, or None."""
    return refusal(context, identity, None)


def refusal(context: dict[str, Any], identity: Identity | None, question: Any) -> str | None:
    """The reason a run with this request `context` and question must not start, or None.

    `question` None is a resumed run's: its settings alone are checked. Blocking (building the
    settings looks at the data directory).
    """
    try:
        ctx = run_context(context, identity)
        if question is not None:
            check_question(question, ctx)
        check_run(ctx)
    except QuestionError as exc:
        return f"the run was not started: {exc}"
    except SettingsError as exc:
        message = str(exc)
        asked = [n for n in context if re.search(rf"\bTREERAG_{n.upper()}\b", message)]
        if asked:
            message += f" (set by this run's settings: {', '.join(asked)})"
        return f"the run was not started: {message}"
    return None


async def check_server_run(value: dict[str, Any], identity: Identity | None) -> str | None:
    """The reason the run of a `threads.create_run` event must not start, or None.

    Args:
        value: The event's value (`Auth.types.RunsCreate`); its `kwargs` hold the context
            and the input.
        identity: The caller, or None when the server has no users.
    """
    kwargs = value.get("kwargs") or {}
    context = kwargs.get("context") or {}
    if not isinstance(context, dict):
        return "the run was not started: its context must be a JSON object"
    if kwargs.get("input") is None and kwargs.get("command"):
        return await asyncio.to_thread(_settings_refusal, context, identity)
    try:
        question = run_question(value.get("assistant_id"), kwargs.get("input"))
    except QuestionError as exc:
        return f"the run was not started: {exc}"
    # Building a Context looks at the data directory: no blocking calls on the event loop.
    return await asyncio.to_thread(refusal, context, identity, question)
