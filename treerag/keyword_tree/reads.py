"""Read API of seed 03 §六: lookups, paths, children, infos of a keyword, keywords of an info."""

from __future__ import annotations

from collections.abc import Iterator

from treerag.keyword_tree.base import StoreBase
from treerag.keyword_tree.cache import MISSING, page_dep
from treerag.keyword_tree.errors import NotFoundError
from treerag.keyword_tree.indexes import unpack_link
from treerag.keyword_tree.models import (
    Info,
    InfoHit,
    InfoKeywordLink,
    KeywordHit,
    KeywordNode,
    Page,
    Record,
    info_from_record,
    link_from_record,
    parse_relation,
)
from treerag.keyword_tree.terms import jieba_module
from treerag.text import query_key


class ReadsMixin(StoreBase):
    """Reads answer from memory; info bodies come from infos.jsonl by offset."""

    def _live(self, node_id: str) -> Record:
        rec = self.index.nodes.get(node_id)
        if rec is None:
            raise NotFoundError("keyword", node_id)
        return rec

    def exact_lookup(self, query: str) -> list[KeywordNode]:
        """Return the keywords whose name or alias normalizes to the query (seed 03 §4.2).

        Zero, one or several hits; no scores, no ordering by relevance, nothing fuzzy.
        """
        self._maybe_refresh()
        nodes = self.index.nodes
        return [self._node(nodes[i]) for i in self.index.inverted.get(query_key(query), ())]

    def exact_ids(self, query: str) -> list[str]:
        """Return the ids exact_lookup would return (cheaper: no node objects)."""
        self._maybe_refresh()
        return list(self.index.inverted.get(query_key(query), ()))

    def get_keyword(self, node_id: str) -> KeywordNode:
        """Return a keyword by id."""
        self._maybe_refresh()
        return self._node(self._live(node_id))

    def has_keyword(self, node_id: str) -> bool:
        """Return whether a live keyword has this id."""
        self._maybe_refresh()
        return node_id in self.index.nodes

    def get_children(self, node_id: str | None) -> list[KeywordNode]:
        """Return the children of a keyword in creation order (None: the root keywords)."""
        self._maybe_refresh()
        if node_id is not None:
            self._live(node_id)
        return [self._node(self.index.nodes[c]) for c in self.index.child_ids(node_id)]

    def get_roots(self) -> list[KeywordNode]:
        """Return the root keywords."""
        return self.get_children(None)

    def get_path(self, node_id: str) -> list[KeywordNode]:
        """Return the keywords from the root down to node_id."""
        self._maybe_refresh()
        self._live(node_id)
        return [self._node(self.index.nodes[i]) for i in self.index.path_ids(node_id)]

    def iter_keywords(self) -> Iterator[KeywordNode]:
        """Yield every keyword, parents before children."""
        self._maybe_refresh()
        for root in list(self.index.child_ids(None)):
            for node_id in self.index.iter_subtree(root):
                yield self._node(self.index.nodes[node_id])

    def counts(self) -> dict[str, int]:
        """Return how many keywords, infos and links are live."""
        self._maybe_refresh()
        index = self.index
        return {
            "keywords": len(index.nodes),
            "infos": len(index.info_offsets),
            "links": index.link_count(),
        }

    def get_info(self, info_id: str) -> Info:
        """Return an info by id."""
        self._maybe_refresh()
        rec = self.index.get_info(info_id)
        if rec is None:
            raise NotFoundError("info", info_id)
        return info_from_record(rec)

    def get_infos_of_keyword(
        self, node_id: str, relation: str | None = None, page: int = 0, size: int = 50
    ) -> Page:
        """Return one page of the infos linked to a keyword (seed 03 §5.6).

        Args:
            node_id: The keyword.
            relation: Only links with this relation (PRIMARY or RELATED); None for all.
            page: Page number from 0.
            size: Infos per page.
        """
        self._maybe_refresh()
        self._live(node_id)
        rel = parse_relation(relation) if relation is not None else None
        if page < 0 or size <= 0:
            raise ValueError("page must be >= 0 and size > 0")
        key = f"kw:{node_id}:infos:{rel or '*'}:s{size}:p{page}"
        cached = self.cache.get(key)
        if cached is MISSING:
            cached = self._page_rows(node_id, rel, page, size)
            self.cache.put(key, cached, self.config.page_ttl, [page_dep(node_id)])
        rows, total = cached
        items = []
        for info_id, relation_, linked_by in rows:
            rec = self.index.get_info(info_id)
            if rec is not None:
                items.append(InfoHit(info_from_record(rec), relation_, linked_by))
        return Page(items=items, total=total, page=page, size=size)

    def _page_rows(
        self, node_id: str, relation: str | None, page: int, size: int
    ) -> tuple[list[tuple[str, str, str]], int]:
        """Return ([(info id, relation, linked by)], total), oldest link first."""
        by_info = self.index.kw_by_info
        rows = []
        for info_id, rel in self.index.info_by_kw.get(node_id, {}).items():
            if relation is None or rel == relation:
                _, linked_by, linked_at = unpack_link(by_info[info_id][node_id])
                rows.append((linked_at, info_id, rel, linked_by))
        rows.sort()
        chosen = rows[page * size : (page + 1) * size]
        return [(i, r, by) for _, i, r, by in chosen], len(rows)

    def get_keywords_of_info(self, info_id: str) -> list[KeywordHit]:
        """Return the keywords an info is linked to, each with the relation (seed 03 §5.7)."""
        self._maybe_refresh()
        if info_id not in self.index.info_offsets:
            raise NotFoundError("info", info_id)
        links = self.index.kw_by_info.get(info_id, {})
        hits = []
        for keyword_id, packed in links.items():
            if keyword_id in self.index.nodes:
                relation, linked_by, _ = unpack_link(packed)
                hits.append(
                    KeywordHit(self._node(self.index.nodes[keyword_id]), relation, linked_by)
                )
        return hits

    def get_links_of_info(self, info_id: str) -> list[InfoKeywordLink]:
        """Return the link records of an info."""
        self._maybe_refresh()
        return [
            link_from_record(rec)
            for k in self.index.kw_by_info.get(info_id, {})
            if (rec := self.index.link_record(info_id, k)) is not None
        ]

    def lookup_terms(self, text: str, max_words: int = 4) -> list[str]:
        """Return ids of keywords whose name or alias occurs in text (exact, in text order).

        Spans of up to max_words jieba words are normalized and looked up in the inverted
        index, so "machine learning" and "机器学习" are found however the text is split.
        """
        self._maybe_refresh()
        words = [w for w in jieba_module().lcut(query_key(text)) if w.strip()]
        found: dict[str, None] = {}
        inverted = self.index.inverted
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + max_words) + 1):
                span = words[start:end]
                for joined in {"".join(span), " ".join(span)}:
                    for node_id in inverted.get(joined, ()):
                        found.setdefault(node_id)
        return list(found)
