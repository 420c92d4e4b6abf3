"""In-memory indexes of seed 03 §3.2: ids, inverted tokens, children, info↔keyword maps."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from treerag.keyword_tree.models import Record

ROOT = ""
"""Key of the children list that holds the root keywords (parent_id None)."""

INFO_CACHE_SIZE = 20_000
"""Decoded info records kept in memory; the rest are read from infos.jsonl by offset."""

SEP = "\t"
"""Separates relation, created_by and created_at in a packed link (one string, not a list:
300k small lists cost more to parse and to garbage-collect than the strings themselves)."""


def pack_link(relation: str, created_by: str, created_at: str) -> str:
    """Return the packed form of a link's attributes."""
    return f"{relation}{SEP}{created_by}{SEP}{created_at}"


def unpack_link(packed: str) -> tuple[str, str, str]:
    """Return (relation, created_by, created_at) of a packed link."""
    relation, created_by, created_at = packed.split(SEP, 2)
    return relation, created_by, created_at


class TreeIndex:
    """Everything the engine answers from without touching disk, except info bodies.

    Records are plain dicts shared with the JSONL lines they came from and never mutated in
    place: a change builds a new dict, so an old one can be kept as a "before" snapshot.
    """

    def __init__(self) -> None:
        self.nodes: dict[str, Record] = {}
        """Live keyword id → latest record."""
        self.inverted: dict[str, list[str]] = {}
        """Normalized form → ids of the keywords that have it (seed 03 §4.2)."""
        self.children: dict[str, list[str]] = {}
        """Parent id (ROOT for roots) → child ids, ordered by (created_at, id)."""
        self.info_offsets: dict[str, int] = {}
        """Live info id → offset of its latest line in infos.jsonl (-1 until written)."""
        self.info_cache: dict[str, Record] = {}
        """Decoded info records, most recently used last."""
        self.info_by_kw: dict[str, dict[str, str]] = {}
        """Keyword id → {info id: relation}."""
        self.kw_by_info: dict[str, dict[str, str]] = {}
        """Info id → {keyword id: packed relation, created_by, created_at (see pack_link)}."""
        self.read_info: Callable[[int], Record] | None = None
        """Reads the info record at an offset of infos.jsonl (set by the store)."""

    # -- keywords -----------------------------------------------------------------------------

    def _child_key(self, node_id: str) -> tuple[str, str]:
        return (self.nodes[node_id]["created_at"], node_id)

    def put_node(self, rec: Record) -> Record | None:
        """Apply one node version (a tombstone removes it); return the previous record."""
        node_id = rec["id"]
        old = self.nodes.get(node_id)
        if old is not None:
            for token in old["normalized"]:
                ids = self.inverted.get(token)
                if ids is not None and node_id in ids:
                    ids.remove(node_id)
                    if not ids:
                        del self.inverted[token]
            siblings = self.children.get(old["parent_id"] or ROOT)
            if siblings is not None and node_id in siblings:
                siblings.remove(node_id)
        if rec.get("deleted"):
            self.nodes.pop(node_id, None)
            return old
        self.nodes[node_id] = rec
        for token in rec["normalized"]:
            self.inverted.setdefault(token, []).append(node_id)
        siblings = self.children.setdefault(rec["parent_id"] or ROOT, [])
        bisect.insort(siblings, node_id, key=self._child_key)
        return old

    def build_nodes(self, records: Iterable[Record]) -> None:
        """Load node versions in file order (later versions win) and build both indexes."""
        latest = {rec["id"]: rec for rec in records}
        self.nodes = {key: rec for key, rec in latest.items() if not rec.get("deleted")}
        inverted: defaultdict[str, list[str]] = defaultdict(list)
        children: defaultdict[str, list[str]] = defaultdict(list)
        for node_id, rec in self.nodes.items():
            for token in rec["normalized"]:
                inverted[token].append(node_id)
            children[rec["parent_id"] or ROOT].append(node_id)
        for ids in children.values():
            ids.sort(key=self._child_key)
        self.inverted = dict(inverted)
        self.children = dict(children)

    def child_ids(self, node_id: str | None) -> list[str]:
        """Return the ordered child ids of a node (None: the roots)."""
        return self.children.get(node_id or ROOT, [])

    def parent_of(self, node_id: str) -> str | None:
        """Return the parent id of a live node."""
        parent: str | None = self.nodes[node_id]["parent_id"]
        return parent

    def path_ids(self, node_id: str) -> list[str]:
        """Return the ids from the root down to node_id (inclusive)."""
        path = [node_id]
        seen = {node_id}
        parent = self.nodes[node_id]["parent_id"]
        while parent is not None and parent in self.nodes and parent not in seen:
            path.append(parent)
            seen.add(parent)
            parent = self.nodes[parent]["parent_id"]
        path.reverse()
        return path

    def level_of(self, node_id: str) -> int:
        """Return the depth of a node (roots are level 0)."""
        return len(self.path_ids(node_id)) - 1

    def iter_subtree(self, node_id: str) -> Iterator[str]:
        """Yield node_id and all its descendants, parents before children."""
        stack = [node_id]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(reversed(self.children.get(current, [])))

    def is_ancestor(self, ancestor: str, node_id: str) -> bool:
        """Return whether ancestor is node_id itself or one of its ancestors."""
        return ancestor in self.path_ids(node_id)

    # -- infos --------------------------------------------------------------------------------

    def put_info(self, rec: Record, offset: int) -> None:
        """Apply one info version at its offset in infos.jsonl (-1: not written yet)."""
        info_id = rec["id"]
        if rec.get("deleted"):
            self.info_offsets.pop(info_id, None)
            self.info_cache.pop(info_id, None)
            return
        self.info_offsets[info_id] = offset
        self.info_cache.pop(info_id, None)
        self.info_cache[info_id] = rec
        if len(self.info_cache) > INFO_CACHE_SIZE:
            self._evict_infos()

    def _evict_infos(self) -> None:
        excess = len(self.info_cache) - INFO_CACHE_SIZE // 2
        for info_id in list(self.info_cache)[:excess]:
            if self.info_offsets.get(info_id, -1) >= 0:
                del self.info_cache[info_id]

    def get_info(self, info_id: str) -> Record | None:
        """Return the latest record of a live info (decoding it from disk if needed)."""
        rec = self.info_cache.get(info_id)
        if rec is not None:
            return rec
        offset = self.info_offsets.get(info_id)
        if offset is None or offset < 0 or self.read_info is None:
            return None
        rec = self.read_info(offset)
        self.info_cache[info_id] = rec
        if len(self.info_cache) > INFO_CACHE_SIZE:
            self._evict_infos()
        return rec

    # -- links --------------------------------------------------------------------------------

    def link_record(self, info_id: str, keyword_id: str) -> Record | None:
        """Return the live link between an info and a keyword as a record, or None."""
        packed = self.kw_by_info.get(info_id, {}).get(keyword_id)
        if packed is None:
            return None
        relation, created_by, created_at = unpack_link(packed)
        return {
            "info_id": info_id,
            "keyword_id": keyword_id,
            "relation": relation,
            "created_by": created_by,
            "created_at": created_at,
        }

    def put_link(self, rec: Record) -> Record | None:
        """Apply one link version (a tombstone unlinks); return the previous link."""
        info_id, keyword_id = rec["info_id"], rec["keyword_id"]
        old = self.link_record(info_id, keyword_id)
        if rec.get("deleted"):
            by_info = self.kw_by_info.get(info_id)
            if by_info is not None:
                by_info.pop(keyword_id, None)
                if not by_info:
                    del self.kw_by_info[info_id]
            by_kw = self.info_by_kw.get(keyword_id)
            if by_kw is not None:
                by_kw.pop(info_id, None)
                if not by_kw:
                    del self.info_by_kw[keyword_id]
            return old
        packed = pack_link(rec["relation"], rec["created_by"], rec["created_at"])
        self.kw_by_info.setdefault(info_id, {})[keyword_id] = packed
        self.info_by_kw.setdefault(keyword_id, {})[info_id] = rec["relation"]
        return old

    def build_links(self, records: Iterable[Record]) -> None:
        """Load link versions in file order (later versions win) and build both maps."""
        by_info: defaultdict[str, dict[str, str]] = defaultdict(dict)
        for rec in records:
            if rec.get("deleted"):
                by_info[rec["info_id"]].pop(rec["keyword_id"], None)
            else:
                packed = pack_link(rec["relation"], rec["created_by"], rec["created_at"])
                by_info[rec["info_id"]][rec["keyword_id"]] = packed
        by_kw: defaultdict[str, dict[str, str]] = defaultdict(dict)
        for info_id, links in by_info.items():
            for keyword_id, packed in links.items():
                by_kw[keyword_id][info_id] = packed.split(SEP, 1)[0]
        self.kw_by_info = {key: value for key, value in by_info.items() if value}
        self.info_by_kw = dict(by_kw)

    def link_count(self) -> int:
        """Return the number of live links."""
        return sum(len(links) for links in self.kw_by_info.values())
