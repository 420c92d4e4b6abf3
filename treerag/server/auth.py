"""LangGraph's custom auth for the treerag server (langgraph.json `"auth"`).

`authenticate` turns a bearer token into a user through the users file; the `@auth.on`
handlers stamp `owner` and `tenant` into the metadata of what a user creates and return a
filter for everything they read, search, stream, update or delete (`treerag.server.access`
decides which): a user sees only their own threads and runs, or, in a tenant that shares
threads, also reads (never changes) those of the tenant's other users. Any other thread
answers 404, as if it did not exist.
Assistants are the served graphs, shared by all; creating, changing or deleting them, crons
and the key-value store are refused (treerag uses none of them). Without a users file every
handler lets everything through: the single-user local mode of a server with no auth.
In both modes a run whose settings cannot work is refused before it is recorded
(`treerag.server.run_check`, the same check as the CLI's and the Python API's).

See https://langchain-ai.github.io/langgraph/concepts/auth/ for the handler contract:
a handler returning a filter dict scopes the operation; raising HTTPException refuses it.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import Auth

from treerag.server.access import ThreadAction, thread_filter
from treerag.server.identity import (
    Unauthorized,
    announce_mode,
    auth_enabled,
    identify,
    identity_of_user,
)
from treerag.server.run_check import check_server_run

auth = Auth()
announce_mode()
# The handlers below are shared by several actions whose value types differ; the SDK types
# each registration by its own value type, so the registrations go through an untyped name.
_on: Any = auth.on


@auth.authenticate
async def authenticate(authorization: str | None) -> dict[str, Any]:
    """Return the user behind the bearer token, or refuse the request with 401."""
    try:
        identity = await identify(authorization)
    except Unauthorized as exc:
        raise Auth.exceptions.HTTPException(status_code=401, detail=str(exc)) from None
    return {
        "identity": identity.name,
        "tenant": identity.tenant,
        "share_threads": identity.shares_threads,
        "is_authenticated": True,
    }


def _scope(ctx: Auth.types.AuthContext, action: ThreadAction) -> dict[str, str] | None:
    identity = identity_of_user(ctx.user) if auth_enabled() else None
    return thread_filter(identity, action) if identity is not None else None


def _stamp(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> dict[str, str] | None:
    """Write owner and tenant into the new resource's metadata (overriding the caller's).

    The write filter is exactly that pair, so what is stamped is what later writes require.
    """
    scope = _scope(ctx, "write")
    if scope is not None:
        # Update the server's own dict in place (an empty one is still the one it stores).
        metadata = value.get("metadata")
        if metadata is None:
            metadata = value["metadata"] = {}
        metadata.update(scope)
    return scope


@_on.threads.create
async def on_thread_create(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Any:
    """Stamp the new thread with its owner and tenant.

    A thread copy (`POST /threads/{id}/copy`) asks this handler with no metadata at all: the
    copy takes its source's metadata, owner included, and the handler is not told which thread
    is copied. In a tenant that shares threads a reader could so create threads in another
    user's name, so copies are refused there; elsewhere only its owner can read, so copy, a
    thread.
    """
    identity = identity_of_user(ctx.user) if auth_enabled() else None
    if "metadata" not in value and identity is not None and identity.shares_threads:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail="copying threads is not allowed in a tenant sharing threads"
        )
    return _stamp(ctx, value)


@_on.threads.create_run
async def on_run_create(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Any:
    """Refuse a run its settings would fail (422), else stamp it; the filter scopes its thread.

    The server calls this before it records the run or creates its thread, so a refused
    run leaves nothing behind (treerag.server.run_check).
    """
    reason = await check_server_run(value, identity_of_user(ctx.user))
    if reason is not None:
        raise Auth.exceptions.HTTPException(status_code=422, detail=reason)
    return _stamp(ctx, value)


@_on.threads.read
@_on.threads.search
async def on_thread_read(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Scope reads, history, state, joins, run lists and searches to what the caller may read."""
    return _scope(ctx, "read")


@_on.threads.update
@_on.threads.delete
async def on_thread_write(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Scope updates, state writes, run cancels and deletes to the thread's owner."""
    return _scope(ctx, "write")


@_on.assistants.read
@_on.assistants.search
async def on_assistant_read(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Every user may see the served graphs."""
    return None


@_on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Refuse what treerag does not use (assistant writes, crons, the store) under auth."""
    if auth_enabled():
        raise Auth.exceptions.HTTPException(status_code=403, detail="not allowed")
    return None
