"""Undo of seed 03 §5.8: replay an operation's before-images, refusing over later changes."""

from __future__ import annotations

from typing import Any

from treerag.keyword_tree.errors import UndoError
from treerag.keyword_tree.models import Record, now_iso
from treerag.keyword_tree.txn import Txn

NOT_UNDOABLE = {
    "compact": "compaction changes no content",
    "restore": "restore a snapshot again instead (one of the current state was taken first)",
    "recover": "recovery rebuilt files without changing content",
}

# Fields that change with every write and so do not count as content.
_BOOKKEEPING = frozenset({"version", "updated_at", "op", "deleted"})


def same_content(a: Record | None, b: Record | None) -> bool:
    """Return whether two records hold the same content (None: absent or deleted)."""
    if a is None or a.get("deleted"):
        return b is None or bool(b.get("deleted"))
    if b is None or b.get("deleted"):
        return False
    keys = (set(a) | set(b)) - _BOOKKEEPING
    return all(a.get(key) == b.get(key) for key in keys)


def _current(tx: Txn, kind: str, rec: Record) -> Record | None:
    if kind == "node":
        return tx.index.nodes.get(rec["id"])
    if kind == "info":
        return tx.index.get_info(rec["id"])
    return tx.index.link_record(rec["info_id"], rec["keyword_id"])


def _describe(kind: str, rec: Record) -> str:
    if kind == "link":
        return f"link {rec['info_id']} -> {rec['keyword_id']}"
    return f"{'keyword' if kind == 'node' else kind} {rec['id']}"


def stage_undo(tx: Txn, entry: dict[str, Any]) -> int:
    """Stage the reverse of a logged operation; return how many records were restored.

    Every record the operation wrote must still hold what it wrote (content-wise);
    otherwise a later operation changed it and that one must be undone first.
    """
    kind = entry.get("kind", "")
    if kind in NOT_UNDOABLE:
        raise UndoError(
            f"operation {entry['op_id']} ({kind}) cannot be undone: {NOT_UNDOABLE[kind]}"
        )
    changes = entry.get("changes", [])
    for change in changes:
        current = _current(tx, change["t"], change["after"])
        if not same_content(current, change["after"]):
            raise UndoError(
                f"cannot undo {entry['op_id']} ({kind}): {_describe(change['t'], change['after'])} "
                "was changed by a later operation; undo that one first"
            )
    for change in reversed(changes):
        _restore(tx, change["t"], change["before"], change["after"])
    _check_structure(tx, entry["op_id"], changes)
    return len(changes)


def _check_structure(tx: Txn, op_id: str, changes: list[dict[str, Any]]) -> None:
    """Refuse an undo that would leave orphans, cycles, clashes or dangling links."""
    index = tx.index
    for change in changes:
        after = change["after"]
        if change["t"] == "link":
            link = index.link_record(after["info_id"], after["keyword_id"])
            if link and (
                after["keyword_id"] not in index.nodes or after["info_id"] not in index.info_offsets
            ):
                _refuse(op_id, f"{_describe('link', after)} would point at a deleted record")
            continue
        if change["t"] != "node":
            continue
        node_id = after["id"]
        rec = index.nodes.get(node_id)
        if rec is None:
            if index.child_ids(node_id) or index.info_by_kw.get(node_id):
                _refuse(op_id, f"keyword {node_id} has children or infos added later")
            continue
        _check_placement(tx, op_id, rec)


def _check_placement(tx: Txn, op_id: str, rec: Record) -> None:
    index = tx.index
    parent = rec["parent_id"]
    if parent is not None and parent not in index.nodes:
        _refuse(op_id, f"the parent of keyword {rec['id']} was deleted later")
    seen = {rec["id"]}
    while parent is not None and parent in index.nodes:
        if parent in seen:
            _refuse(op_id, f"keyword {rec['id']} would become its own ancestor")
        seen.add(parent)
        parent = index.nodes[parent]["parent_id"]
    key = rec["normalized"][0]
    for sibling in index.child_ids(rec["parent_id"]):
        if sibling != rec["id"] and index.nodes[sibling]["normalized"][0] == key:
            _refuse(op_id, f"{rec['name']!r} would clash with keyword {sibling} of the same name")


def _refuse(op_id: str, why: str) -> None:
    raise UndoError(f"cannot undo {op_id}: {why}; undo the later operation first")


def _restore(tx: Txn, kind: str, before: Record | None, after: Record) -> None:
    current = _current(tx, kind, after)
    if before is None or before.get("deleted"):
        if current is None:
            return
        rec = {**current}
        if kind != "link":
            rec["version"] = current["version"] + 1
            rec["updated_at"] = now_iso()
        _put(tx, kind, tx.stamp(rec, deleted=True))
        return
    rec = {**before}
    if kind != "link":
        base = current if current is not None else after
        rec["version"] = base["version"] + 1
        rec["updated_at"] = now_iso()
    _put(tx, kind, tx.stamp(rec))


def _put(tx: Txn, kind: str, rec: Record) -> None:
    if kind == "node":
        tx.put_node(rec)
    elif kind == "info":
        tx.put_info(rec)
    else:
        tx.put_link(rec)
