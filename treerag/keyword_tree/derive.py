"""Derive a tree from ingested chunks: folder → file → heading path, chunks linked as infos."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from treerag.keyword_tree.info_ops import (
    stage_create_info,
    stage_delete_info,
    stage_link,
    stage_update_info,
)
from treerag.keyword_tree.keyword_ops import (
    ensure_root,
    sibling_with_name,
    stage_create,
    stage_delete,
    stage_renormalize,
    stage_update,
)
from treerag.keyword_tree.results import WriteResult
from treerag.keyword_tree.txn import Txn
from treerag.keyword_tree.validate import MAX_NAME
from treerag.text import canonical

if TYPE_CHECKING:
    from treerag.keyword_tree.store import KeywordTree

SNIPPET = 160
"""Characters of the first chunk used as the description of a file or heading keyword."""


@dataclass(slots=True)
class ChunkRecord:
    """One chunk of an ingested document, as the deriver needs it."""

    source_path: str
    heading_path: Sequence[str] = field(default_factory=tuple)
    chunk_id: str = ""
    text: str = ""


FILES_ROOT_NOTE = "The ingested files, one keyword per folder and file."


def _as_record(item: ChunkRecord | Mapping[str, Any] | Sequence[Any]) -> ChunkRecord:
    if isinstance(item, ChunkRecord):
        return item
    if isinstance(item, Mapping):
        return ChunkRecord(
            str(item["source_path"]),
            tuple(item.get("heading_path") or ()),
            str(item.get("chunk_id") or ""),
            str(item.get("text") or ""),
        )
    source, headings, chunk_id, text = item
    return ChunkRecord(str(source), tuple(headings or ()), str(chunk_id), str(text))


def _names(record: ChunkRecord, base_dir: str | None) -> list[tuple[str, str]]:
    """Return [(name, kind)] from the top folder down to the last heading."""
    path = PurePath(record.source_path)
    if base_dir is not None:
        try:
            path = path.relative_to(base_dir)
        except ValueError:
            pass
    parts = [p for p in path.parts if p not in ("/", ".", "")]
    out = [(p, "folder") for p in parts[:-1]] + [(parts[-1], "file")] if parts else []
    out += [(h, "heading") for h in record.heading_path]
    return [(" ".join(n.split())[:MAX_NAME], kind) for n, kind in out if canonical(n)]


def derive_tree(
    store: KeywordTree,
    records: Iterable[ChunkRecord | Mapping[str, Any] | Sequence[Any]],
    *,
    root_name: str | None = None,
    base_dir: str | None = None,
) -> WriteResult:
    """Build keywords for each record's folders, file and headings; link its chunk as an info.

    Records are ChunkRecords, dicts with source_path, heading_path, chunk_id, text, or
    4-tuples in that order. Running it again on the same records changes nothing: keywords
    are found by name under their parent, infos by chunk id (their text is updated when it
    changed). Everything happens in one undoable operation.

    Args:
        store: The target store.
        records: The chunks.
        root_name: Put everything under a root keyword of this name.
        base_dir: Make source paths relative to this folder first.
    """
    with store._write("derive_tree", {"root_name": root_name, "base_dir": base_dir}) as tx:
        infos = 0
        for item in records:
            record = _as_record(item)
            top = ensure_root(tx, root_name, FILES_ROOT_NOTE) if root_name else None
            leaf = top
            for name, kind in _names(record, base_dir):
                leaf = _child(tx, leaf, name, kind, record)
            if leaf is not None and record.text.strip():
                _chunk(tx, record, leaf)
                infos += 1
        tx.args["chunks"] = infos
    changes = tx.changes()
    op = tx.op_id if changes else None
    # What this run wrote, e.g. {"node_created": 16, "info_created": 7503, "link_created": 7503}.
    written = Counter(
        f"{kind}_{'created' if before is None else 'updated'}" for kind, before, _ in changes
    )
    return WriteResult(
        operation_id=op,
        kind="derive_tree",
        action="derived",
        detail={"chunks": infos, **written},
    )


def _child(tx: Txn, parent: str | None, name: str, kind: str, record: ChunkRecord) -> str:
    existing = sibling_with_name(tx.index, parent, canonical(name))
    snippet = " ".join(record.text.split())[:SNIPPET] if kind != "folder" else ""
    if existing is not None:
        if snippet and not tx.index.nodes[existing]["description"]:
            stage_update(tx, existing, {"description": snippet}, None)
        return existing
    meta = {"kind": kind, "source_path": record.source_path}
    return str(stage_create(tx, name, parent_id=parent, description=snippet, metadata=meta)["id"])


def _chunk(tx: Txn, record: ChunkRecord, leaf: str) -> None:
    # Info ids cannot hold whitespace; the original chunk id stays in the metadata.
    info_id = info_id_of(record.chunk_id) or None
    meta = {"chunk_id": record.chunk_id, "heading_path": list(record.heading_path)}
    if info_id is not None and info_id in tx.index.info_offsets:
        patch = {"content": record.text, "source": record.source_path, "metadata": meta}
        stage_update_info(tx, info_id, patch, None)
    else:
        info_id = stage_create_info(tx, record.text, record.source_path, meta, info_id)["id"]
    stage_link(tx, info_id, leaf, "PRIMARY", "derive")


def info_id_of(chunk_id: str) -> str:
    """The id of the info derived from a chunk (info ids cannot hold whitespace)."""
    return "".join("_" if ch.isspace() else ch for ch in chunk_id)


def forget_chunks(
    store: KeywordTree, chunk_ids: Iterable[str], source_paths: Iterable[str] = ()
) -> WriteResult:
    """Undo what `derive_tree` made of some chunks: their infos, then emptied file keywords.

    The infos derived from the chunks are deleted with their links. A file keyword (and its
    headings) derived from one of `source_paths` is deleted once no info is linked under it;
    keywords a person added or linked stay. One undoable operation.
    """
    sources = set(source_paths)
    with store._write("forget_chunks", {"sources": sorted(sources)}) as tx:
        infos = 0
        for chunk_id in chunk_ids:
            info_id = info_id_of(chunk_id)
            if info_id in tx.index.info_offsets:
                stage_delete_info(tx, info_id, None)
                infos += 1
        keywords = 0
        files = [
            node_id
            for node_id, rec in tx.index.nodes.items()
            if (rec.get("metadata") or {}).get("kind") == "file"
            and (rec.get("metadata") or {}).get("source_path") in sources
        ]
        for node_id in files:
            subtree = list(tx.index.iter_subtree(node_id))
            if not any(tx.index.info_by_kw.get(k) for k in subtree):
                keywords += len(
                    stage_delete(tx, node_id, cascade=True, info_policy="forbid", version=None)
                )
        tx.args.update(infos=infos, keywords=keywords)
    op = tx.op_id if tx.changes() else None
    return WriteResult(
        operation_id=op,
        kind="forget_chunks",
        action="forgotten",
        detail={"infos": infos, "keywords": keywords},
    )


def renormalize(store: KeywordTree) -> WriteResult:
    """Give every keyword the normalized forms the current rules write (one undoable operation).

    A keyword's forms are stored when it is written, so a release that normalizes names
    otherwise (`treerag.text.canonical`, pinyin) leaves the old ones to be looked up. Only the
    forms change: names, aliases, links and infos stay as they are.
    """
    with store._write("renormalize", {}) as tx:
        moved = sum(stage_renormalize(tx, node_id) for node_id in list(tx.index.nodes))
        tx.args["keywords"] = moved
    op = tx.op_id if tx.changes() else None
    return WriteResult(
        operation_id=op, kind="renormalize", action="renormalized", detail={"keywords": moved}
    )
