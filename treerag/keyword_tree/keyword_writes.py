"""Keyword write API of seed 03 §六, with the agent-assisted create flow of §5.2."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from treerag.keyword_tree.agent import KeywordAgent, run_sync
from treerag.keyword_tree.keyword_ops import (
    ChildPolicy,
    InfoPolicy,
    ensure_root,
    stage_add_alias,
    stage_create,
    stage_delete,
    stage_merge,
    stage_move,
    stage_remove_alias,
    stage_update,
)
from treerag.keyword_tree.models import Record
from treerag.keyword_tree.placement import CreatePlan, plan_dedup, plan_parent
from treerag.keyword_tree.results import WriteResult
from treerag.keyword_tree.schemas import DedupDecision
from treerag.keyword_tree.search import SearchMixin
from treerag.keyword_tree.txn import Txn
from treerag.keyword_tree.validate import check_name


class KeywordWrites(SearchMixin):
    """create / update / move / merge / delete keywords, aliases, batches."""

    def _result(self, tx: Txn, rec: Record | None, action: str, **extra: Any) -> WriteResult:
        node = self._node(rec) if rec is not None and rec["id"] in self.index.nodes else None
        op = tx.op_id if tx.changes() else None
        return WriteResult(operation_id=op, kind=tx.kind, action=action, node=node, **extra)

    # -- create ----------------------------------------------------------------------------

    def create_keyword(self, name: str, **kwargs: Any) -> WriteResult:
        """Create a keyword (synchronous); see acreate_keyword for the arguments."""
        agent = self._agent_for(kwargs.get("agent"), kwargs.get("use_agent", True))
        if agent is None or (kwargs.get("parent_id") and not kwargs.get("dedup", True)):
            return self._create(name, CreatePlan(kwargs.pop("parent_id", None)), **kwargs)
        return run_sync(self.acreate_keyword(name, **kwargs))

    async def acreate_keyword(
        self,
        name: str,
        *,
        parent_id: str | None = None,
        aliases: list[str] | None = None,
        description: str = "",
        metadata: dict[str, Any] | None = None,
        use_agent_for_parent: bool = True,
        dedup: bool = True,
        agent: KeywordAgent | None = None,
        use_agent: bool = True,
        id: str | None = None,
    ) -> WriteResult:
        """Create a keyword (seed 03 §5.2).

        With an agent: a name or alias that collides with existing keywords goes to
        dedup_check (alias_of / merge / create_new); without parent_id, the agent descends
        from the roots to suggest a parent, and a keyword it cannot place goes under the
        uncategorized root (config.unplaced). Without an agent, no parent means a root.

        Args:
            name: The keyword's name.
            parent_id: Parent keyword; None lets the agent choose (or makes a root).
            aliases: Other names.
            description: What the keyword covers (the agent's main clue when descending).
            metadata: Free JSON-serializable data.
            use_agent_for_parent: Let the agent choose the parent when parent_id is None.
            dedup: Let the agent resolve name collisions.
            agent: Overrides the store's agent for this call.
            use_agent: False creates exactly as told, without any agent call.
            id: A chosen id (default: generated).

        Raises:
            DuplicateError: The parent already has a child with this normalized name.
            NotFoundError: parent_id does not exist.
        """
        self._maybe_refresh()
        chosen = self._agent_for(agent, use_agent)
        check_name(name)
        plan = CreatePlan(parent_id)
        if chosen is not None and dedup:
            await plan_dedup(self, plan, chosen, name, aliases or [], description)
        if plan.dedup is None and parent_id is None and chosen is not None and use_agent_for_parent:
            await plan_parent(self, plan, chosen, name, description)
        return self._create(
            name, plan, aliases=aliases, description=description, metadata=metadata, id=id
        )

    def _create(
        self,
        name: str,
        plan: CreatePlan,
        *,
        aliases: list[str] | None = None,
        description: str = "",
        metadata: dict[str, Any] | None = None,
        id: str | None = None,
        **_ignored: Any,
    ) -> WriteResult:
        args = {"name": name, "parent_id": plan.parent_id, "aliases": aliases, "id": id}
        with self._write("create_keyword", args) as tx:
            tx.agent_log.extend(plan.agent_log)
            if plan.dedup is not None:
                return self._apply_dedup(tx, plan.dedup, name, aliases or [], description)
            parent = plan.parent_id
            if plan.unplaced:
                parent = ensure_root(tx, self.config.uncategorized_name)
            rec = stage_create(
                tx,
                name,
                parent_id=parent,
                aliases=aliases,
                description=description,
                metadata=metadata,
                node_id=id,
            )
        return self._result(tx, rec, "created")

    def _apply_dedup(
        self, tx: Txn, decision: DedupDecision, name: str, aliases: list[str], description: str
    ) -> WriteResult:
        target = tx.node(str(decision.target_id))
        patch: dict[str, Any] = {"aliases": [*target["aliases"], name, *aliases]}
        if decision.action == "merge" and description and not target["description"]:
            patch["description"] = description
        rec = stage_update(tx, target["id"], patch, None)
        action = "alias_of" if decision.action == "alias_of" else "merged"
        # Built before the surrounding with-block commits; a failed commit discards it.
        return self._result(tx, rec, action)

    def batch_create_keywords(self, items: Iterable[dict[str, Any]]) -> WriteResult:
        """Create many keywords in one operation (one undo); parents may be earlier items.

        Each item takes the keyword arguments of create_keyword without agent options:
        name, parent_id, aliases, description, metadata, id.
        """
        with self._write("batch_create_keywords", {}) as tx:
            ids = []
            for item in items:
                item = dict(item)
                rec = stage_create(
                    tx,
                    item.pop("name", ""),
                    parent_id=item.pop("parent_id", None),
                    aliases=item.pop("aliases", None),
                    description=item.pop("description", ""),
                    metadata=item.pop("metadata", None),
                    node_id=item.pop("id", None),
                )
                ids.append(rec["id"])
            tx.args["count"] = len(ids)
        return self._result(tx, None, "created", ids=ids)

    # -- change --------------------------------------------------------------------------------

    def update_keyword(
        self, node_id: str, patch: dict[str, Any], version: int | None = None
    ) -> WriteResult:
        """Patch name, aliases, description or metadata (seed 03 §5.3).

        Args:
            node_id: The keyword.
            patch: Fields to set.
            version: The version the caller read; a different stored version raises
                VersionConflictError. None skips the check.
        """
        with self._write(
            "update_keyword", {"id": node_id, "patch": patch, "version": version}
        ) as tx:
            rec = stage_update(tx, node_id, patch, version)
        return self._result(tx, rec, "updated" if tx.changes() else "unchanged")

    def add_alias(self, node_id: str, alias: str, *, version: int | None = None) -> WriteResult:
        """Add an alias (no change when it already names the keyword)."""
        with self._write("add_alias", {"id": node_id, "alias": alias}) as tx:
            rec = stage_add_alias(tx, node_id, alias, version)
        return self._result(tx, rec, "updated" if tx.changes() else "unchanged")

    def remove_alias(self, node_id: str, alias: str, *, version: int | None = None) -> WriteResult:
        """Remove an alias (matched by normalized form)."""
        with self._write("remove_alias", {"id": node_id, "alias": alias}) as tx:
            rec = stage_remove_alias(tx, node_id, alias, version)
        return self._result(tx, rec, "updated")

    def move_keyword(
        self, node_id: str, new_parent_id: str | None, *, version: int | None = None
    ) -> WriteResult:
        """Move a keyword and its subtree under new_parent_id (None: to the top).

        Raises:
            CycleError: new_parent_id is inside the subtree.
            DuplicateError: The new parent has a child with the same name.
        """
        args = {"id": node_id, "new_parent_id": new_parent_id}
        with self._write("move_keyword", args) as tx:
            before = tx.node(node_id, version)["parent_id"]
            tx.args["old_parent_id"] = before
            rec = stage_move(tx, node_id, new_parent_id, version)
        return self._result(tx, rec, "moved" if tx.changes() else "unchanged")

    def merge_keywords(
        self, src_id: str, dst_id: str, *, children: ChildPolicy = "reattach"
    ) -> WriteResult:
        """Merge src into dst (seed 03 §5.3): aliases, links and children go to dst.

        Args:
            src_id: The keyword that disappears.
            dst_id: The keyword that stays.
            children: "reattach" moves src's children under dst; "flatten" makes every
                descendant of src a direct child of dst. Same-named children are merged.
        """
        with self._write(
            "merge_keywords", {"src": src_id, "dst": dst_id, "children": children}
        ) as tx:
            rec = stage_merge(tx, src_id, dst_id, children)
        return self._result(tx, rec, "merged")

    def delete_keyword(
        self,
        node_id: str,
        *,
        cascade: bool = False,
        info_policy: InfoPolicy = "reattach",
        version: int | None = None,
    ) -> WriteResult:
        """Soft-delete a keyword (seed 03 §5.4).

        Args:
            node_id: The keyword.
            cascade: Also delete its descendants (otherwise a keyword with children is refused).
            info_policy: For linked infos: "forbid" refuses, "reattach" moves the links to
                the parent, "unlink" drops them. The infos themselves stay.
            version: Optimistic-lock check of the keyword.
        """
        args = {"id": node_id, "cascade": cascade, "info_policy": info_policy}
        with self._write("delete_keyword", args) as tx:
            ids = stage_delete(
                tx, node_id, cascade=cascade, info_policy=info_policy, version=version
            )
        return self._result(tx, None, "deleted", ids=ids)
