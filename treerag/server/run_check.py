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
them when the run starts.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import fields
from typing import Any, get_origin, get_type_hints

from treerag.context import Context, SettingsError
from treerag.server.identity import Identity
from treerag.server.scope import AUTH_USER_KEY, scoped

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


def refusal(context: dict[str, Any], identity: Identity | None) -> str | None:
    """The reason a run with this request `context` must not start, or None (blocking)."""
    from treerag.preflight import check_run

    try:
        check_run(run_context(context, identity))
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
        value: The event's value (`Auth.types.RunsCreate`); its `kwargs` hold the context.
        identity: The caller, or None when the server has no users.
    """
    context = (value.get("kwargs") or {}).get("context") or {}
    if not isinstance(context, dict):
        return "the run was not started: its context must be a JSON object"
    # Building a Context looks at the data directory: no blocking calls on the event loop.
    return await asyncio.to_thread(refusal, context, identity)
