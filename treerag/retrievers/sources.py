"""Where a run's candidate chunks come from: hybrid search, the keyword tree, the two graphs.

Every source answers the same call, `find(question, pool, seen, seeds, limit)`, and returns
chunk candidates (`chunk_id`, `title`, `source`, `text`, `retrieval_score`, and for the
structured sources `found_by`: which keyword path or graph path led to the chunk). A run's
root pool is the hybrid top_k and up to `structure_k` chunks the keyword tree and the graphs
add (a sub-run's walk also starts from the partial chunk that asked its follow-up), after
the hybrid hits; all of them are judged alike. Where the judge rates chunks alike, a
structured find rises above the hybrid hits only when a document the question names links to
it (`treerag.reasoning.named`, read when the evidence is ranked).

- Keyword tree: the keywords the question names (exact match on the tree's canonical terms,
  the most specific first) yield the chunks linked under them.
- Entity graph (`path_source`): the passages about the entities on its best scored paths from
  the entities the question names, when an entity graph was built or imported.
- Passage graph: personalized PageRank over the passage-entity graph, seeded by the entities the
  question names, the hybrid hits and (for a sub-run) the partial chunk that asked the
  follow-up; it reaches passages one entity away from them (the second hop).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from treerag import data_layout
from treerag.bounded import BoundedCache
from treerag.context import Context
from treerag.retrievers.statement import statement_query
from treerag.text import has_han

log = logging.getLogger(__name__)

SUBRUN_STRUCTURE_K = 1
"""Structured candidates a sub-run adds to its top_k, at most (a root run: `structure_k`):
the walk's best from the partial chunk that asked the follow-up."""
SHARE = 1
"""Of the structured candidates, at most this many come from each source before the last
(the keyword tree, the knowledge graph's paths): a named keyword's chunk is usually a hybrid
hit already; the passage graph's second hop, which takes the rest, rarely is."""
MIN_KEYWORD_CHARS = 4
_passage_graphs: BoundedCache[str, Any] = BoundedCache("passage graphs")
"""Open passage graphs (SQLite), one per tenant and collection."""

Candidate = dict[str, Any]
STRUCTURED = 1
"""`reserve` of a structured find: judged when none of the run's hybrid top_k answers."""
NEXT_PAGE = 2
"""`reserve` of a hybrid hit after the top_k (a root run's `next_k`): judged when neither
the top_k nor the structured finds answer and no partial chunk asks a follow-up."""


class Source(Protocol):
    """One way of finding candidate chunks for a question."""

    name: ClassVar[str]

    def find(
        self,
        question: str,
        pool: Sequence[Candidate],
        seen: Collection[str],
        seeds: Sequence[str],
        limit: int,
    ) -> list[Candidate]:
        """Up to `limit` candidates that are neither in `pool` nor in `seen`."""
        ...


# -- hybrid search ------------------------------------------------------------------------------


@dataclass
class HybridSource:
    """Dense + BM25 search of the chunk collection (`treerag.retrievers.hybrid`)."""

    ctx: Context
    name: ClassVar[str] = "hybrid"

    def find(
        self,
        question: str,
        pool: Sequence[Candidate],
        seen: Collection[str],
        seeds: Sequence[str],
        limit: int,
    ) -> list[Candidate]:
        """The first `limit` hits that are not in `seen`."""
        from treerag.models import get_embeddings
        from treerag.retrievers.chunk_store import ChunkStore
        from treerag.retrievers.hybrid import from_context

        skip = set(seen) | {c["chunk_id"] for c in pool}
        with ChunkStore(self.ctx, get_embeddings(self.ctx)) as store:
            retriever = from_context(store, topk=limit + len(skip))
            found = retriever.get_similar_chunk_with_score(question)
        hits = [
            {
                "chunk_id": doc.id,
                "title": doc.metadata.get("title", ""),
                "source": doc.metadata.get("source", ""),
                "text": doc.page_content,
                "retrieval_score": round(score, 6),
            }
            for doc, score in found
        ]
        return [h for h in hits if h["chunk_id"] not in skip][:limit]


# -- the keyword tree ---------------------------------------------------------------------------


@dataclass
class KeywordSource:
    """Chunks linked under the keywords a question names (seed 03's exact hit)."""

    ctx: Context
    name: ClassVar[str] = "keyword"

    def find(
        self,
        question: str,
        pool: Sequence[Candidate],
        seen: Collection[str],
        seeds: Sequence[str],
        limit: int,
    ) -> list[Candidate]:
        """Chunks of the most specific named keywords first, with their keyword path."""
        from treerag.retrievers.keyword_tree import tree_in_use

        with tree_in_use(self.ctx) as tree:
            found = _keyword_finds(tree, question, set(seen) | {c["chunk_id"] for c in pool}, limit)
        ids = list(found)[:limit]
        return [
            {**row, "found_by": {"kind": "keyword", "path": found[row["chunk_id"]]}}
            for row in fetch(self.ctx, ids)
        ]


def _keyword_finds(tree: Any, question: str, skip: set[str], limit: int) -> dict[str, list[str]]:
    """Chunk ids linked under the keywords the question names, each with its keyword path."""
    if tree is None or limit <= 0:
        return {}
    nodes = [tree.get_keyword(i) for i in tree.lookup_terms(question)]
    nodes = [n for n in nodes if len(n.name) >= MIN_KEYWORD_CHARS and n.parent_id]
    found: dict[str, list[str]] = {}
    for node in sorted(nodes, key=lambda n: (-len(n.name), -n.level)):
        path = [n.name for n in tree.get_path(node.id)]
        for hit in tree.get_infos_of_keyword(node.id, size=limit + len(skip)).items:
            chunk_id = (hit.info.metadata or {}).get("chunk_id")
            if chunk_id and chunk_id not in skip and chunk_id not in found:
                found[chunk_id] = path
        if len(found) >= limit:
            break
    return found


# -- the passage-entity graph -------------------------------------------------------------------


def passage_graph_file(ctx: Context) -> Path:
    """Where the passage-entity graph of a data directory lives."""
    from treerag.retrievers.knowledge_graph import graph_dir

    return data_layout.passage_graph_file(graph_dir(ctx))


def _graph_opener(ctx: Context) -> Any:
    from treerag.knowledge_graph.passage_graph import PassageGraph

    def open_graph() -> Any:
        graph = PassageGraph(passage_graph_file(ctx))
        if graph.reset:
            from treerag.documents.manifest import mark_stale

            reason = "its file was of an older format and was emptied"
            mark_stale(ctx, "knowledge_graph", reason=reason)
        return graph

    return open_graph


def open_passage_graph(ctx: Context, create: bool = False) -> Any | None:
    """The data directory's passage-entity graph, opened once per process; None if absent.

    Not leased: other tenants can push it out of the table (and close it) while it is used.
    A call that may run beside other tenants (a server's) holds `passage_graph_in_use`.
    """
    path = passage_graph_file(ctx)
    if not create and not path.exists():
        return None
    return _passage_graphs.get_or_open(str(path.absolute()), _graph_opener(ctx), ctx.open_stores)


@contextlib.contextmanager
def passage_graph_in_use(ctx: Context, create: bool = False) -> Iterator[Any | None]:
    """Lease the data directory's passage graph for the block (None if absent)."""
    path = passage_graph_file(ctx)
    if not create and not path.exists():
        yield None
        return
    with _passage_graphs.lease(str(path.absolute()), _graph_opener(ctx), ctx.open_stores) as graph:
        yield graph


def set_passage_graph_aside(ctx: Context) -> Path:
    """Move a damaged passage graph aside, kept under a dated name; return where it went.

    The graph is derived from the chunks: the next write makes a new one
    (`documents.derived.reconcile`). Its handle in this process is closed first (once the
    calls using it end); its WAL files go with it.
    """
    path = passage_graph_file(ctx)
    _passage_graphs.pop(str(path.absolute()))
    aside = data_layout.set_aside(path)
    log.warning("the passage graph %s was damaged: moved to %s", path, aside)
    return aside


@dataclass
class PassageGraphSource:
    """Passages by personalized PageRank over the passage graph (`found_by` kind "graph").

    The walk restarts from the question's entities and the pool.
    """

    ctx: Context
    name: ClassVar[str] = "graph"

    def find(
        self,
        question: str,
        pool: Sequence[Candidate],
        seen: Collection[str],
        seeds: Sequence[str],
        limit: int,
    ) -> list[Candidate]:
        """The best-ranked passages not yet held, each with the path that reached it."""
        held = [c["chunk_id"] for c in pool]
        with passage_graph_in_use(self.ctx) as graph:
            if graph is None or limit <= 0:
                return []
            hits = graph.rank(
                [*seeds, *held], graph.named_in(question), limit=limit, exclude={*seen, *held}
            )
        paths = {h.id: h.path for h in hits}
        return [
            {**row, "found_by": {"kind": "graph", "path": paths[row["chunk_id"]]}}
            for row in fetch(self.ctx, list(paths))
        ]


# -- the pool -----------------------------------------------------------------------------------


def fetch(ctx: Context, ids: Sequence[str]) -> list[Candidate]:
    """Chunk rows by id, in the order of `ids` (ids no longer stored are left out)."""
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore

    if not ids:
        return []
    with ChunkStore(ctx, get_embeddings(ctx)) as store:
        rows = {r["id"]: r for r in store.get(list(ids))}
    return [
        {
            "chunk_id": i,
            "title": rows[i].get("title", ""),
            "source": rows[i].get("source", ""),
            "text": rows[i].get("text", ""),
            "retrieval_score": 0.0,
        }
        for i in ids
        if i in rows
    ]


def structured_sources(ctx: Context) -> list[Source]:
    """The structured sources the settings turn on and the data directory has.

    The keyword tree first, then the knowledge graph's scored paths (an extracted or
    imported entity graph, `path_source`), then the passage graph's walk.
    """
    from treerag.retrievers.keyword_tree import tree_dir
    from treerag.retrievers.knowledge_graph import graph_dir
    from treerag.retrievers.path_source import PathSource

    out: list[Source] = []
    if ctx.structure in ("keyword", "both") and (tree_dir(ctx) / "logs").is_dir():
        out.append(KeywordSource(ctx))
    if ctx.structure in ("graph", "both") and data_layout.world_file(graph_dir(ctx)).is_file():
        out.append(PathSource(ctx))
    if ctx.structure in ("graph", "both") and passage_graph_file(ctx).is_file():
        out.append(PassageGraphSource(ctx))
    return out


def in_script_of(ctx: Context, followup: str, question: str) -> str:
    """The follow-up with the entities it names in the question's script, where known.

    A bridge found in a Chinese chunk makes an English question's follow-up read "Which guild
    built 潮匠行会?"; the graph knows the entity's English name when a document gives both.
    """
    if not (has_han(followup) or has_han(question)):
        return followup
    want = bool(has_han(question))
    with passage_graph_in_use(ctx) as graph:
        if graph is None:
            return followup
        for node in graph.named_in(followup):
            names = graph.names_of(node)
            wanted = next((n for n in names if bool(has_han(n)) == want), None)
            for name in names:
                if wanted and bool(has_han(name)) != want and name in followup:
                    followup = followup.replace(name, wanted)
    return followup


def subrun_size(ctx: Context) -> int:
    """Candidates a sub-run judges at most: its top_k and the structured finds, if any."""
    extra = min(ctx.structure_k, SUBRUN_STRUCTURE_K) if structured_sources(ctx) else 0
    return ctx.subrun_top_k + extra


def gather(
    ctx: Context,
    question: str,
    seen: Collection[str] = (),
    seeds: Sequence[str] = (),
    revisit: Collection[str] = (),
    widen: bool = True,
    unread: list[str] | None = None,
) -> list[Candidate]:
    """A run's candidates: the hybrid top_k, then what the structured sources add.

    Args:
        ctx: The settings (top_k, structure, structure_k).
        question: The run's question.
        seen: Chunks the tree already holds: left out.
        seeds: Chunks the graph walk starts from besides the hybrid hits (a sub-run's
            partial chunk).
        revisit: Chunks of `seen` that may be offered again: judged irrelevant to the
            parent's question, a passage about the bridge entity can still answer the
            follow-up about it (a new question, so a new verdict).
        widen: A root run: `top_k` hybrid hits, up to `structure_k` structured finds and
            the `next_k` hybrid hits after the top_k and the first `next_k` hits of the
            question searched without its asking words (`statement.statement_query`: a
            passage that answers seldom holds the 時間 a question asks with); otherwise
            (a sub-run) `subrun_top_k` hits and at most `SUBRUN_STRUCTURE_K` finds: a
            follow-up is a one-hop question naming the bridge entity, whose document ranks
            high (BENCHMARKS.md, quality: the sizes measured on hotpotqa_100).
        unread: Where to add the derived store of a structured source that could not be
            read (a damaged file): the run goes on without it (`find_or_skip`).

    Returns:
        The candidates, ranked 1.. in that order: the hybrid hits, then the structured
        finds, marked `reserve` 1 (judged when none of the hybrid hits answers), then the
        next hybrid hits, marked `reserve` 2 (judged when nothing before them answers and no
        partial chunk asks a follow-up: a one-hop question whose answer ranks below the
        top_k; `nodes.reserve`). Taking one
        from each in turn instead (equal-weight RRF) put the graph's guesses above confident
        hybrid hits wherever the judge rated them alike: recall@5 on the pooled rgb_zh_300
        subsets fell below one retrieval's (BENCHMARKS.md, quality).
    """
    again = set(seen) - set(revisit)
    k = ctx.top_k if widen else ctx.subrun_top_k
    hits = HybridSource(ctx).find(question, [], again, seeds, k + (ctx.next_k if widen else 0))
    pool, further = hits[:k], hits[k:]
    statement = statement_query(question) if widen and ctx.next_k else None
    if statement:  # the next page holds the hits of the question without its asking words too
        paged = {c["chunk_id"] for c in further}
        more = HybridSource(ctx).find(statement, pool, again, seeds, ctx.next_k)
        further += [c for c in more if c["chunk_id"] not in paged]
    structured: list[Candidate] = []
    room = ctx.structure_k if widen else min(ctx.structure_k, SUBRUN_STRUCTURE_K)
    sources = structured_sources(ctx)
    for source in sources:
        # Each source but the last leaves room for those after it (one chunk each at most).
        limit = room if source is sources[-1] else min(room, SHARE)
        found = find_or_skip(ctx, source, question, [*pool, *structured], again, seeds, limit)
        if found is None:
            if unread is not None and STORE_OF[source.name] not in unread:
                unread.append(STORE_OF[source.name])
            continue
        held = {c["chunk_id"]: c for c in [*pool, *structured]}
        for chunk in found:
            if chunk["chunk_id"] in held:  # a path source marks a chunk the pool holds
                held[chunk["chunk_id"]].setdefault("found_by", chunk["found_by"])
            else:
                structured.append(chunk)
                room -= 1
    added = {c["chunk_id"] for c in structured}
    tiers = [
        *[(c, 0) for c in pool],
        *[(c, STRUCTURED) for c in structured],
        *[(c, NEXT_PAGE) for c in further if c["chunk_id"] not in added],
    ]
    # A held-back candidate is judged only when nothing before it answers (`nodes.reserve`).
    return [
        {
            **c,
            "rank": rank,
            **({"reserve": tier} if tier else {}),
            **({"further": True} if tier == NEXT_PAGE else {}),
        }
        for rank, (c, tier) in enumerate(tiers, 1)
    ]


STORE_OF = {"keyword": "keyword_tree", "paths": "knowledge_graph", "graph": "knowledge_graph"}
"""The derived store each structured source reads."""


def store_faults() -> tuple[type[Exception], ...]:
    """What a derived store's damaged or unreadable file raises.

    SQLite's, the file system's and the two engines' own errors (imported when one is
    raised: they load the engines). A bug in the code that reads them still fails the run.
    """
    from treerag.keyword_tree.errors import KeywordTreeError
    from treerag.knowledge_graph.errors import KnowledgeGraphError

    return (sqlite3.Error, OSError, KeywordTreeError, KnowledgeGraphError)


def find_or_skip(
    ctx: Context,
    source: Source,
    question: str,
    pool: Sequence[Candidate],
    seen: Collection[str],
    seeds: Sequence[str],
    limit: int,
) -> list[Candidate] | None:
    """A structured source's finds; None when its store cannot be read (marked stale, logged).

    The keyword tree and the graphs are derived from the chunks, which still answer: a
    damaged file of theirs costs the question their finds, not its answer, and the next
    write (or `treerag docs rebuild`) makes them again.
    """
    try:
        return source.find(question, pool, seen, seeds, limit)
    except store_faults() as exc:  # a store's file, not our code: the chunks are the truth
        from treerag.documents.manifest import mark_stale

        store = STORE_OF[source.name]
        log.warning("the %s could not be read: %s: %s", store, type(exc).__name__, exc)
        with contextlib.suppress(OSError):
            mark_stale(ctx, store, reason=f"could not be read ({type(exc).__name__}: {exc})")
        return None
