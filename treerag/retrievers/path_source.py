"""Candidates from the knowledge graph's scored paths: the passages about the entities on them.

An entity/edge graph (`treerag kg build` or `kg import`, `<stores>/knowledge_graph/world.json`)
scores paths from the entities a question names (seed 04's expansion). The entities further
along the best paths are where the question leads: "佩林·奥斯克求学时的老师，出生在哪里？" walks
Perrin Osk —student_of→ Shen Yiwei —born_in→ Lujing, and the passage about Shen Yiwei is the
one that answers. Their text units are (GraphRAG's local search, LightRAG): the chunks an
extracted entity was found in, and the passages the passage-entity graph holds about the
entity under any of its names (an imported graph carries no chunk ids of this collection).

Only paths that start at an entity the question names count: a path from an entity that is
merely near the question in vector space leads anywhere.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from treerag.context import Context
from treerag.reasoning.named import PATHS_KIND, names_title

TOP_PATHS = 5
"""Scored paths read for candidates, best first (as many as the answer's context shows)."""


@dataclass
class PathSource:
    """Passages about the entities on the knowledge graph's best paths from named entities."""

    ctx: Context
    name: ClassVar[str] = "paths"

    def find(
        self,
        question: str,
        pool: Sequence[dict[str, Any]],
        seen: Collection[str],
        seeds: Sequence[str],
        limit: int,
    ) -> list[dict[str, Any]]:
        """Up to `limit` passages, the entities of the best path first, nearest the seed first.

        Unlike the other sources it may name chunks of `pool` (`chunk_id` and `found_by`
        only): a hybrid hit about an entity on a path is marked with the path (`gather`), so
        the judge knows how it was reached.
        """
        from treerag.knowledge_graph.names import entity_names, named_entities
        from treerag.knowledge_graph.paths import format_path
        from treerag.retrievers.knowledge_graph import entity_graph_context, load_world
        from treerag.retrievers.sources import fetch, passage_graph_in_use

        world = load_world(self.ctx) if limit > 0 else None
        if world is None:
            return []
        named = set(named_entities(world, question))
        if not named:
            return []
        found = entity_graph_context(self.ctx, question, top_paths=TOP_PATHS)
        with passage_graph_in_use(self.ctx) as passages:
            skip = set(seen)  # a pool chunk comes back too: gather marks how the path reached it
            held = {c["chunk_id"] for c in pool}
            picked: dict[str, dict[str, Any]] = {}
            for path in found.expansion.paths if found is not None else []:
                if path.nodes[0] not in named:
                    continue
                seed = world.get_entity(path.nodes[0])
                said = [n for n in entity_names(seed) if names_title(question, n)] if seed else []
                how = {
                    "kind": PATHS_KIND,
                    "path": [format_path(path, world, with_score=False)],
                    # The seed as the question names it: the judge reads this (`named.linked_from`).
                    "from": said[0] if said else (seed.label if seed is not None else ""),
                }
                for node in path.nodes[1:]:
                    entity = world.get_entity(node)
                    if entity is None:
                        continue
                    about = passages.about(entity_names(entity)) if passages is not None else []
                    for chunk_id in [*entity.chunk_ids, *about]:
                        if chunk_id not in skip and chunk_id not in picked:
                            picked[chunk_id] = how
                if sum(i not in held for i in picked) >= limit:
                    break
        # A pool chunk needs only its mark: gather holds its row already.
        marks = [{"chunk_id": i, "found_by": how} for i, how in picked.items() if i in held]
        new = [i for i in picked if i not in held][:limit]
        return marks + [
            {**row, "found_by": picked[row["chunk_id"]]} for row in fetch(self.ctx, new)
        ]
