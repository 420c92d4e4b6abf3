"""Compaction, snapshots and rebuilding from the change log (seed 03 §3.2, §七)."""

from __future__ import annotations

import io
import os
import tarfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from treerag.keyword_tree.changelog import iter_log
from treerag.keyword_tree.errors import NotFoundError, StorageError
from treerag.keyword_tree.indexes import TreeIndex, unpack_link
from treerag.keyword_tree.jsonl import LoadIssue, dump_lines, gc_paused, parse_bulk, read_range
from treerag.keyword_tree.models import Record
from treerag.keyword_tree.storage import DATA_FILES, Commit, Storage


def compacted_blobs(storage: Storage, index: TreeIndex) -> tuple[dict[str, bytes], dict[str, int]]:
    """Encode only the latest live version of every record; return blobs and info offsets."""
    with gc_paused():
        return _compacted_blobs(storage, index)


def _compacted_blobs(storage: Storage, index: TreeIndex) -> tuple[dict[str, bytes], dict[str, int]]:
    nodes = dump_lines(list(index.nodes.values()))
    data = read_range(storage.path("infos"), 0, storage.size("infos"))
    parts: list[bytes] = []
    offsets: dict[str, int] = {}
    pos = 0
    for info_id, offset in index.info_offsets.items():
        # Copy the stored line as is: no decode/encode for the bulk of the data.
        line = data[offset : data.index(b"\n", offset) + 1]
        offsets[info_id] = pos
        parts.append(line)
        pos += len(line)
    links: list[Record] = []
    for info_id, by_kw in index.kw_by_info.items():
        for keyword_id, packed in by_kw.items():
            relation, created_by, created_at = unpack_link(packed)
            links.append(
                {
                    "info_id": info_id,
                    "keyword_id": keyword_id,
                    "relation": relation,
                    "created_by": created_by,
                    "created_at": created_at,
                    "deleted": False,
                    "op": None,
                }
            )
    # Oldest link first, as appends left them: file order stays time order.
    links.sort(key=lambda rec: rec["created_at"])
    return {"nodes": nodes, "infos": b"".join(parts), "links": dump_lines(links)}, offsets


def snapshot_name(ts: str) -> str:
    """Return the file name of the snapshot taken at ts."""
    return f"snapshot_{ts}.tar.gz"


def new_timestamp() -> str:
    """Return a sortable UTC timestamp for a snapshot name."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def write_snapshot(root: Path, blobs: dict[str, bytes], meta: dict[str, Any]) -> str:
    """Write snapshots/snapshot_{ts}.tar.gz holding the data files and meta.json."""
    ts = new_timestamp()
    while (root / "snapshots" / snapshot_name(ts)).exists():
        ts = new_timestamp()
    meta = {**meta, "ts": ts, "format": 1}
    target = root / "snapshots" / snapshot_name(ts)
    tmp = target.with_suffix(".tmp")
    with tarfile.open(tmp, "w:gz", compresslevel=3) as tar:
        for name, blob in blobs.items():
            _add(tar, DATA_FILES[name], blob)
        _add(tar, "meta.json", orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, target)
    return ts


def _add(tar: tarfile.TarFile, name: str, blob: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(blob)
    tar.addfile(info, io.BytesIO(blob))


def list_snapshots(root: Path) -> list[str]:
    """Return the timestamps of the stored snapshots, oldest first."""
    names = sorted(p.name for p in (root / "snapshots").glob("snapshot_*.tar.gz"))
    return [name[len("snapshot_") : -len(".tar.gz")] for name in names]


def resolve_snapshot(root: Path, ts: str) -> str:
    """Accept a timestamp, a file name or "latest"; return the timestamp."""
    known = list_snapshots(root)
    if ts == "latest" and known:
        return known[-1]
    if ts.startswith("snapshot_"):
        ts = ts[len("snapshot_") :].removesuffix(".tar.gz")
    if ts not in known:
        hint = f"known: {', '.join(known[-5:])}" if known else "no snapshot has been taken"
        raise NotFoundError("snapshot", ts, hint)
    return ts


def read_snapshot(root: Path, ts: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Return (meta, blobs per data file) of a snapshot."""
    path = root / "snapshots" / snapshot_name(ts)
    blobs: dict[str, bytes] = {}
    try:
        with tarfile.open(path, "r:gz") as tar:
            meta = orjson.loads(_member(tar, "meta.json"))
            for name, rel in DATA_FILES.items():
                blobs[name] = _member(tar, rel)
    except (OSError, tarfile.TarError, KeyError, orjson.JSONDecodeError) as exc:
        raise StorageError(f"snapshot {path} is unreadable: {exc}") from exc
    return meta, blobs


def _member(tar: tarfile.TarFile, name: str) -> bytes:
    fh = tar.extractfile(name)
    if fh is None:
        raise KeyError(name)
    return fh.read()


def rebuild_from_log(storage: Storage, commit: Commit) -> tuple[dict[str, bytes], LoadIssue]:
    """Rebuild the data files: latest snapshot before commit, then replay the change log.

    This is the recovery path of seed 03 §七 for data files that are missing or shorter
    than the log says; the log holds every committed record as an after-image.
    """
    with gc_paused():
        return _rebuild(storage, commit)


def _rebuild(storage: Storage, commit: Commit) -> tuple[dict[str, bytes], LoadIssue]:
    state: dict[str, dict[Any, Record]] = {"nodes": {}, "infos": {}, "links": {}}
    start = 0
    usable = _latest_usable(storage.root, commit.log_end)
    if usable:
        start = _load_snapshot_state(storage.root, usable, state)
    for _, entry in iter_log(storage, start, commit.log_end):
        if entry.get("kind") == "restore":
            _load_snapshot_state(storage.root, entry["args"]["snapshot"], state)
        for change in entry.get("changes", ()):
            _apply(state, change["t"], change["after"])
    blobs = {name: dump_lines(list(records.values())) for name, records in state.items()}
    source = f"snapshot {usable} + " if usable else ""
    issue = LoadIssue(storage.root.as_posix(), 0, f"data files rebuilt from {source}change log")
    return blobs, issue


def _latest_usable(root: Path, log_end: int) -> str | None:
    """Return the newest snapshot taken at or before log_end that can be read."""
    for ts in reversed(list_snapshots(root)):
        try:
            meta, _ = read_snapshot(root, ts)
        except StorageError:
            continue
        if meta.get("log_end", 1 << 62) <= log_end:
            return ts
    return None


def _load_snapshot_state(root: Path, ts: str, state: dict[str, dict[Any, Record]]) -> int:
    meta, blobs = read_snapshot(root, ts)
    for name in state:
        state[name] = {}
        for rec in parse_bulk(blobs[name]) or []:
            _apply(state, {"nodes": "node", "infos": "info", "links": "link"}[name], rec)
    return int(meta.get("log_end", 0))


def _apply(state: dict[str, dict[Any, Record]], kind: str, rec: Record) -> None:
    name = {"node": "nodes", "info": "infos", "link": "links"}[kind]
    key = (rec["info_id"], rec["keyword_id"]) if kind == "link" else rec["id"]
    if rec.get("deleted"):
        state[name].pop(key, None)
    else:
        state[name][key] = rec
