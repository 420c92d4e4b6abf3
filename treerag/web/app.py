"""The web chat page and the few JSON routes it needs next to the LangGraph API.

`langgraph dev` mounts `app` on the same server as the API (`"http"` in langgraph.json), so
the page streams runs from the API on the same origin and asks this app only for what the
API cannot give: a chunk's text from Milvus, a search tree rebuilt from checkpoints, and the
documents (list, upload, delete, rebuild; `treerag.web.documents`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from treerag.context import Context
from treerag.server.identity import Identity
from treerag.server.run_guard import CancelOnDisconnectGuard
from treerag.server.web_guard import require_identity, require_tree_access

log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).parent / "static"
CHUNK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
THREAD_ID = re.compile(r"^[A-Za-z0-9_./-]{1,200}$")
MAX_TREE_NODES = 500

# Document text is untrusted: the page builds its DOM with textContent, and this policy
# keeps any markup that slipped through from running scripts or loading anything remote.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        "form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _json(data: Any, status_code: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status_code, headers=SECURITY_HEADERS)


def _error(status_code: int, message: str) -> JSONResponse:
    return _json({"error": message}, status_code)


async def index(request: Request) -> Response:
    """Serve the chat page."""
    return FileResponse(STATIC_DIR / "index.html", headers=SECURITY_HEADERS)


def _stored_row(chunk_id: str, identity: Identity) -> tuple[Any, dict[str, Any]] | None:
    """The caller's tenant's chunk store and one of its rows, or None (blocking)."""
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    ctx = Context(tenant=identity.tenant) if identity.tenant else Context()
    store = ChunkStore(ctx, get_embeddings(ctx))
    rows = store.get([chunk_id]) if store.exists() else []
    return (store, rows[0]) if rows else None


def _fetch_chunk(chunk_id: str, identity: Identity) -> dict[str, Any] | None:
    """Read one chunk from the caller's tenant's Milvus collection (blocking)."""
    found = _stored_row(chunk_id, identity)
    if found is None:
        return None
    row = found[1]
    return {
        "chunk_id": chunk_id,
        "text": row.get("text", ""),
        "title": row.get("title", ""),
        "source": row.get("source", ""),
        "chunk_index": row.get("chunk_index", 0),
    }


def _fetch_document(chunk_id: str, identity: Identity) -> dict[str, Any] | None:
    """The document a chunk belongs to, chunk by chunk, from the caller's tenant (blocking)."""
    found = _stored_row(chunk_id, identity)
    if found is None:
        return None
    store, row = found
    source = row.get("source", "")
    return {
        "chunk_id": chunk_id,
        "source": source,
        "title": row.get("title", ""),
        "chunks": [
            {"chunk_id": r["id"], "chunk_index": r.get("chunk_index", 0), "text": r.get("text", "")}
            for r in store.of_source(source)
        ],
    }


async def _chunk_route(request: Request, fetch: Any) -> Response:
    """Answer a route about one chunk of the caller's tenant with `fetch`'s result."""
    identity = await require_identity(request)
    chunk_id = request.path_params["chunk_id"]
    if not CHUNK_ID.match(chunk_id):
        return _error(400, "invalid chunk id")
    try:
        found = await asyncio.to_thread(fetch, chunk_id, identity)
    except Exception as exc:  # the store is unreachable or misconfigured: say so
        return _error(503, f"chunk store unavailable: {exc}")
    if found is None:
        return _error(404, f"no chunk {chunk_id}")
    return _json(found)


async def document(request: Request) -> Response:
    """Return the document a chunk belongs to, as ingested, chunk by chunk.

    ---
    summary: The document of a chunk (GET /ui/api/chunk/{chunk_id}/document)
    responses:
      200: {description: "chunk_id, source, title, chunks: [{chunk_id, chunk_index, text}]"}
      400: {description: an invalid chunk id}
      404: {description: no such chunk (another tenant's is none)}
      503: {description: the chunk store is unavailable}
    """
    return await _chunk_route(request, _fetch_document)


async def chunk(request: Request) -> Response:
    """Return one chunk's text, title and source.

    The part after the line of dashes is the route's OpenAPI entry: the LangGraph server
    reads route docstrings as YAML (Starlette's `SchemaGenerator.parse_docstring`).

    ---
    summary: One chunk's text, title and source (GET /ui/api/chunk/{chunk_id})
    responses:
      200: {description: "chunk_id, text, title, source, chunk_index"}
      400: {description: an invalid chunk id}
      404: {description: no such chunk}
      503: {description: the chunk store is unavailable}
    """
    return await _chunk_route(request, _fetch_chunk)


def _limit(tree: dict[str, Any] | None, budget: list[int]) -> dict[str, Any] | None:
    """Cut a rebuilt tree after MAX_TREE_NODES runs (a guard against runaway trees)."""
    if tree is None:
        return None
    budget[0] -= 1
    for record in tree["chunks"]:
        if record.get("child") is not None:
            record["child"] = _limit(record["child"], budget) if budget[0] > 0 else None
    return tree


async def rebuild_tree(thread_id: str, identity: Identity) -> dict[str, Any] | None:
    """Rebuild the search tree of `thread_id` from the caller's tenant's checkpointer.

    Inside the LangGraph server, through the server's checkpointer pinned to the caller's
    tenant (`treerag.server.checkpointer`: it writes every checkpoint there, and does its
    file work in worker threads, as the server's event loop requires); the tree's
    `<thread>-t1/2` ids, which the API refuses (not UUIDs), are read there directly.
    Outside it (the app mounted elsewhere): `treerag.api.tree`, which opens the same file.
    """
    in_server = bool(os.environ.get("LANGGRAPH_RUNTIME_EDITION"))
    await require_tree_access(identity, thread_id, in_server=in_server)
    if in_server:
        from treerag.graphs.rag import builder
        from treerag.search_tree import rebuild
        from treerag.server.checkpointer import TenantSaver

        saver = TenantSaver(tenant=identity.tenant)
        tree = await rebuild(builder.compile(checkpointer=saver), thread_id)
    else:
        from treerag.api import tree as api_tree

        tree = await api_tree(thread_id, Context(tenant=identity.tenant))
    return _limit(tree, [MAX_TREE_NODES])


async def tree(request: Request) -> Response:
    """Return the search tree of one rag run, rebuilt from its checkpoints.

    ---
    summary: The search tree of one rag run (GET /ui/api/tree/{thread_id})
    responses:
      200: {description: "the tree: thread_id, question, answer, error, chunks with children"}
      400: {description: an invalid thread id}
      404: {description: no search tree under this thread}
    """
    identity = await require_identity(request)
    thread_id = request.path_params["thread_id"]
    if not THREAD_ID.match(thread_id) or ".." in thread_id:
        return _error(400, "invalid thread id")
    found = await rebuild_tree(thread_id, identity)
    if found is None:
        return _error(404, f"no search tree under thread {thread_id}")
    return _json(found)


async def me(request: Request) -> Response:
    """Who the caller is, so the page can tell its own threads from those its tenant shares.

    ---
    summary: The caller (GET /ui/api/me)
    responses:
      200: {description: "user, tenant, shares_threads; user is '' in single-user local mode"}
      401: {description: no valid token (a server with a users file)}
    """
    identity = await require_identity(request)
    return _json(
        {
            "user": "" if identity.local else identity.name,
            "tenant": identity.tenant,
            "shares_threads": identity.shares_threads,
        }
    )


async def unknown_api(request: Request) -> Response:
    """Refuse any other path under /ui/api.

    ---
    summary: Any other /ui/api path (404)
    responses:
      404: {description: no such route}
    """
    return _error(404, "no such route")


def _routes() -> list[Any]:
    from treerag.web import documents, graph_routes

    return [
        Route("/ui", index, methods=["GET"]),
        Route("/ui/", index, methods=["GET"]),
        Route("/ui/api/docs", documents.list_docs, methods=["GET"]),
        Route("/ui/api/docs", documents.delete_doc, methods=["DELETE"]),
        Route("/ui/api/docs/count", documents.count_chunks, methods=["GET"]),
        Route("/ui/api/docs/upload", documents.upload_docs, methods=["POST"]),
        Route("/ui/api/docs/rebuild", documents.rebuild_docs, methods=["POST"]),
        Route("/ui/api/settings", documents.settings, methods=["GET"]),
        Route("/ui/api/me", me, methods=["GET"]),
        Route("/ui/api/chunk/{chunk_id}", chunk, methods=["GET"]),
        Route("/ui/api/chunk/{chunk_id}/document", document, methods=["GET"]),
        Route("/ui/api/tree/{thread_id:path}", tree, methods=["GET"]),
        Route("/ui/api/graph/search", graph_routes.search_graph, methods=["GET"]),
        Route("/ui/api/graph/entity", graph_routes.graph_entity, methods=["GET"]),
        # Anything else under /ui/api is ours to refuse: the API server's own /ui mount
        # would otherwise answer it (with a 500 when its generative-UI folder is absent).
        Route(
            "/ui/api/{rest:path}", unknown_api, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]
        ),
        Mount("/ui/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    response = _error(exc.status_code, str(exc.detail))
    response.headers.update(exc.headers or {})
    return response


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Log the chat page's address at startup; close every open store at shutdown.

    `langgraph dev`'s banner names only its API; the server puts its own base URL in
    LANGGRAPH_API_URL before it starts the app. The LangGraph server runs a custom app's
    lifespan with its own, startup before serving and the code after `yield` at shutdown
    ("How to add custom lifespan events", docs.langchain.com/langsmith/custom-lifespan,
    langgraph-api >= 0.0.26): the place to close the per-tenant stores (`treerag.bounded`).
    """
    base = os.environ.get("LANGGRAPH_API_URL", "").rstrip("/")
    if base:
        log.info("treerag chat page: %s/ui", base)
    try:
        yield
    finally:
        from treerag.server.shutdown import close_stores

        # Closing writes (a keyword tree's caches, SQLite): off the event loop.
        await asyncio.to_thread(close_stores)


app = Starlette(
    routes=_routes(),
    lifespan=lifespan,
    exception_handlers={HTTPException: _http_error},
    # langgraph-api runs a custom app's middleware in front of its own API routes too.
    middleware=[Middleware(CancelOnDisconnectGuard)],
)
"""The Starlette app `langgraph dev` mounts (langgraph.json `"http"`)."""
