"""A write transaction: staged record changes with before-images (seed 03 §4.5)."""

from __future__ import annotations

from typing import Any

import orjson

from treerag.keyword_tree.cache import Touched
from treerag.keyword_tree.errors import NotFoundError, VersionConflictError
from treerag.keyword_tree.indexes import TreeIndex
from treerag.keyword_tree.models import Record, new_id, now_iso

FILE_OF = {"node": "nodes", "info": "infos", "link": "links"}


def link_key(info_id: str, keyword_id: str) -> tuple[str, str, str]:
    """Return the change key of a link."""
    return ("link", info_id, keyword_id)


class Txn:
    """Stage changes against the live index, keep first before-images, roll back on error.

    Staging applies each change to the in-memory index at once, so later steps of the same
    operation (a batch, a merge, a reorganization plan) see earlier ones. The store then
    writes the final after-images, logs before/after for undo, or calls ``rollback``.
    """

    def __init__(self, index: TreeIndex, kind: str, args: dict[str, Any]) -> None:
        self.index = index
        self.kind = kind
        self.args = args
        self.op_id = new_id("op")
        self.ts = now_iso()
        self.actor = str(args.get("created_by", "user"))
        self.agent_log: list[dict[str, Any]] = []
        self.undo_of: str | None = None
        self.result: Any = None
        # key → [type, before, after, before_offset]
        self._changes: dict[tuple[str, ...], list[Any]] = {}

    # -- reading current state -------------------------------------------------------------

    def node(self, node_id: str, version: int | None = None) -> Record:
        """Return the live record of a keyword, checking the caller's version if given."""
        rec = self.index.nodes.get(node_id)
        if rec is None:
            raise NotFoundError("keyword", node_id)
        if version is not None and rec["version"] != version:
            raise VersionConflictError("keyword", node_id, version, rec["version"])
        return rec

    def info(self, info_id: str, version: int | None = None) -> Record:
        """Return the live record of an info, checking the caller's version if given."""
        rec = self.index.get_info(info_id)
        if rec is None:
            raise NotFoundError("info", info_id)
        if version is not None and rec["version"] != version:
            raise VersionConflictError("info", info_id, version, rec["version"])
        return rec

    # -- staging ------------------------------------------------------------------------------

    def stamp(self, rec: Record, *, deleted: bool = False) -> Record:
        """Return rec marked as written by this operation."""
        rec["deleted"] = deleted
        rec["op"] = self.op_id
        return rec

    def put_node(self, rec: Record) -> Record:
        """Stage a new version of a keyword (or a tombstone)."""
        before = self.index.put_node(rec)
        self._note(("node", rec["id"]), "node", before, rec, -1)
        return rec

    def put_info(self, rec: Record) -> Record:
        """Stage a new version of an info (or a tombstone)."""
        before = self.index.get_info(rec["id"])
        offset = self.index.info_offsets.get(rec["id"], -1)
        self.index.put_info(rec, -1)
        self._note(("info", rec["id"]), "info", before, rec, offset)
        return rec

    def put_link(self, rec: Record) -> Record:
        """Stage a link (or an unlink, as a tombstone)."""
        before = self.index.put_link(rec)
        self._note(link_key(rec["info_id"], rec["keyword_id"]), "link", before, rec, -1)
        return rec

    def _note(
        self, key: tuple[str, ...], kind: str, before: Record | None, after: Record, off: int
    ) -> None:
        if key in self._changes:
            self._changes[key][2] = after
        else:
            self._changes[key] = [kind, before, after, off]

    def changes(self) -> list[tuple[str, Record | None, Record]]:
        """Return (type, before, after) of every change that does something."""
        out = []
        for kind, before, after, _ in self._changes.values():
            if before is None and after.get("deleted"):
                continue  # created and removed within the operation
            out.append((kind, before, after))
        return out

    def rollback(self) -> None:
        """Undo every staged change in the in-memory index (nothing was written)."""
        for key, (kind, before, after, offset) in reversed(list(self._changes.items())):
            if kind == "node":
                self.index.put_node(before or {"id": key[1], "deleted": True})
            elif kind == "info":
                if before is None:
                    self.index.put_info({"id": key[1], "deleted": True}, -1)
                else:
                    self.index.put_info(before, offset)
            else:
                self.index.put_link(before or {**after, "deleted": True})
        self._changes.clear()

    # -- encoding -----------------------------------------------------------------------------

    def encode(self) -> tuple[dict[str, bytes], dict[str, int], Touched]:
        """Return the JSONL per file, each info's offset within its blob, and the stale set."""
        parts: dict[str, list[bytes]] = {name: [] for name in FILE_OF.values()}
        sizes = dict.fromkeys(FILE_OF.values(), 0)
        info_pos: dict[str, int] = {}
        touched = Touched()
        for kind, before, after in self.changes():
            line = orjson.dumps(after) + b"\n"
            name = FILE_OF[kind]
            if kind == "info" and not after.get("deleted"):
                info_pos[after["id"]] = sizes[name]
            parts[name].append(line)
            sizes[name] += len(line)
            self._touch(touched, kind, before, after)
        blobs = {name: b"".join(lines) for name, lines in parts.items()}
        return blobs, info_pos, touched

    def _touch(self, touched: Touched, kind: str, before: Record | None, after: Record) -> None:
        # a deleted info's links are tombstoned in the same operation, which covers its pages
        if kind == "node":
            touched.node(before, None if after.get("deleted") else after)
        elif kind == "link":
            touched.pages.add(after["keyword_id"])
        else:
            touched.pages.update(self.index.kw_by_info.get(after["id"], {}))

    def entry(self) -> dict[str, Any]:
        """Return the change-log entry; key order matters (Storage.find_op searches for it)."""
        entry: dict[str, Any] = {"t": "op", "op_id": self.op_id, "kind": self.kind}
        entry["ts"] = self.ts
        entry["actor"] = self.actor
        entry["args"] = self.args
        if self.undo_of:
            entry["undo_of"] = self.undo_of
        if self.agent_log:
            entry["agent"] = self.agent_log
        entry["changes"] = [
            {"t": kind, "before": before, "after": after} for kind, before, after in self.changes()
        ]
        return entry
