"""Keep a reader of a shared thread from stopping its owner's run by hanging up.

langgraph-api lets a client join a run's stream (`GET /threads/{t}/runs/{r}/stream` or
`/join`) with `?cancel_on_disconnect=true`, and then cancels the run when that client goes
away; the join asks the auth handlers only for *read* access (langgraph-api 0.16.7,
`Runs.Stream.join` calls `cancel_run` on disconnect without an `update` check). In a tenant
that shares threads, reading is not owning, so such a join is refused here (403) unless the
caller may change the thread (`may_access_thread(..., "write")`). Everything else passes.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from treerag.server.access import may_access_thread
from treerag.server.web_guard import require_identity, thread_metadata

# Any spelling of the ids (the API accepts several forms of a UUID): the thread is looked up.
RUN_JOIN = re.compile(r"^/threads/(?P<thread>[^/]+)/runs/[^/]+/(?:stream|join)/?$")
_TRUE = {"true", "yes", "1"}  # what langgraph-api reads as true for this parameter


def cancels_on_disconnect(scope: Scope) -> str | None:
    """The thread id of a run join that would cancel the run on disconnect, else None."""
    if scope["type"] != "http" or scope.get("method") != "GET":
        return None
    found = RUN_JOIN.match(scope.get("path", ""))
    if found is None:
        return None
    query = QueryParams(scope.get("query_string", b"").decode("latin-1"))
    if not any(v.strip().lower() in _TRUE for v in query.getlist("cancel_on_disconnect")):
        return None
    return found.group("thread")


class CancelOnDisconnectGuard:
    """ASGI middleware: only who may change a thread may join its runs with cancel on disconnect."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap `app` (the whole server: langgraph-api applies our app's middleware globally)."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a cancelling join by a reader who is not the thread's owner; pass the rest."""
        thread_id = cancels_on_disconnect(scope)
        if thread_id is not None:
            refusal = await _refusal(Request(scope, receive), thread_id)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refusal(request: Request, thread_id: str) -> Any:
    try:
        identity = await require_identity(request)
    except HTTPException:
        return None  # no valid token: the API's own authentication answers 401
    if identity.local:
        return None
    try:
        meta = await thread_metadata(thread_id)
    except Exception:  # an id the API cannot read: refuse rather than guess (fail closed)
        return _forbidden()
    if meta is None or not may_access_thread(identity, meta, "read"):
        return None  # not readable either: the API answers 404, as for any other thread
    return None if may_access_thread(identity, meta, "write") else _forbidden()


def _forbidden() -> JSONResponse:
    return JSONResponse(
        {"detail": "only the thread's owner may cancel its runs (cancel_on_disconnect)"},
        status_code=403,
    )
