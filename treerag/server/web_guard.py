"""The checks our web routes make: the same identity and thread access rule as the LangGraph API."""

from __future__ import annotations

import re
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from treerag.server.access import may_access_thread
from treerag.server.identity import Identity, Unauthorized, identify

# A search tree's thread id: the API thread's UUID, then `-t<turn>` for a chat turn, then
# `/<rank>` per recursion level. Under a users file nothing else names a tree.
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
TREE_THREAD = re.compile(rf"^(?P<root>{_UUID})(?:-t\d{{1,6}})?(?:/\d{{1,4}}){{0,16}}$")


async def require_identity(request: Request) -> Identity:
    """The caller of a web route; 401 (and no detail about why a token failed) otherwise."""
    try:
        return await identify(request.headers.get("authorization"))
    except Unauthorized as exc:
        raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from None


async def thread_metadata(thread_id: str) -> dict[str, Any] | None:
    """The metadata of an API thread, read in-process from the server (None if unknown)."""
    from langgraph_sdk import get_client
    from langgraph_sdk.errors import NotFoundError

    try:
        thread = await get_client().threads.get(thread_id)
    except NotFoundError:
        return None
    return dict(thread.get("metadata") or {})


async def require_tree_access(identity: Identity, thread_id: str, in_server: bool) -> None:
    """Refuse (404, as if absent) a search tree whose API thread the caller may not read.

    A tree is reachable only through its root API thread, whose `owner` and `tenant` were
    stamped by the auth handlers when it was created, and is readable by whoever may read
    that thread (`may_access_thread`: its owner, or its tenant's users when the tenant shares
    threads); guessing a tree id of anyone else's thread finds nothing. Outside the server,
    the tenant's own checkpoint store is the scope.
    """
    if identity.local or not in_server:
        return
    found = TREE_THREAD.match(thread_id)
    meta = await thread_metadata(found.group("root")) if found else None
    if not meta or not may_access_thread(identity, meta, "read"):
        raise HTTPException(404, f"no search tree under thread {thread_id}")
