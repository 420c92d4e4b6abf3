"""Node: rank the evidence of the whole subtree and write the cited answer."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from treerag.context import Context
from treerag.nodes.common import context_of, emit, time_left
from treerag.nodes.judge import MODEL_FAILED
from treerag.reasoning import EvidenceItem, get_reasoner, offline_reasoner
from treerag.reasoning.answering import answering
from treerag.reasoning.base import ModelFailure, Quote
from treerag.reasoning.compose import chain as compose_chain
from treerag.reasoning.marks import renumber
from treerag.reasoning.named import anchored, links, title_of
from treerag.reasoning.wording import (
    NOT_FOUND,
    judges_failed,
    model_failed,
    stores_unread,
    strip_label,
    unjudged_read,
)
from treerag.server.scope import require_active
from treerag.state import ChunkRecord, RagState
from treerag.text import shown_title

SUPPORT_PER_CHUNK = 2


RRF_K = 60
PUBLIC_EVIDENCE_KEYS = ("chunk_id", "title", "source", "score", "depth")


def public_evidence(evidence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranked evidence as callers receive it: without chunk text and internal ranks."""
    return [{k: e[k] for k in PUBLIC_EVIDENCE_KEYS} for e in evidence]


def rank_evidence(
    chunks: list[ChunkRecord],
    depth: int,
    question: str = "",
    cited: Sequence[str] = (),
    next_links: bool = False,
) -> list[dict[str, Any]]:
    """Rank this run's chunks and its sub-runs' evidence, best first.

    The chunks the answer cites (`cited`, chunk ids in the order the answer cites them; the
    root's answer only) come first: they are what the answer stands on, whatever their verdict
    (a chunk judged irrelevant to the question that answers a partial chunk's follow-up,
    `held_answer`, is the chain's last link). Then this level's sufficient chunks (2);
    irrelevant ones (0) last. Partial chunks and the sub-runs' finds are ordered by reciprocal
    rank fusion (Cormack et al., 2009: the sum of 1 / (60 + rank) over the ranked lists an item
    appears in) of this run's retrieval list, each sub-run's ranked evidence, the latter counted
    from the rank of the chunk that caused it when the sub-run judged one of its chunks
    sufficient, else from the end of this run's list (a sub-run that found only partial evidence
    ranks below this run's own chunks; two such sub-runs' finds tie and keep the chunks' order),
    and the anchor list (`named.anchored`): the chunks whose document the question names, each
    followed by the chunks the graph linked from it in one step. Ties go to the shallower item.
    A chunk found by several runs, or named by the question, rises.

    With `next_links` (the root's ranking, as the caller reads it), a chunk judged irrelevant
    whose document a useful chunk of another document names (`named.links`: "…由日籍水利技師
    八田與一設計" in 濁水溪's paragraph, for 八田與一's) ranks among the partial ones: it is the
    chain's next link, which the judge could not see from the question alone.
    """
    items: dict[str, dict[str, Any]] = {}
    fused: dict[str, float] = {}

    def offer(item: dict[str, Any], position: int) -> None:
        cid = item["chunk_id"]
        fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + position)
        best = items.get(cid)
        if best is None or (-item["score"], item["depth"]) < (-best["score"], best["depth"]):
            items[cid] = item

    last = max((chunk.get("rank", 0) for chunk in chunks), default=0)
    for chunk in chunks:
        rank = chunk.get("rank", 0)
        offer(_own_item(chunk, depth), rank)
        # A sub-run's list continues from the chunk it completes when the sub-run answered its
        # follow-up: its best find ranks just below that chunk, so the bridge chunk and its
        # completion sit side by side. A sub-run that found only partial evidence continues
        # after this run's own list: its finds are weaker than this run's own partial chunks.
        start = rank if _answered(chunk, depth) else last
        for position, found in enumerate(chunk.get("sub_evidence", []), 1):
            offer(found, start + position)
    by_id = {c["chunk_id"]: c for c in chunks}
    for position, chunk_id in enumerate(anchored(question, chunks), 1):
        offer(_own_item(by_id[chunk_id], depth), position)

    # Only this level's own verdicts of 2 answer this question; a sub-run's 2 answered its
    # follow-up, which makes it partial evidence here.
    def sufficient(item: dict[str, Any]) -> bool:
        return item["score"] == 2 and item["depth"] == depth

    order = {chunk_id: n for n, chunk_id in enumerate(dict.fromkeys(cited))}
    linked = _linked_from_useful(chunks) if next_links else set()
    return sorted(
        items.values(),
        key=lambda i: (
            order.get(i["chunk_id"], len(order)),
            not sufficient(i),
            i["score"] == 0 and i["chunk_id"] not in linked,
            -fused[i["chunk_id"]],
            i["depth"],
        ),
    )


def _linked_from_useful(chunks: list[ChunkRecord]) -> set[str]:
    """The chunks judged irrelevant that a useful chunk of another document links to."""
    useful = [c for c in chunks if c.get("score", 0) > 0]
    return {
        c["chunk_id"]
        for c in chunks
        if not c.get("score") and any(title_of(u) != title_of(c) and links(u, c) for u in useful)
    }


def _answered(chunk: ChunkRecord, depth: int) -> bool:
    """Whether the sub-run of this chunk judged one of its own chunks sufficient."""
    return any(
        found.get("score") == 2 and found.get("depth") == depth + 1
        for found in chunk.get("sub_evidence", [])
    )


def _own_item(chunk: ChunkRecord, depth: int) -> dict[str, Any]:
    return {
        "chunk_id": chunk["chunk_id"],
        "title": chunk.get("title", ""),
        "source": chunk.get("source", ""),
        "score": chunk.get("score", 0),
        "depth": depth,
        "rank": chunk.get("rank", 0),
        "text": chunk.get("text", ""),
        "quote": chunk.get("quote", ""),
        "followup": chunk.get("followup", ""),
    }


def build_evidence(
    chunks: list[ChunkRecord], budget_tokens: int, depth: int = 0
) -> list[EvidenceItem]:
    """Number the useful chunks (score 2, then 1 with their sub-answers) within a token budget.

    What a sub-run found gets a number of its own, right after the chunk whose follow-up
    found it (at most `SUPPORT_PER_CHUNK` per chunk, useful ones only, each chunk once), so
    that every [n] of the answer names the chunk its sentence comes from; so does a chunk of
    this run that answers a follow-up no sub-run's chain answered (`held_answer`). Of a
    sub-run's finds, the ones its chain quoted come first, then partial ones that asked a
    follow-up of their own (`EvidenceItem.asked`: the chain's next link, which this run may
    hold). A hit of the root's next page (`further`) is useful only when sufficient: it was
    read for an answer.
    """
    useful = sorted(
        (c for c in chunks if c.get("score", 0) > (1 if c.get("further") else 0)),
        key=lambda c: (-c.get("score", 0), c.get("rank", 0)),
    )
    out: list[EvidenceItem] = []
    numbered: set[str] = set()
    spent = 0

    def add(
        item: Any, item_depth: int, followup: str, sub_answer: str = "", asked: str = ""
    ) -> bool:
        nonlocal spent
        cost = len(item.get("text", "")) // 3 + len(sub_answer) // 3
        if out and spent + cost > budget_tokens:
            return False
        spent += cost
        numbered.add(item["chunk_id"])
        out.append(
            EvidenceItem(
                n=len(out) + 1,
                chunk_id=item["chunk_id"],
                title=title_of(item),
                source=item.get("source", ""),
                text=item.get("text", ""),
                score=item.get("score", 0),
                followup=followup,
                sub_answer=sub_answer,
                depth=item_depth,
                quote=item.get("quote", ""),
                asked=asked,
            )
        )
        return True

    for chunk in useful:
        if chunk["chunk_id"] in numbered:
            continue
        useful_below = [e for e in chunk.get("sub_evidence", []) if e.get("score", 0) > 0]
        # A sub-run that judged nothing useful has only "nothing was found" to say, and a model
        # reading that beside the chunk tends to repeat it as the whole answer.
        sub_answer = chunk.get("sub_answer", "") if useful_below else ""
        if not add(chunk, depth, chunk.get("followup", ""), sub_answer):
            break
        owner = out[-1]
        # The chunks the sub-run's chain quotes come first, whatever their rank there.
        quoted = [q["chunk_id"] for q in chunk.get("sub_chain", [])]
        below = sorted(
            (e for e in chunk.get("sub_evidence", []) if e.get("text")),
            key=lambda e: e["chunk_id"] not in quoted,
        )
        found = [
            e
            for e in below
            if e["chunk_id"] not in numbered and (e["chunk_id"] in quoted or e.get("score", 0) > 0)
        ]
        # Then the ones that asked a follow-up of their own: they name the chain's next link,
        # which a chunk of this run may hold (`compose`).
        found = [e for e in found if e["chunk_id"] in quoted] + sorted(
            (e for e in found if e["chunk_id"] not in quoted),
            key=lambda e: not (e.get("score") == 1 and e.get("followup")),
        )[:SUPPORT_PER_CHUNK]
        for item in found:
            below_asked = item.get("followup", "") if item.get("score") == 1 else ""
            if not add(
                item, item.get("depth", depth + 1), chunk.get("followup", ""), "", below_asked
            ):
                break
        # Whether or not the sub-run found useful chunks, when its chain quotes none a chunk
        # of this run may answer the follow-up (the sub-run is not given its parent's chunks).
        held = held_answer(chunk, chunks, numbered)
        if held is not None:
            add({**held, "score": 1}, depth, chunk.get("followup", ""))
        number = {e.chunk_id: e.n for e in out}
        owner.chain = [
            Quote(number[q["chunk_id"]], q["text"], q.get("said", ""), q.get("answer", ""))
            for q in chunk.get("sub_chain", [])
            if q["chunk_id"] in number
        ]
    return out


def held_answer(
    chunk: ChunkRecord, chunks: list[ChunkRecord], numbered: set[str]
) -> ChunkRecord | None:
    """A chunk of this run that answers a partial chunk's follow-up its sub-run did not.

    Judged irrelevant to the question, it answers the follow-up (`answering.answering`): the
    run held the chain's next link. The follow-up was not asked, or its sub-run, which is
    not given its parent's chunks, quoted no chain ("The census of 1911 recorded 4,210
    inhabitants" in the root's hits, for "How many people lived in Harrowmere at the 1911
    census?", whose sub-run found other paragraphs of the town's document).
    """
    followup = chunk.get("followup", "")
    if chunk.get("score") != 1 or not followup or chunk.get("sub_chain"):
        return None
    return next(
        (
            c
            for c in chunks
            if not c.get("score")
            and c["chunk_id"] not in numbered
            and answering(followup, title_of(c), c.get("text", "")) is not None
        ),
        None,
    )


def closest_passages(chunks: list[ChunkRecord], budget_tokens: int) -> list[EvidenceItem]:
    """The root's hybrid hits in their search order, for an answer no judge found evidence for.

    A judge reads a chunk alone against the question's words; a question that paraphrases
    its passage ("第一任總經理" for "首任總經理為…") can leave every chunk judged irrelevant
    though the first hit answers it. The root's answer then reads its own top hits as one
    retrieval would (`eval.runner.run_naive`), still quoting only sentences that carry the
    question (`fallback.carries`), and says so (`wording.unjudged_read`). The structured finds
    and the next page are left out: they were read because the hits did not answer.
    """
    hits = [
        # Read as one retrieval reads its hits (`eval.runner.run_naive`): each useful alike.
        ChunkRecord(
            chunk_id=c["chunk_id"],
            rank=c.get("rank", 0),
            title=c.get("title", ""),
            source=c.get("source", ""),
            text=c.get("text", ""),
            score=1,
        )
        for c in chunks
        if "score" in c and not c.get("found_by") and not c.get("further")
    ]
    return build_evidence(hits, budget_tokens)


def _evidence_and_chain(
    question: str, chunks: list[ChunkRecord], ctx: Context, depth: int
) -> tuple[list[EvidenceItem], list[Quote]]:
    """The numbered evidence (`build_evidence`) and the chain its answer quotes (`compose`).

    A root run none of whose chunks was judged useful reads its top hits instead
    (`closest_passages`).
    """
    evidence = build_evidence(chunks, ctx.answer_token_budget, depth)
    if not evidence and depth == 0:
        evidence = closest_passages(chunks, ctx.answer_token_budget)
    return evidence, compose_chain(question, evidence)


async def answer_question(state: RagState, runtime: Runtime[Context]) -> dict:
    """Answer from the judged evidence, citing it; say plainly when nothing was found."""
    await require_active()
    ctx = context_of(runtime)
    chunks = state.get("chunks", [])
    tree: dict[str, Any] = {
        "thread_id": state.get("thread_id", ""),
        "root_thread_id": state.get("root_thread_id", ""),
        "depth": state.get("depth", 0),
    }
    emit("answer_started", **tree)
    # Reading is CPU work that may load the segmenter's tables: off the event loop.
    evidence, quotes = await asyncio.to_thread(
        _evidence_and_chain, state["question"], chunks, ctx, state.get("depth", 0)
    )
    text, answered, problem = await write_answer(state, ctx, evidence, quotes)
    # Marks numbered 1, 2, … in order of first use, as the answer streamed (reasoning.marks).
    text, order = renumber(text, [e.n for e in evidence])
    by_n = {e.n: e for e in evidence}
    citations = [
        {
            "n": n,
            "chunk_id": e.chunk_id,
            "source": e.source,
            "title": shown_title(e.title, e.source),  # the reader's title is "" for a record's
            "depth": e.depth,
        }
        for n, e in enumerate((by_n[old] for old in order), 1)
    ]
    # The root's evidence, as the caller reads it, opens with what its answer cites; a
    # sub-run's keeps the judged order its parent numbers and prompts with (`build_evidence`).
    cited = [by_n[old].chunk_id for old in order] if not tree["depth"] else []
    calls = state.get("llm_calls", 0) + answered
    tree_calls = calls + sum(c.get("sub_llm_calls", 0) for c in chunks)
    emit("answer_finished", **tree, answer=text, citations=citations, error=problem)
    return {
        "answer": text,
        # The chain this run's answer followed, for its parent to carry up (`compose`).
        "chain": [
            {"chunk_id": by_n[q.n].chunk_id, "text": q.text, "said": q.said, "answer": q.answer}
            for q in quotes
        ],
        "citations": citations,
        "evidence": rank_evidence(
            chunks, tree["depth"], state["question"], cited, next_links=not tree["depth"]
        ),
        "llm_calls": answered,
        "tree_llm_calls": tree_calls,
        "reasoner": get_reasoner(ctx).name,
        "error": problem,
    }


async def write_answer(
    state: RagState, ctx: Context, evidence: list[EvidenceItem], quotes: list[Quote]
) -> tuple[str, int, str]:
    """The answer's text, its calls, and the one sentence that says what went wrong ("").

    A sub-run answers by quoting along its chain, without a model call: its parent's answer
    reads that chain and the sub-run's finds (`reasoning.compose`). A chat model that fails
    or runs past the question's deadline leaves the answer to the offline reasoner, with its
    citations; judges it failed were judged offline (`nodes.judge.judged`). Both are said.
    """
    question = state["question"]
    if state.get("error"):  # nothing to search (no documents): the error is the answer
        return state["error"], 0, state["error"]
    depth = state.get("depth", 0)
    writer = offline_reasoner(ctx) if depth else get_reasoner(ctx)
    # Graph context comes as tables, meant for an LLM; the extractive offline answer uses
    # only the keyword tree's linked texts, which are prose.
    extra = "\n".join(
        n.get("text", "")
        for n in state.get("context_notes", [])
        if not writer.offline or n.get("kind") == "keyword"
    )
    said = " ".join(
        filter(
            None,
            [
                stores_unread(question, state.get("unread_stores", [])),
                _judges_failed(question, state.get("chunks", [])),
            ],
        )
    )
    try:
        text = await asyncio.wait_for(
            writer.answer(question, evidence, extra, quotes), time_left(state.get("deadline"))
        )
    except (ModelFailure, TimeoutError) as exc:
        why = str(exc) or f"timeout: run_timeout_s={ctx.run_timeout_s:g} passed"
        text = await offline_reasoner(ctx).answer(question, evidence, extra, quotes)
        said = " ".join(filter(None, [model_failed(question, why), said]))
    unjudged = not any(c.get("score", 0) > 0 for c in state.get("chunks", []))
    if evidence and unjudged and not _says_not_found(text):
        said = " ".join(filter(None, [said, unjudged_read(question)]))
    return text, 0 if depth else 1, said


def _says_not_found(text: str) -> bool:
    """Whether an answer is the offline "could not find" alone (no quote to explain)."""
    return strip_label(text).strip() in set(NOT_FOUND.values())


def _judges_failed(question: str, chunks: list[ChunkRecord]) -> str:
    """The sentence on judges the offline judge stood in for, "" when none."""
    failed = [c for c in chunks if str(c.get("error", "")).startswith(MODEL_FAILED)]
    if not failed:
        return ""
    why = str(failed[0]["error"])[len(MODEL_FAILED) :].split(";")[0].strip(" ()")
    judged = sum(1 for c in chunks if "score" in c)
    return judges_failed(question, len(failed), judged, why)
