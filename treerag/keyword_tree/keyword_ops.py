"""Staged keyword changes (seed 03 §5.2–5.4); the store wraps them in operations."""

from __future__ import annotations

from typing import Any, Literal

from treerag.keyword_tree.errors import (
    ConflictError,
    CycleError,
    DuplicateError,
    InvalidInputError,
    NotFoundError,
)
from treerag.keyword_tree.indexes import TreeIndex
from treerag.keyword_tree.info_ops import next_version, stage_move_link, stage_unlink
from treerag.keyword_tree.models import Record, new_id, now_iso
from treerag.keyword_tree.normalize import normalized_forms
from treerag.keyword_tree.txn import Txn
from treerag.keyword_tree.validate import (
    check_aliases,
    check_choice,
    check_id,
    check_metadata,
    check_name,
    check_text,
)
from treerag.text import canonical

KEYWORD_FIELDS = ("name", "aliases", "description", "metadata")
InfoPolicy = Literal["forbid", "reattach", "unlink"]
ChildPolicy = Literal["reattach", "flatten"]


def sibling_with_name(
    index: TreeIndex, parent_id: str | None, name_key: str, exclude: str | None = None
) -> str | None:
    """Return the child of parent_id whose canonical name is name_key, if any."""
    for child_id in index.child_ids(parent_id):
        # normalized[0] is always the canonical form of the name (see normalized_forms).
        if child_id != exclude and index.nodes[child_id]["normalized"][0] == name_key:
            return child_id
    return None


def _duplicate(index: TreeIndex, name: str, parent_id: str | None, clash: str) -> DuplicateError:
    where = repr(index.nodes[parent_id]["name"]) if parent_id else "the top level"
    return DuplicateError(f"{name!r} already exists under {where} (id {clash})", clash)


def stage_create(
    tx: Txn,
    name: str,
    *,
    parent_id: str | None = None,
    aliases: list[str] | None = None,
    description: str = "",
    metadata: dict[str, Any] | None = None,
    node_id: str | None = None,
) -> Record:
    """Stage a new keyword under parent_id (None: a root)."""
    name = check_name(name)
    alias_list = check_aliases(aliases, name)
    if parent_id is not None:
        tx.node(parent_id)
    node_id = check_id(node_id, "keyword id") if node_id is not None else new_id("kw")
    if node_id in tx.index.nodes:
        raise DuplicateError(f"a keyword with id {node_id!r} already exists", node_id)
    clash = sibling_with_name(tx.index, parent_id, canonical(name))
    if clash is not None:
        raise _duplicate(tx.index, name, parent_id, clash)
    now = now_iso()
    rec: Record = {
        "id": node_id,
        "name": name,
        "aliases": alias_list,
        "normalized": normalized_forms(name, alias_list),
        "parent_id": parent_id,
        "description": check_text(description, "description"),
        "metadata": check_metadata(metadata),
        "version": 1,
        "created_at": now,
        "updated_at": now,
    }
    return tx.put_node(tx.stamp(rec))


def stage_update(tx: Txn, node_id: str, patch: dict[str, Any], version: int | None) -> Record:
    """Stage a patch of name, aliases, description and/or metadata."""
    old = tx.node(node_id, version)
    unknown = set(patch) - set(KEYWORD_FIELDS)
    if unknown:
        raise InvalidInputError(f"cannot patch {sorted(unknown)}; allowed: {list(KEYWORD_FIELDS)}")
    name = check_name(patch["name"]) if "name" in patch else old["name"]
    aliases = check_aliases(patch.get("aliases", old["aliases"]), name)
    changes: dict[str, Any] = {"name": name, "aliases": aliases}
    if "description" in patch:
        changes["description"] = check_text(patch["description"], "description")
    if "metadata" in patch:
        changes["metadata"] = check_metadata(patch["metadata"])
    if all(old[key] == value for key, value in changes.items()):
        return old
    clash = sibling_with_name(tx.index, old["parent_id"], canonical(name), exclude=node_id)
    if clash is not None:
        raise _duplicate(tx.index, name, old["parent_id"], clash)
    changes["normalized"] = normalized_forms(name, aliases)
    return tx.put_node(next_version(tx, old, **changes))


def stage_renormalize(tx: Txn, node_id: str) -> bool:
    """Stage a keyword's normalized forms as the current rules write them; True if they moved.

    The forms are stored with the keyword (`normalized_forms` at write time); a release whose
    normalization differs would otherwise look names up in forms no question is read into.
    """
    old = tx.node(node_id, None)
    forms = normalized_forms(old["name"], old["aliases"])
    if forms == old["normalized"]:
        return False
    tx.put_node(next_version(tx, old, normalized=forms))
    return True


def stage_add_alias(tx: Txn, node_id: str, alias: str, version: int | None) -> Record:
    """Stage one more alias (no change if it is already a name or alias)."""
    old = tx.node(node_id, version)
    return stage_update(
        tx, node_id, {"aliases": [*old["aliases"], check_name(alias, "alias")]}, None
    )


def stage_remove_alias(tx: Txn, node_id: str, alias: str, version: int | None) -> Record:
    """Stage removing an alias, matched by normalized form."""
    old = tx.node(node_id, version)
    key = canonical(alias)
    kept = [a for a in old["aliases"] if canonical(a) != key]
    if len(kept) == len(old["aliases"]):
        raise NotFoundError("alias", alias, f"aliases of {old['name']!r}: {old['aliases']}")
    return stage_update(tx, node_id, {"aliases": kept}, None)


def stage_move(tx: Txn, node_id: str, new_parent_id: str | None, version: int | None) -> Record:
    """Stage moving a keyword (with its subtree) under new_parent_id (None: to the top)."""
    old = tx.node(node_id, version)
    if new_parent_id == old["parent_id"]:
        return old
    if new_parent_id is not None:
        tx.node(new_parent_id)
        if tx.index.is_ancestor(node_id, new_parent_id):
            raise CycleError(
                f"cannot move {old['name']!r} under {tx.index.nodes[new_parent_id]['name']!r}: "
                "that keyword is inside the subtree being moved"
            )
    clash = sibling_with_name(tx.index, new_parent_id, old["normalized"][0], exclude=node_id)
    if clash is not None:
        raise _duplicate(tx.index, old["name"], new_parent_id, clash)
    # Levels and paths of the subtree are derived from parent links, so one record suffices.
    return tx.put_node(next_version(tx, old, parent_id=new_parent_id))


def stage_merge(tx: Txn, src_id: str, dst_id: str, children: ChildPolicy = "reattach") -> Record:
    """Stage merging src into dst: aliases, links and children move, src is soft-deleted."""
    check_choice(children, ("reattach", "flatten"), "children")
    src, dst = tx.node(src_id), tx.node(dst_id)
    if src_id == dst_id:
        raise InvalidInputError("cannot merge a keyword into itself")
    if tx.index.is_ancestor(src_id, dst_id):
        raise CycleError(f"cannot merge {src['name']!r} into its own descendant {dst['name']!r}")
    aliases = check_aliases([*dst["aliases"], src["name"], *src["aliases"]], dst["name"])
    patch: dict[str, Any] = {"aliases": aliases}
    if not dst["description"] and src["description"]:
        patch["description"] = src["description"]
    stage_update(tx, dst_id, patch, None)
    for info_id in list(tx.index.info_by_kw.get(src_id, {})):
        stage_move_link(tx, info_id, src_id, dst_id)
    if children == "flatten":
        moving = list(tx.index.iter_subtree(src_id))[1:]
    else:
        moving = list(tx.index.child_ids(src_id))
    # src goes first: when dst is src's parent, a child named like src must move in beside
    # the keyword it merges into, not be merged into src on its way out.
    tx.put_node(next_version(tx, tx.node(src_id), deleted=True))
    for child_id in moving:
        if child_id in tx.index.nodes:
            _adopt(tx, child_id, dst_id)
    return tx.node(dst_id)


def _adopt(tx: Txn, child_id: str, parent_id: str) -> None:
    """Move child under parent, merging it into a same-named child already there."""
    key = tx.index.nodes[child_id]["normalized"][0]
    twin = sibling_with_name(tx.index, parent_id, key, exclude=child_id)
    if twin is not None:
        stage_merge(tx, child_id, twin)
    elif tx.index.nodes[child_id]["parent_id"] != parent_id:
        stage_move(tx, child_id, parent_id, None)


def stage_delete(
    tx: Txn, node_id: str, *, cascade: bool, info_policy: InfoPolicy, version: int | None
) -> list[str]:
    """Stage soft-deleting a keyword (and its subtree with cascade); return the deleted ids."""
    check_choice(info_policy, ("forbid", "reattach", "unlink"), "info_policy")
    rec = tx.node(node_id, version)
    subtree = list(tx.index.iter_subtree(node_id))
    if len(subtree) > 1 and not cascade:
        raise ConflictError(
            f"{rec['name']!r} has {len(subtree) - 1} descendants; pass cascade=True to delete them"
        )
    linked = [(i, k) for k in subtree for i in tx.index.info_by_kw.get(k, {})]
    if linked and info_policy == "forbid":
        raise ConflictError(f"{len(linked)} infos are linked to {rec['name']!r} or below it")
    parent = rec["parent_id"]
    if linked and info_policy == "reattach" and parent is None:
        raise InvalidInputError(
            f"{rec['name']!r} is a root: there is no parent to reattach its {len(linked)} infos "
            "to; use info_policy='unlink' or 'forbid'"
        )
    for info_id, keyword_id in linked:
        if info_policy == "reattach":
            assert parent is not None
            stage_move_link(tx, info_id, keyword_id, parent)
        else:
            stage_unlink(tx, info_id, keyword_id)
    for doomed in reversed(subtree):
        tx.put_node(next_version(tx, tx.node(doomed), deleted=True))
    return subtree


def ensure_root(tx: Txn, name: str, description: str = "Keywords not yet placed.") -> str:
    """Return the id of the root named name, creating it if absent.

    The 未分类 root, or the root `derive_tree` puts the files under (with its own description).
    """
    existing = sibling_with_name(tx.index, None, canonical(name))
    if existing is not None:
        return existing
    return str(stage_create(tx, name, description=description)["id"])
