"""Staged info and link changes (seed 03 §5.5–5.7); the store wraps them in operations."""

from __future__ import annotations

from typing import Any

from treerag.keyword_tree.errors import DuplicateError, InvalidInputError, NotFoundError
from treerag.keyword_tree.models import RELATION_RANK, Record, new_id, now_iso, parse_relation
from treerag.keyword_tree.txn import Txn
from treerag.keyword_tree.validate import check_id, check_label, check_metadata, check_text

INFO_FIELDS = ("content", "source", "metadata")


def next_version(tx: Txn, old: Record, *, deleted: bool = False, **changes: Any) -> Record:
    """Return the next version of a keyword or info record with changes applied."""
    rec = {**old, **changes}
    rec["version"] = old["version"] + 1
    rec["updated_at"] = now_iso()
    return tx.stamp(rec, deleted=deleted)


def require_info(tx: Txn, info_id: str) -> None:
    """Raise NotFoundError unless the info is live."""
    if info_id not in tx.index.info_offsets:
        raise NotFoundError("info", info_id)


def stage_create_info(
    tx: Txn, content: str, source: str, metadata: dict[str, Any] | None, info_id: str | None
) -> Record:
    """Stage a new info."""
    content = check_text(content, "content")
    if not content.strip():
        raise InvalidInputError("content is empty")
    info_id = check_id(info_id, "info id") if info_id is not None else new_id("info")
    if info_id in tx.index.info_offsets:
        raise DuplicateError(f"an info with id {info_id!r} already exists", info_id)
    now = now_iso()
    rec: Record = {
        "id": info_id,
        "content": content,
        "source": check_text(source, "source"),
        "metadata": check_metadata(metadata),
        "version": 1,
        "created_at": now,
        "updated_at": now,
    }
    return tx.put_info(tx.stamp(rec))


def stage_update_info(tx: Txn, info_id: str, patch: dict[str, Any], version: int | None) -> Record:
    """Stage new content/source/metadata for an info; return the (possibly unchanged) record."""
    old = tx.info(info_id, version)
    unknown = set(patch) - set(INFO_FIELDS)
    if unknown:
        raise InvalidInputError(f"cannot patch {sorted(unknown)}; allowed: {list(INFO_FIELDS)}")
    changes: dict[str, Any] = {}
    if "content" in patch:
        changes["content"] = check_text(patch["content"], "content")
        if not changes["content"].strip():
            raise InvalidInputError("content is empty")
    if "source" in patch:
        changes["source"] = check_text(patch["source"], "source")
    if "metadata" in patch:
        changes["metadata"] = check_metadata(patch["metadata"])
    if all(old.get(key) == value for key, value in changes.items()):
        return old
    return tx.put_info(next_version(tx, old, **changes))


def stage_delete_info(tx: Txn, info_id: str, version: int | None) -> Record:
    """Stage removing an info and all its links (soft delete)."""
    old = tx.info(info_id, version)
    for keyword_id in list(tx.index.kw_by_info.get(info_id, {})):
        stage_unlink(tx, info_id, keyword_id)
    return tx.put_info(next_version(tx, old, deleted=True))


def stage_link(
    tx: Txn, info_id: str, keyword_id: str, relation: str, created_by: str
) -> Record | None:
    """Stage a link (replacing the relation of an existing one); None if already so."""
    require_info(tx, info_id)
    tx.node(keyword_id)
    relation = parse_relation(relation)
    existing = tx.index.link_record(info_id, keyword_id)
    if existing is not None and existing["relation"] == relation:
        return None
    rec: Record = {
        "info_id": info_id,
        "keyword_id": keyword_id,
        "relation": relation,
        "created_by": check_label(created_by, "created_by"),
        "created_at": now_iso(),
    }
    return tx.put_link(tx.stamp(rec))


def stage_unlink(tx: Txn, info_id: str, keyword_id: str) -> Record:
    """Stage removing a link."""
    existing = tx.index.link_record(info_id, keyword_id)
    if existing is None:
        raise NotFoundError("link", f"{info_id} -> {keyword_id}")
    return tx.put_link(tx.stamp(dict(existing), deleted=True))


def stage_move_link(tx: Txn, info_id: str, from_id: str, to_id: str) -> None:
    """Move a link to another keyword; where one exists, the stronger relation stays."""
    old = tx.index.link_record(info_id, from_id)
    if old is None:
        return
    stage_unlink(tx, info_id, from_id)
    existing = tx.index.link_record(info_id, to_id)
    if existing is None or RELATION_RANK[old["relation"]] > RELATION_RANK[existing["relation"]]:
        stage_link(tx, info_id, to_id, old["relation"], old["created_by"])
