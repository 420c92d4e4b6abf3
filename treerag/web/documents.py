"""The page's document routes: list, upload with streamed progress, delete, rebuild, settings.

Each handler only translates HTTP to a call of `treerag.documents` (the same operations the
CLI's `treerag docs` runs) in a worker thread; `context_for` is the one place that decides
which settings (and so which data directory) a request works on.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, get_args

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from treerag.context import Context, SearchMode
from treerag.server.web_guard import require_identity
from treerag.web.uploads import SNIFF_BYTES, UploadRefused, safe_name, save, sniff

log = logging.getLogger(__name__)
MAX_FILES = 20
"""Files one upload request may carry."""
SEARCH_MODE_ORDER = ["hybrid", "dense", "sparse"]


async def context_for(request: Request) -> Context:
    """The settings a request works with: the server's environment, in the caller's tenant.

    Checks the caller first (`require_identity`: 401 without a valid token when the server
    has a users file); a request never chooses its tenant or data directory itself.
    """
    identity = await require_identity(request)
    return Context(tenant=identity.tenant) if identity.tenant else Context()


def _json(data: Any, status_code: int = 200) -> JSONResponse:
    from treerag.web.app import SECURITY_HEADERS

    return JSONResponse(data, status_code=status_code, headers=SECURITY_HEADERS)


async def list_docs(request: Request) -> Response:
    """List the ingested documents.

    ---
    summary: Ingested documents, recently skipped files, stale derived stores (GET /ui/api/docs)
    responses:
      200: {description: "documents: [{source, chunks, ingested_at}], skipped, stale"}
    """
    from treerag.documents import list_documents

    listing = await asyncio.to_thread(list_documents, await context_for(request))
    return _json(listing.as_dict())


async def delete_doc(request: Request) -> Response:
    """Delete one document and what was derived from it.

    ---
    summary: Delete a document by source (DELETE /ui/api/docs?source=...)
    responses:
      200: {description: "source, deleted_chunks, keyword_tree, knowledge_graph"}
      400: {description: no source given}
      404: {description: no such document}
    """
    from treerag.documents import UnknownDocumentError, delete_document

    ctx = await context_for(request)
    source = request.query_params.get("source", "")
    if not source:
        return _json({"error": "give the document as ?source=..."}, 400)
    try:
        done = await asyncio.to_thread(delete_document, ctx, source)
    except UnknownDocumentError as exc:
        return _json({"error": str(exc)}, 404)
    return _json(done.as_dict())


async def rebuild_docs(request: Request) -> Response:
    """Rebuild the stale derived stores.

    ---
    summary: Bring the keyword tree and the graph in step with the chunks (POST)
    responses:
      200: {description: "keyword_tree, knowledge_graph: updated, stale or absent"}
    """
    from treerag.documents import rebuild

    return _json(await asyncio.to_thread(rebuild, await context_for(request)))


def _chunk_count(ctx: Context) -> int:
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    store = ChunkStore(ctx, get_embeddings(ctx))
    return store.count() if store.exists() else 0


async def count_chunks(request: Request) -> Response:
    """How many chunks are stored: one count query, for "is anything in yet?".

    ---
    summary: The number of stored chunks (GET /ui/api/docs/count)
    responses:
      200: {description: "chunks: the number of chunks in the caller's collection (0 if none)"}
      503: {description: the chunk store is unavailable}
    """
    ctx = await context_for(request)
    try:
        return _json({"chunks": await asyncio.to_thread(_chunk_count, ctx)})
    except Exception as exc:  # the store is unreachable or misconfigured: say so
        return _json({"error": f"chunk store unavailable: {exc}"}, 503)


async def settings(request: Request) -> Response:
    """The run settings the page shows and may override.

    ---
    summary: Default run settings for the page (GET /ui/api/settings)
    responses:
      200:
        description: >-
          top_k, max_depth, search_modes, search_mode, chat_models, chat_model, and
          formats: the file extensions an upload may have
    """
    from treerag.ingest.loaders import SUPPORTED

    ctx = await context_for(request)
    return _json(
        {
            "top_k": ctx.top_k,
            "max_depth": ctx.max_depth,
            "search_modes": sorted(get_args(SearchMode), key=SEARCH_MODE_ORDER.index),
            "search_mode": ctx.search_mode,
            # "" is the offline reasoner; the page sends a choice back as the run's context.
            "chat_models": [ctx.chat_model],
            "chat_model": ctx.chat_model,
            "formats": sorted(SUPPORTED),
        }
    )


async def upload_docs(request: Request) -> Response:
    """Upload files and ingest them, streaming progress as NDJSON.

    ---
    summary: Upload files (multipart, parts named files) and ingest them (POST)
    responses:
      200:
        description: >-
          application/x-ndjson, one event a line: file_started, batch, file_done,
          file_skipped, file_duplicate, finished; error when ingestion fails
      400: {description: not a multipart upload, or too many files}
      413: {description: every file is larger than TREERAG_UPLOAD_MAX_MB}
    """
    ctx = await context_for(request)
    limit = ctx.upload_max_mb * 1024 * 1024
    length = int(request.headers.get("content-length") or 0)
    if length > limit * MAX_FILES + 1024 * 1024:
        return _json(
            {"error": f"the upload is larger than {MAX_FILES} x {ctx.upload_max_mb} MB"}, 413
        )
    try:
        form = await request.form(max_files=MAX_FILES, max_fields=10)
    except Exception as exc:  # malformed body, or more parts than allowed
        return _json({"error": f"not a valid multipart upload: {exc}"}, 400)
    files = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
    if not files:
        await form.close()
        return _json({"error": "no file: send parts named 'files'"}, 400)
    too_big = {id(f) for f in files if (f.size or 0) > limit}
    if len(too_big) == len(files):  # nothing to ingest: say so as the request's status
        await form.close()
        names = ", ".join(str(f.filename) for f in files)
        return _json({"error": f"larger than {ctx.upload_max_mb} MB: {names}"}, 413)
    return StreamingResponse(
        _ingest_stream(ctx, form, files, too_big),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )


def _line(event: dict[str, Any]) -> bytes:
    return (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")


def _accept(ctx: Context, upload: UploadFile, too_big: bool) -> tuple[str, Path]:
    """Check and write one upload (blocking); return its shown name and its saved path."""
    if too_big:  # refused alone: the other files of the request go in
        raise UploadRefused(f"larger than {ctx.upload_max_mb} MB (TREERAG_UPLOAD_MAX_MB)")
    name = safe_name(upload.filename or "")
    head = upload.file.read(SNIFF_BYTES)
    sniff(name, head)
    return name, save(ctx, name, upload.file)


async def _ingest_stream(
    ctx: Context, form: Any, files: list[UploadFile], too_big: set[int]
) -> AsyncIterator[bytes]:
    from treerag.documents import ingest_files
    from treerag.documents.operations import remember_skipped
    from treerag.web.uploads import discard, uploads_dir

    refused: list[dict[str, str]] = []
    accepted: list[tuple[str, Path]] = []
    try:
        for upload in files:
            shown = upload.filename or "(unnamed)"
            try:
                accepted.append(
                    await asyncio.to_thread(_accept, ctx, upload, id(upload) in too_big)
                )
            except UploadRefused as exc:
                await asyncio.to_thread(remember_skipped, ctx, shown, str(exc))
                yield _line({"event": "file_started", "name": shown, "size": upload.size or 0})
                yield _line({"event": "file_skipped", "name": shown, "reason": str(exc)})
                refused.append({"name": shown, "reason": str(exc)})
    finally:
        await form.close()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def on_event(event: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, event)

    def work() -> None:
        try:
            base = str(uploads_dir(ctx).parent)
            ingest_files(
                [p for _, p in accepted],
                ctx,
                names=[n for n, _ in accepted],
                on_event=on_event,
                tree_base=base,
            )
        except Exception as exc:  # reported on the stream: the page shows it
            log.exception("upload ingestion failed")
            on_event({"event": "error", "message": f"{type(exc).__name__}: {exc}"})
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, None)

    task = asyncio.create_task(asyncio.to_thread(work))
    while (event := await queue.get()) is not None:
        if event.get("event") == "finished":
            # A saved file that did not go in is not kept: uploads/ holds documents only.
            left = {e["name"] for e in event["skipped"] + event["duplicates"]}
            await asyncio.to_thread(discard, ctx, [p for n, p in accepted if n in left])
            event = {**event, "skipped": refused + event["skipped"]}
        yield _line(event)
    await task
