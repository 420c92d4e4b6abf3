"""HeuristicAgent: a deterministic, offline KeywordAgent built on lexical overlap."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from treerag.keyword_tree.normalize import forms_of
from treerag.keyword_tree.schemas import (
    BranchDecision,
    CandidateNode,
    DedupDecision,
    DescentView,
    DisambiguationDecision,
    LinkChoice,
    LinkDecision,
    PlanStep,
    ReorganizeAdvice,
    ViewNode,
)
from treerag.keyword_tree.terms import mentions, overlap, terms
from treerag.text import canonical

Similarity = Callable[[str, str], float]


def _forms(name: str, aliases: Iterable[str]) -> list[str]:
    return [form for text in (name, *aliases) for form in forms_of(text)]


def _hidden_below(node: ViewNode) -> bool:
    """Return whether part of node's subtree is not shown."""
    if node.child_count > len(node.children):
        return True
    return any(_hidden_below(child) for child in node.children)


class HeuristicAgent:
    """Offline agent: every decision follows the lexical rules written on its methods.

    Text is compared through ``terms`` (jieba words and bigrams for Chinese, words for
    English) after normalization, and through ``mentions`` (a keyword's name or alias, in
    any normalized form, occurring in the question). An injected ``similarity(a, b)``
    (for example an embedding cosine) raises overlap scores to its value when higher.
    """

    name = "heuristic"

    def __init__(
        self,
        similarity: Similarity | None = None,
        *,
        min_overlap: float = 0.2,
        homonym_threshold: float = 0.1,
    ) -> None:
        """Create the agent.

        Args:
            similarity: Optional text similarity in [0, 1] combined with lexical overlap.
            min_overlap: Below this score a keyword is not considered related at all.
            homonym_threshold: dedup_check calls two described keywords different things
                when their descriptions overlap less than this.
        """
        self.similarity = similarity
        self.min_overlap = min_overlap
        self.homonym_threshold = homonym_threshold

    # -- scoring ------------------------------------------------------------------------------

    def _score(self, question: str, name: str, aliases: list[str], description: str) -> float:
        q_terms = terms(question)
        score = overlap(q_terms, terms(" ".join([name, *aliases])))
        score += 0.5 * overlap(q_terms, terms(description))
        if self.similarity is not None:
            score = max(score, self.similarity(question, f"{name} {description}".strip()))
        return score

    @staticmethod
    def _hit(q_canon: str, name: str, aliases: list[str]) -> int:
        """Return the length of the longest name/alias form mentioned in the question (0: none)."""
        return max((len(f) for f in _forms(name, aliases) if mentions(q_canon, f)), default=0)

    # -- pick_branch --------------------------------------------------------------------------

    def pick_branch(self, question: str, view: DescentView) -> BranchDecision:
        """Decide one round of descent.

        Rules, in order:
        1. Keywords whose name or alias is mentioned in the question are "hits". A hit
           below another hit wins over it (deeper is more specific); among the rest the
           longest mention wins, then overlap with their descriptions; a remaining tie is
           "ambiguous".
        2. The winning hit is a "match" if it is the current keyword or nothing below it is
           hidden from view; otherwise "jump" to it (possibly several levels down).
        3. Without hits, the keyword with the highest overlap score leads: "jump" to it if
           something below it is hidden, otherwise report "missing" under it. Below
           ``min_overlap`` everywhere, report "missing" under the current keyword.
        """
        q_canon = canonical(question)
        flat = view.flat()
        current = view.current_path[-1] if view.current_path else None
        hits = {i: self._hit(q_canon, n.name, n.aliases) for i, (n, _, _) in flat.items()}
        if current is not None:
            hits[current.id] = self._hit(q_canon, current.name, [])
        hits = {i: length for i, length in hits.items() if length > 0}
        if hits:
            return self._decide_hit(question, view, hits, current.id if current else None)
        return self._decide_partial(question, view, current.id if current else None)

    def _decide_hit(
        self, question: str, view: DescentView, hits: dict[str, int], current: str | None
    ) -> BranchDecision:
        flat = view.flat()

        def ancestors(node_id: str) -> set[str]:
            out = set()
            parent = flat[node_id][2] if node_id in flat else None
            while parent is not None:
                out.add(parent)
                parent = flat[parent][2]
            return out | ({current} if current and node_id != current else set())

        deepest = [i for i in hits if not any(i in ancestors(j) for j in hits if j != i)]
        longest = max(hits[i] for i in deepest)
        deepest = [i for i in deepest if hits[i] == longest]
        if len(deepest) > 1:
            scored = {i: self._score(question, *self._text(flat, i)) for i in deepest}
            high = max(scored.values())
            deepest = [i for i in deepest if scored[i] == high]
        if len(deepest) > 1:
            return BranchDecision(
                action="ambiguous",
                candidate_ids=deepest,
                reason="several keywords named in the question fit equally",
            )
        target = deepest[0]
        if target == current or not _hidden_below(flat[target][0]):
            return BranchDecision(
                action="match", node_id=target, reason="the question names this keyword"
            )
        return BranchDecision(
            action="jump",
            node_id=target,
            jump_depth=flat[target][1],
            reason="the question names this keyword; looking below it for a closer one",
        )

    @staticmethod
    def _text(
        flat: dict[str, tuple[ViewNode, int, str | None]], node_id: str
    ) -> tuple[str, list[str], str]:
        node = flat[node_id][0]
        return node.name, node.aliases, node.description

    def _decide_partial(
        self, question: str, view: DescentView, current: str | None
    ) -> BranchDecision:
        flat = view.flat()
        scores = {i: self._score(question, *self._text(flat, i)) for i in flat}
        ranked = sorted(scores, key=lambda i: (-scores[i], flat[i][1]))
        suggestion = self._suggest_name(question)
        if not ranked or scores[ranked[0]] < self.min_overlap:
            return BranchDecision(
                action="missing",
                node_id=current,
                suggest_name=suggestion,
                reason="no keyword here relates to the question",
            )
        lead = ranked[0]
        if _hidden_below(flat[lead][0]):
            return BranchDecision(
                action="jump",
                node_id=lead,
                jump_depth=flat[lead][1],
                reason="this branch shares the most terms with the question",
            )
        return BranchDecision(
            action="missing",
            node_id=lead,
            suggest_name=suggestion,
            reason="the closest keyword is related, but none is named in the question",
        )

    @staticmethod
    def _suggest_name(question: str) -> str:
        """Return the question itself when short, else its longest term."""
        text = " ".join(question.split())
        if len(text) <= 24:
            return text.strip(" ?？。.!！")
        return max(sorted(terms(question)), key=len, default=text[:24])

    # -- the other decisions ----------------------------------------------------------------

    def dedup_check(
        self, name: str, description: str, existing: list[CandidateNode]
    ) -> DedupDecision:
        """Decide on a colliding new keyword.

        If both the new keyword and every existing one have descriptions, and no pair
        overlaps by ``homonym_threshold``, they are different things: "create_new".
        Otherwise the closest existing keyword is the target: "merge" when the new one
        brings a description the target lacks, else "alias_of".
        """
        if not existing:
            return DedupDecision(action="create_new", reason="nothing collides")
        scored = [
            (self._score(description or name, c.name, c.aliases, c.description), c)
            for c in existing
        ]
        scored.sort(key=lambda pair: -pair[0])
        top_score, target = scored[0]
        described = description and all(c.description for c in existing)
        if described and top_score < self.homonym_threshold:
            return DedupDecision(
                action="create_new", reason="same name, but the descriptions disagree"
            )
        if description and not target.description:
            return DedupDecision(
                action="merge", target_id=target.id, reason="same keyword; adds a description"
            )
        return DedupDecision(action="alias_of", target_id=target.id, reason="same keyword")

    def link_info(self, content: str, candidates: list[CandidateNode]) -> LinkDecision:
        """Link every candidate mentioned in the text.

        The most mentioned candidate (ties: the longer name) is PRIMARY when it occurs
        twice or in the first 120 characters; all other mentioned candidates are RELATED.
        """
        text = canonical(content)
        head = canonical(content[:120])
        counts: dict[str, tuple[int, int]] = {}
        for cand in candidates:
            forms = [f for f in _forms(cand.name, cand.aliases) if mentions(text, f)]
            if forms:
                counts[cand.id] = (sum(text.count(f) for f in forms), max(map(len, forms)))
        if not counts:
            return LinkDecision(reason="no candidate is mentioned")
        lead = max(counts, key=lambda i: counts[i])
        lead_cand = next(c for c in candidates if c.id == lead)
        in_head = any(mentions(head, f) for f in _forms(lead_cand.name, lead_cand.aliases))
        links = []
        for cand_id in counts:
            primary = cand_id == lead and (counts[lead][0] >= 2 or in_head)
            links.append(
                LinkChoice(keyword_id=cand_id, relation="PRIMARY" if primary else "RELATED")
            )
        return LinkDecision(links=links, reason="linked the keywords the text mentions")

    def disambiguate_same_name(
        self, question: str, candidates: list[CandidateNode]
    ) -> DisambiguationDecision:
        """Pick the candidate whose path and description share the most terms with the question.

        The shared name itself is ignored; with no unique best (score 0 or a tie), none.
        """
        names = {form for c in candidates for form in _forms(c.name, [])}
        q_terms = terms(question) - names
        scores = {
            c.id: overlap(q_terms, terms(" ".join([*c.path[:-1], c.description, *c.aliases])))
            for c in candidates
        }
        best = max(scores.values(), default=0.0)
        winners = [i for i, s in scores.items() if s == best]
        if best <= 0 or len(winners) != 1:
            return DisambiguationDecision(reason="the question does not tell them apart")
        return DisambiguationDecision(node_id=winners[0], reason="its context matches the question")

    def review_subtree(self, view: DescentView) -> ReorganizeAdvice:
        """Propose merging siblings that share a normalized form (e.g. "北京" and "Beijing")."""
        steps: list[PlanStep] = []

        def walk(nodes: list[ViewNode]) -> None:
            seen: dict[str, ViewNode] = {}
            for node in nodes:
                forms = set(_forms(node.name, node.aliases))
                twin = next((seen[f] for f in forms if f in seen), None)
                if twin is not None:
                    steps.append(
                        PlanStep(
                            action="merge",
                            node_id=node.id,
                            target_id=twin.id,
                            reason=f"{node.name!r} and {twin.name!r} name the same thing",
                        )
                    )
                    continue
                seen.update(dict.fromkeys(forms, node))
                walk(node.children)

        walk(view.candidates)
        return ReorganizeAdvice(steps=steps)
