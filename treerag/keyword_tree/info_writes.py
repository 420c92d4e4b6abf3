"""Info and link write API of seed 03 §六, with auto-linking (§5.5)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from treerag.keyword_tree.agent import KeywordAgent, agent_name, call_agent, run_sync
from treerag.keyword_tree.info_ops import (
    stage_create_info,
    stage_delete_info,
    stage_link,
    stage_unlink,
    stage_update_info,
)
from treerag.keyword_tree.keyword_writes import KeywordWrites
from treerag.keyword_tree.models import Record, Relation, info_from_record
from treerag.keyword_tree.results import WriteResult
from treerag.keyword_tree.schemas import LinkDecision
from treerag.keyword_tree.txn import Txn

SUMMARY_CHARS = 2000
"""How much of an info the agent sees when choosing its keywords."""


class InfoWrites(KeywordWrites):
    """create / update / delete infos, link / unlink, batches."""

    def _info_result(self, tx: Txn, rec: Record | None, action: str, **extra: Any) -> WriteResult:
        info = None
        if rec is not None and not rec.get("deleted"):
            info = info_from_record(rec)
        op = tx.op_id if tx.changes() else None
        return WriteResult(operation_id=op, kind=tx.kind, action=action, info=info, **extra)

    def create_info(self, content: str, **kwargs: Any) -> WriteResult:
        """Create an info (synchronous); see acreate_info for the arguments."""
        if not kwargs.get("auto_link"):
            return self._create_info(content, [], [], **kwargs)
        return run_sync(self.acreate_info(content, **kwargs))

    async def acreate_info(
        self,
        content: str,
        *,
        keyword_ids: list[str] | None = None,
        auto_link: bool = False,
        source: str = "",
        metadata: dict[str, Any] | None = None,
        relation: str = Relation.PRIMARY,
        agent: KeywordAgent | None = None,
        create_missing: bool = False,
        id: str | None = None,
    ) -> WriteResult:
        """Create an info and link it (seed 03 §5.5).

        Args:
            content: The text.
            keyword_ids: Keywords to link it to, with ``relation``.
            auto_link: Also find keywords named in the text (exact lookup of its word spans)
                and let the agent choose among them with link_info. Without an agent, or if
                the agent fails, every keyword found is linked as RELATED.
            source: Where the text comes from (a path, a URL).
            metadata: Free JSON-serializable data.
            relation: Relation of the keyword_ids links.
            agent: Overrides the store's agent for this call.
            create_missing: Create the keywords the agent names in new_keywords (each placed
                by the agent, as separate operations) and link them as RELATED.
            id: A chosen id (default: generated).
        """
        chosen = self._agent_for(agent)
        auto: list[tuple[str, str]] = []
        log: list[dict[str, Any]] = []
        if auto_link:
            auto = await self._auto_links(content, chosen, create_missing, log)
        return self._create_info(
            content,
            auto,
            log,
            keyword_ids=keyword_ids,
            source=source,
            metadata=metadata,
            relation=relation,
            id=id,
        )

    async def _auto_links(
        self,
        content: str,
        agent: KeywordAgent | None,
        create_missing: bool,
        log: list[dict[str, Any]],
    ) -> list[tuple[str, str]]:
        found = self.lookup_terms(content)[: self.config.max_link_candidates]
        fallback = [(k, Relation.RELATED.value) for k in found]
        if agent is None or (not found and not create_missing):
            return fallback
        try:
            decision = await call_agent(
                agent,
                "link_info",
                content[:SUMMARY_CHARS],
                [self.candidate(k) for k in found],
                schema=LinkDecision,
                timeout=self.config.agent_timeout,
                stats=self.agent_stats,
            )
        except Exception as exc:  # seed 03 §5.5: link every exact hit as RELATED instead
            log.append({"method": "link_info", "error": str(exc), "fallback": found})
            return fallback
        log.append(
            {
                "method": "link_info",
                "agent": agent_name(agent),
                "input": found,
                "output": decision.model_dump(),
            }
        )
        links: list[tuple[str, str]] = [
            (c.keyword_id, c.relation) for c in decision.links if c.keyword_id in found
        ]
        if create_missing:
            for name in decision.new_keywords:
                made = await self.acreate_keyword(name, agent=agent)
                if made.node is not None:
                    links.append((made.node.id, Relation.RELATED.value))
        return links

    def _create_info(
        self,
        content: str,
        auto: list[tuple[str, str]],
        log: list[dict[str, Any]],
        *,
        keyword_ids: list[str] | None = None,
        source: str = "",
        metadata: dict[str, Any] | None = None,
        relation: str = Relation.PRIMARY,
        id: str | None = None,
        **_ignored: Any,
    ) -> WriteResult:
        args = {"id": id, "source": source, "keyword_ids": keyword_ids, "auto": auto}
        with self._write("create_info", args) as tx:
            tx.agent_log.extend(log)
            rec = stage_create_info(tx, content, source, metadata, id)
            for keyword_id in keyword_ids or []:
                stage_link(tx, rec["id"], keyword_id, str(relation), tx.actor)
            for keyword_id, rel in auto:
                if (
                    tx.index.link_record(rec["id"], keyword_id) is None
                    and keyword_id in tx.index.nodes
                ):
                    stage_link(tx, rec["id"], keyword_id, rel, "auto_link")
        return self._info_result(tx, rec, "created")

    def batch_create_infos(self, items: Iterable[dict[str, Any]]) -> WriteResult:
        """Create many infos in one operation.

        Each item takes content, source, metadata, keyword_ids, relation and id.
        """
        with self._write("batch_create_infos", {}) as tx:
            ids = []
            for item in items:
                rec = stage_create_info(
                    tx,
                    item.get("content", ""),
                    item.get("source", ""),
                    item.get("metadata"),
                    item.get("id"),
                )
                for keyword_id in item.get("keyword_ids") or []:
                    stage_link(tx, rec["id"], keyword_id, item.get("relation", "PRIMARY"), tx.actor)
                ids.append(rec["id"])
            tx.args["count"] = len(ids)
        return self._info_result(tx, None, "created", ids=ids)

    def update_info(
        self, info_id: str, patch: dict[str, Any], version: int | None = None
    ) -> WriteResult:
        """Patch content, source or metadata of an info (version: optimistic-lock check)."""
        with self._write("update_info", {"id": info_id, "patch": patch, "version": version}) as tx:
            rec = stage_update_info(tx, info_id, patch, version)
        return self._info_result(tx, rec, "updated" if tx.changes() else "unchanged")

    def delete_info(self, info_id: str, *, version: int | None = None) -> WriteResult:
        """Soft-delete an info and its links."""
        with self._write("delete_info", {"id": info_id}) as tx:
            stage_delete_info(tx, info_id, version)
        return self._info_result(tx, None, "deleted", ids=[info_id])

    def link_info(
        self,
        info_id: str,
        keyword_id: str,
        relation: str = Relation.RELATED,
        *,
        created_by: str = "user",
    ) -> WriteResult:
        """Link an info to a keyword (an existing link takes the new relation)."""
        args = {"info_id": info_id, "keyword_id": keyword_id, "relation": str(relation)}
        with self._write("link_info", args) as tx:
            stage_link(tx, info_id, keyword_id, str(relation), created_by)
        return self._info_result(tx, None, "linked" if tx.changes() else "unchanged")

    def unlink_info(self, info_id: str, keyword_id: str) -> WriteResult:
        """Remove the link between an info and a keyword."""
        with self._write("unlink_info", {"info_id": info_id, "keyword_id": keyword_id}) as tx:
            stage_unlink(tx, info_id, keyword_id)
        return self._info_result(tx, None, "unlinked")

    def batch_link(self, links: Iterable[tuple[str, str, str]]) -> WriteResult:
        """Create many (info id, keyword id, relation) links in one operation."""
        with self._write("batch_link", {}) as tx:
            count = 0
            for info_id, keyword_id, relation in links:
                count += stage_link(tx, info_id, keyword_id, relation, tx.actor) is not None
            tx.args["count"] = count
        return self._info_result(tx, None, "linked")
