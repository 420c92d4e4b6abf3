"""Index checkpoints: the in-memory indexes written to indexes/*.json for a fast cold start."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import orjson

from treerag.keyword_tree.indexes import TreeIndex
from treerag.keyword_tree.models import now_iso
from treerag.keyword_tree.storage import Commit

# seed 03 §3.1 names these files; §3.2 step 4 writes them "asynchronously or periodically".
# nodes.json (the live keyword records) lets a cold start skip parsing keywords/nodes.jsonl.
# Each carries the checkpoint id of the manifest, which is written last: a crash half-way
# through leaves ids that disagree, and the loader then rebuilds from the JSONL files.
_PARTS = {
    "nodes": "indexes/nodes.json",
    "inverted": "indexes/inverted.json",
    "children": "indexes/children.json",
    "info_by_kw": "indexes/info_by_kw.json",
    "kw_by_info": "indexes/kw_by_info.json",
    "info_offsets": "infos/index.json",
}
_MANIFEST = "indexes/manifest.json"


def _write_atomic(path: Path, data: bytes, fsync: bool) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        if fsync:
            os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_checkpoint(root: Path, index: TreeIndex, commit: Commit, *, fsync: bool = True) -> None:
    """Write the indexes as of commit (the index must be synced to exactly that commit)."""
    if any(offset < 0 for offset in index.info_offsets.values()):
        return  # a write is in flight; the next checkpoint will catch it
    checkpoint = secrets.token_hex(8)
    for name, rel in _PARTS.items():
        payload = {"checkpoint": checkpoint, "data": getattr(index, name)}
        _write_atomic(root / rel, orjson.dumps(payload), fsync)
    manifest = {
        "checkpoint": checkpoint,
        "gen": commit.gen,
        "ends": commit.ends,
        "written_at": now_iso(),
        "counts": {
            "nodes": len(index.nodes),
            "infos": len(index.info_offsets),
            "links": index.link_count(),
        },
    }
    _write_atomic(root / _MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2), fsync)


def read_checkpoint(root: Path, commit: Commit) -> tuple[dict[str, int], dict[str, Any]] | None:
    """Return (ends, parts) of a checkpoint usable at commit, or None.

    Usable means: same generation, taken at or before the committed ends, and all parts
    from the same checkpoint.
    """
    try:
        manifest = orjson.loads((root / _MANIFEST).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if manifest.get("gen") != commit.gen:
        return None
    ends = manifest.get("ends", {})
    if any(ends.get(name, -1) > end or ends.get(name, -1) < 0 for name, end in commit.ends.items()):
        return None
    parts: dict[str, Any] = {}
    for name, rel in _PARTS.items():
        try:
            payload = orjson.loads((root / rel).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        if payload.get("checkpoint") != manifest["checkpoint"]:
            return None
        parts[name] = payload["data"]
    return ends, parts


def drop_checkpoint(root: Path) -> None:
    """Remove the manifest so that no checkpoint is trusted (after files were replaced)."""
    try:
        (root / _MANIFEST).unlink()
    except FileNotFoundError:
        pass
