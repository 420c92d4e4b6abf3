"""Search of seed 03 §5.1 and agent descent: exact hit, disambiguation, cached path, descent."""

from __future__ import annotations

import asyncio
from typing import Any

from treerag.keyword_tree.agent import KeywordAgent, agent_name, call_agent, run_sync
from treerag.keyword_tree.cache import MISSING
from treerag.keyword_tree.changelog import append_audit
from treerag.keyword_tree.descent import Descender, Outcome, decision_log
from treerag.keyword_tree.errors import InvalidInputError
from treerag.keyword_tree.models import KeywordNode
from treerag.keyword_tree.reads import ReadsMixin
from treerag.keyword_tree.results import Ambiguous, Matched, NotFound, SearchResult, Via
from treerag.keyword_tree.schemas import CandidateNode, DisambiguationDecision
from treerag.text import query_key


class SearchMixin(ReadsMixin):
    """search / asearch, descend / adescend, suggest_parent."""

    def _agent_for(self, agent: KeywordAgent | None, use_agent: bool = True) -> KeywordAgent | None:
        if not use_agent:
            return None
        return agent if agent is not None else self.agent

    def candidate(self, node_id: str) -> CandidateNode:
        """Return a keyword as the agent sees it in comparisons (with its path of names)."""
        rec = self.index.nodes[node_id]
        path = [self.index.nodes[i]["name"] for i in self.index.path_ids(node_id)]
        return CandidateNode(
            id=node_id,
            name=rec["name"],
            description=rec["description"],
            aliases=list(rec["aliases"]),
            path=path,
        )

    # -- search -------------------------------------------------------------------------------

    def search(self, query: str, **kwargs: Any) -> SearchResult:
        """Synchronous search; see asearch (no event loop is started unless the agent is needed)."""
        quick = self._quick(query, kwargs)
        if quick is not None:
            return quick
        return run_sync(self.asearch(query, **kwargs))

    def _quick(self, query: str, kwargs: dict[str, Any]) -> SearchResult | None:
        """Answer without an event loop when no agent call is needed."""
        self._maybe_refresh()
        key = query_key(query)
        if not key:
            return None
        agent = self._agent_for(kwargs.get("agent"), kwargs.get("use_agent", True))
        result = self._settle(key, agent, kwargs.get("use_cache", True))
        if isinstance(result, Matched):
            result.infos = self.get_infos_of_keyword(
                result.node.id,
                kwargs.get("relation"),
                kwargs.get("page", 0),
                kwargs.get("size", 50),
            )
        return result

    async def asearch(
        self,
        query: str,
        *,
        use_agent: bool = True,
        agent: KeywordAgent | None = None,
        relation: str | None = None,
        page: int = 0,
        size: int = 50,
        use_cache: bool = True,
    ) -> SearchResult:
        """Find the keyword a query is about and its infos (seed 03 §5.1).

        1. exact cache; 2. exact lookup (one hit: done; several: the agent's
        disambiguate_same_name, else Ambiguous); 3. descend cache; 4. agent descent from
        the roots; 5. infos of the matched keyword, filtered by relation and paged.

        Args:
            query: A keyword or a question.
            use_agent: Allow agent calls (disambiguation and descent).
            agent: Overrides the store's agent for this call.
            relation: Only infos linked with this relation.
            page: Info page number.
            size: Infos per page.
            use_cache: Read and fill the exact, descend and agent caches.
        """
        # File reads and writes go to a worker thread: an event loop (the LangGraph server's)
        # must not block on them; only the agent calls run on the loop.
        await asyncio.to_thread(self._maybe_refresh)
        key = query_key(query)
        if not key:
            raise InvalidInputError(f"query {query!r} has no letters or digits")
        chosen = self._agent_for(agent, use_agent)
        result = await self._locate(query, key, chosen, use_cache)
        if isinstance(result, Matched):
            result.infos = await asyncio.to_thread(
                self.get_infos_of_keyword, result.node.id, relation, page, size
            )
        return result

    def _settle(self, key: str, agent: KeywordAgent | None, use_cache: bool) -> SearchResult | None:
        """Steps 2-4 of seed 03 §5.1 that need no agent; None when the agent must decide."""
        ids, via = self._exact(key, use_cache)
        if len(ids) == 1:
            return self._matched(ids[0], via)
        if len(ids) > 1:
            if agent is not None:
                return None
            nodes = [self._node(self.index.nodes[i]) for i in ids]
            return Ambiguous(candidates=nodes, reason="several keywords have this name", via=via)
        if use_cache:
            cached = self.cache.get(f"descend:{key}")
            if cached is not MISSING and self._path_valid(cached):
                return self._matched(cached[-1], "descend_cache")
        if agent is None:
            return NotFound(
                candidates=[self._node(self.index.nodes[i]) for i in self.index.child_ids(None)],
                reason="no exact match, and no agent to descend with",
                via="none",
            )
        return None

    async def _locate(
        self, query: str, key: str, agent: KeywordAgent | None, use_cache: bool
    ) -> SearchResult:
        settled = self._settle(key, agent, use_cache)
        if settled is not None:
            return settled
        assert agent is not None  # _settle always answers when there is no agent
        ids = list(self.index.inverted.get(key, ()))
        if len(ids) > 1:
            return await self._disambiguate(query, ids, agent, "exact")
        outcome = await Descender(self.index, self.config, self.cache, self.agent_stats).run(
            query, agent, use_cache=use_cache
        )
        await asyncio.to_thread(self._audit, decision_log(query, outcome, agent))
        if outcome.kind == "matched" and use_cache:
            self.cache.put(f"descend:{key}", outcome.path, self.config.descend_ttl, outcome.path)
        return self.result_of(outcome)

    def _exact(self, key: str, use_cache: bool) -> tuple[list[str], Via]:
        if use_cache:
            cached = self.cache.get(f"exact:{key}")
            if cached is not MISSING and all(i in self.index.nodes for i in cached):
                return list(cached), "exact_cache"
        ids = list(self.index.inverted.get(key, ()))
        if use_cache:
            self.cache.put(f"exact:{key}", ids, self.config.exact_ttl, ids)
        return ids, "exact"

    def _path_valid(self, path: list[str]) -> bool:
        return (
            bool(path)
            and all(i in self.index.nodes for i in path)
            and (self.index.path_ids(path[-1]) == path)
        )

    def _matched(self, node_id: str, via: Via, **extra: Any) -> Matched:
        path = [self._node(self.index.nodes[i]) for i in self.index.path_ids(node_id)]
        return Matched(node=path[-1], path=path, via=via, **extra)

    async def _disambiguate(
        self, query: str, ids: list[str], agent: KeywordAgent | None, via: Via
    ) -> SearchResult:
        nodes = [self._node(self.index.nodes[i]) for i in ids]
        if agent is None:
            return Ambiguous(candidates=nodes, reason="several keywords have this name", via=via)
        try:
            decision = await call_agent(
                agent,
                "disambiguate_same_name",
                query,
                [self.candidate(i) for i in ids],
                schema=DisambiguationDecision,
                timeout=self.config.agent_timeout,
                stats=self.agent_stats,
            )
        except Exception as exc:  # an agent failure leaves the question open, not broken
            return Ambiguous(candidates=nodes, reason=f"agent failed: {exc}", via=via)
        await asyncio.to_thread(
            self._audit,
            {
                "question": query,
                "agent": agent_name(agent),
                "disambiguate": ids,
                "decision": decision.model_dump(),
            },
        )
        if decision.node_id in ids:
            return self._matched(decision.node_id, "disambiguation", reason=decision.reason)
        return Ambiguous(
            candidates=nodes, reason=decision.reason or "agent could not decide", via=via
        )

    def _audit(self, record: dict[str, Any]) -> None:
        if self.config.log_agent_decisions:
            append_audit(self.storage, record)

    def result_of(self, outcome: Outcome) -> SearchResult:
        """Turn a descent outcome (ids) into Matched / Ambiguous / NotFound (nodes)."""
        nodes = self.index.nodes
        if outcome.kind == "matched" and outcome.node_id in nodes:
            return self._matched(
                outcome.node_id, "descent", trace=outcome.trace, reason=outcome.reason
            )
        if outcome.kind == "ambiguous":
            return Ambiguous(
                candidates=[self._node(nodes[i]) for i in outcome.candidate_ids if i in nodes],
                reason=outcome.reason,
                via="descent",
                trace=outcome.trace,
            )
        parent: KeywordNode | None = None
        if outcome.node_id is not None and outcome.node_id in nodes:
            parent = self._node(nodes[outcome.node_id])
        return NotFound(
            suggested_parent=parent,
            suggested_name=outcome.suggested_name,
            candidates=[self._node(nodes[i]) for i in outcome.candidate_ids if i in nodes],
            reason=outcome.reason,
            error=outcome.error,
            trace=outcome.trace,
        )

    # -- descent ------------------------------------------------------------------------------

    def descend(self, question: str, **kwargs: Any) -> SearchResult:
        """Synchronous descent; see adescend."""
        return run_sync(self.adescend(question, **kwargs))

    async def adescend(
        self,
        question: str,
        *,
        agent: KeywordAgent | None = None,
        start_id: str | None = None,
        use_cache: bool = True,
        max_depth: int | None = None,
    ) -> SearchResult:
        """Walk down from start_id (or the roots) with the agent (seed 03 §4.3).

        Each round shows the agent a subtree up to max_depth levels (config.view_max_depth;
        fewer when large); the agent may jump several levels. The result's ``trace`` counts
        the agent calls. Agent failures end in NotFound carrying the current candidates.
        """
        await asyncio.to_thread(self._maybe_refresh)
        chosen = self._agent_for(agent)
        if chosen is None:
            raise InvalidInputError("descent needs an agent: pass agent= or set one on the store")
        if start_id is not None:
            self._live(start_id)
        outcome = await Descender(self.index, self.config, self.cache, self.agent_stats).run(
            question, chosen, start_id=start_id, use_cache=use_cache, max_depth=max_depth
        )
        await asyncio.to_thread(self._audit, decision_log(question, outcome, chosen))
        return self.result_of(outcome)
