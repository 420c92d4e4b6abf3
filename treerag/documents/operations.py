"""List, ingest, delete and rebuild: the document operations every client calls."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from treerag.context import Context
from treerag.data_layout import uploads_dir
from treerag.documents import derived
from treerag.documents.manifest import duplicate_reason, read_manifest, update_manifest

Event = dict[str, Any]
EventHandler = Callable[[Event], None]
_writes = threading.Lock()
"""One document write at a time in a process (uploads and deletes arrive concurrently)."""


class UnknownDocumentError(LookupError):
    """No chunks are stored for this source."""


@dataclass
class Document:
    """One ingested file."""

    source: str
    chunks: int
    ingested_at: str | None = None


@dataclass
class Listing:
    """The ingested documents, the files recently skipped, and the stale derived stores."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    stale: dict[str, bool] = field(default_factory=dict)
    behind: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per derived store out of step: chunks it misses ("missing") and holds too many."""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (`GET /ui/api/docs`)."""
        return asdict(self)


@dataclass
class Deletion:
    """What deleting a document did."""

    source: str
    deleted_chunks: int
    keyword_tree: str
    knowledge_graph: str

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (`DELETE /ui/api/docs`)."""
        return asdict(self)


def _store(ctx: Context) -> Any:
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    return ChunkStore(ctx, get_embeddings(ctx))


def list_documents(ctx: Context) -> Listing:
    """Every ingested file (by source path) with its chunk count and when it was ingested.

    `stale` says, per derived store, whether it is out of step with the chunks: marked as
    unable to follow, or missing chunks (a write that was killed), which `rebuild` repairs;
    `behind` counts what each misses and holds too many (`derived.lag`).
    """
    manifest = read_manifest(ctx)
    known = manifest["documents"]
    live = derived.live_chunks(ctx)
    documents = [
        Document(source, len(ids), (known.get(source) or {}).get("ingested_at"))
        for source, ids in sorted(live.items())
    ]
    lags = derived.lag(ctx, live)
    stale = {
        s: bool(manifest["stale"].get(s)) or lags.get(s, derived.Lag()).behind
        for s in derived.STORES
    }
    behind = {s: asdict(lag) for s, lag in lags.items() if lag.behind}
    return Listing(documents, list(manifest["skipped"]), stale, behind)


def ingest_files(
    paths: Sequence[Path],
    ctx: Context,
    *,
    names: Sequence[str] | None = None,
    on_event: EventHandler | None = None,
    tree_base: str | None = None,
) -> dict[str, Any]:
    """Ingest files one at a time, reporting events; return the `finished` event.

    Events (dicts with an "event" key): `file_started` (name, size), `batch` (name, done,
    total: chunks embedded so far), `file_done` (name, chunks_added, status: added, updated
    or unchanged), `file_skipped` (name, reason), `file_duplicate` (name, reason: a file whose
    text is already stored under another path, remembered with the skipped files), then
    `finished` (added: names, skipped and duplicates: [{name, reason}]). `names` are the
    names shown for the paths (an upload's own name); the keyword tree and the graph get the
    new chunks at once (the tree names files relative to `tree_base`).
    """
    from treerag.ingest.indexer import ingest
    from treerag.ingest.loaders import SUPPORTED

    emit = on_event or (lambda event: None)
    names = list(names) if names is not None else [Path(p).name for p in paths]
    added: list[str] = []
    skipped: list[dict[str, str]] = []
    duplicates: list[dict[str, str]] = []
    for path, name in zip(paths, names, strict=True):
        emit({"event": "file_started", "name": name, "size": Path(path).stat().st_size})
        if Path(path).suffix.lower() not in SUPPORTED:
            reason = f"unsupported file type {Path(path).suffix or '(none)'!r}; ingest takes " + (
                " ".join(sorted(SUPPORTED))
            )
            remember_skipped(ctx, name, reason)
            skipped.append({"name": name, "reason": reason})
            emit({"event": "file_skipped", "name": name, "reason": reason})
            continue

        def progress(stage: str, done: int, total: int, name: str = name) -> None:
            if stage == "embed":
                emit({"event": "batch", "name": name, "done": done, "total": total})

        with _writes:
            # A page's upload keeps the derived stores in step; building one again from
            # every chunk (an upgrade's new rules) is the rebuild button's, not an upload's.
            report = ingest(
                [Path(path)], ctx, progress=progress, tree_base=tree_base, renew_derived=False
            )
            result = report.files[0] if report.files else None
        if result is None or result.status == "skipped":
            reason = result.reason if result else "nothing to ingest"
            skipped.append({"name": name, "reason": reason})
            emit({"event": "file_skipped", "name": name, "reason": reason})
            continue
        if result.status == "duplicate":  # stored once, under the path that came first
            reason = duplicate_reason(result.reason)  # listed by `record_ingest`
            duplicates.append({"name": name, "reason": reason})
            emit({"event": "file_duplicate", "name": name, "reason": reason})
            continue
        added.append(name)
        emit(
            {
                "event": "file_done",
                "name": name,
                "chunks_added": result.added,
                "status": result.status,
            }
        )
    finished = {"event": "finished", "added": added, "skipped": skipped, "duplicates": duplicates}
    emit(finished)
    return finished


def remember_skipped(ctx: Context, name: str, reason: str) -> None:
    """Add a refused file to the list `list_documents` shows."""
    from treerag.documents.manifest import now_iso

    update_manifest(
        ctx, lambda d: d["skipped"].append({"name": name, "reason": reason, "at": now_iso()})
    )


def delete_document(ctx: Context, source: str) -> Deletion:
    """Delete a file's chunks, then what the keyword tree and the graph derived from them.

    An uploaded copy under `<data_dir>/uploads/` is removed too. Raises UnknownDocumentError
    when no chunk is stored for `source`.
    """
    store = _store(ctx)
    with _writes:
        live = derived.live_chunks(ctx)
        ids = live.pop(source, None)
        if not ids:
            raise UnknownDocumentError(f"no document {source!r} is ingested")
        store.delete(sorted(ids))
        store.flush()
        outcome = derived.reconcile(ctx, removed=ids, renew=False)
    update_manifest(ctx, lambda d: d["documents"].pop(source, None))
    uploads = uploads_dir(ctx.tenant_path).resolve()
    path = Path(source)
    if path.parent == uploads and path.is_file():
        os.unlink(path)
    return Deletion(source, len(ids), outcome["keyword_tree"], outcome["knowledge_graph"])


def resolve_document(ctx: Context, name: str) -> str:
    """The stored source a user means by `name`: as stored, as a path, or by its base name.

    Sources are stored as absolute paths; a path relative to the current folder is resolved,
    and a name with no folder matches the one ingested file of that base name. Raises
    UnknownDocumentError when nothing matches or the base name is ambiguous.
    """
    files = set(derived.live_chunks(ctx))
    if name in files:
        return name
    resolved = Path(name).expanduser().resolve().as_posix()
    if resolved in files:
        return resolved
    same_name = sorted(f for f in files if Path(f).name == Path(name).name)
    if len(same_name) == 1 and Path(name).name == name:
        return same_name[0]
    if len(same_name) > 1:
        raise UnknownDocumentError(
            f"{name!r} names {len(same_name)} ingested files: {', '.join(same_name)}; give its path"
        )
    for refused in reversed(read_manifest(ctx)["skipped"]):
        if refused.get("path") == resolved or refused.get("name") == name:
            raise UnknownDocumentError(f"{name!r} is not stored: {refused['reason']}")
    raise UnknownDocumentError(f"no document {name!r} is ingested (looked for {resolved})")


def rebuild(ctx: Context) -> dict[str, str]:
    """Bring the keyword tree and the graph back in step with the stored chunks."""
    with _writes:
        return dict(derived.reconcile(ctx))
