"""The data directory's record of documents: when each went in, what was skipped, what is stale.

Milvus holds the chunks; this small JSON file holds what the chunks cannot say: when a file
went in, which files were refused and why, whether a derived store (keyword tree,
knowledge graph) lags behind the chunks, and which rules built each (`documents.built_with`).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from treerag.context import Context
from treerag.data_layout import manifest_file
from treerag.text import source_file

log = logging.getLogger(__name__)
MAX_SKIPPED = 50
"""Skipped files remembered (the most recent)."""
DERIVED = ("keyword_tree", "knowledge_graph")

_lock = threading.Lock()


def now_iso() -> str:
    """The current time, ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def manifest_path(ctx: Context) -> Path:
    """Where the manifest of a data directory lives."""
    return manifest_file(ctx.tenant_path)


def _empty() -> dict[str, Any]:
    return {
        "documents": {},
        "skipped": [],
        "stale": dict.fromkeys(DERIVED, False),
        "stale_reasons": {},
        "built_with": {},
    }


def read_manifest(ctx: Context) -> dict[str, Any]:
    """The manifest (an empty one when the file is missing or unreadable)."""
    data = _empty()
    try:
        loaded = json.loads(manifest_path(ctx).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return data
    if isinstance(loaded, dict):
        data["documents"].update(loaded.get("documents") or {})
        data["skipped"] = list(loaded.get("skipped") or [])[-MAX_SKIPPED:]
        data["stale"].update(loaded.get("stale") or {})
        data["stale_reasons"].update(loaded.get("stale_reasons") or {})
        data["built_with"].update(loaded.get("built_with") or {})
    return data


def update_manifest(ctx: Context, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Apply `change` to the manifest and write it atomically (serialized in this process)."""
    path = manifest_path(ctx)
    with _lock:
        data = read_manifest(ctx)
        change(data)
        data["skipped"] = data["skipped"][-MAX_SKIPPED:]
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".documents-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False, indent=1)
            os.replace(tmp, path)
        except BaseException:  # a full disk, a kill: no half-written temp file stays behind
            Path(tmp).unlink(missing_ok=True)
            raise
    return data


def duplicate_reason(why: str) -> str:
    """How a duplicate file is listed: what it copies, and that it is not stored again."""
    return f"duplicate ({why}): not stored again"


def record_ingest(ctx: Context, report: Any) -> None:
    """Remember what an `ingest` call did: files added or updated, skipped, pruned."""
    when = now_iso()

    def change(data: dict[str, Any]) -> None:
        for f in report.files:
            if f.status in ("added", "updated"):
                data["documents"][f.path] = {"ingested_at": when}
            elif f.status == "skipped":
                data["skipped"].append({"name": Path(f.path).name, "reason": f.reason, "at": when})
            elif f.status == "duplicate":  # listed, so that the user learns where its text is
                reason = duplicate_reason(f.reason)
                said = {"name": Path(f.path).name, "path": f.path, "reason": reason, "at": when}
                data["skipped"].append(said)
        for source in report.pruned_sources:
            data["documents"].pop(source_file(source), None)

    try:
        update_manifest(ctx, change)
    except OSError as exc:  # the chunks are in; only the "when" and "skipped" notes are lost
        log.warning("could not record the ingestion in %s: %s", manifest_path(ctx), exc)


def mark_stale(ctx: Context, store: str, stale: bool = True, reason: str = "") -> None:
    """Flag (or clear) a derived store as lagging behind the chunks, with the reason why."""

    def change(data: dict[str, Any]) -> None:
        data["stale"][store] = stale
        if stale:
            data["stale_reasons"][store] = reason or "an update of it failed"
        else:
            data["stale_reasons"].pop(store, None)

    update_manifest(ctx, change)
