"""Run the evaluation modes over a data set, one results line per (mode, question), resumably.

Modes:
- naive: retrieve top-k and answer over every retrieved chunk (each treated as evidence of
  score 1, ranked in retrieval order); nothing is judged.
- judge: the rag graph with `max_depth=0`: every chunk judged once, no recursion.
- full: the whole rag graph (recursion up to `max_depth`, default 2).

The corpus goes into a collection of its own, `eval_<sha8>` (a hash of the corpus file), one
passage per chunk; it is reused while the corpus file is unchanged. Each mode keeps its
checkpoints and judge cache under `<out>/state/<mode>`, so no mode answers from verdicts
another mode paid for, and LLM calls and latencies stay comparable.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from treerag.context import Context
from treerag.data_layout import eval_corpus_file
from treerag.eval.datasets import Dataset, Question
from treerag.eval.metrics import clean_answer, exact_match, recall_at_k, token_f1
from treerag.text import source_record

if TYPE_CHECKING:
    from treerag.ingest.indexer import IngestReport, Progress

MODES: tuple[str, ...] = ("naive", "judge", "full")
KS: tuple[int, ...] = (2, 5)
RESULTS = "results.jsonl"
MAX_CHUNK_SIZE = 20_000
"""Passages longer than this (characters) are split; recall still counts their record once."""


class EvalError(ValueError):
    """The evaluation cannot run as asked (bad modes, an --out of another corpus)."""


def parse_modes(text: str) -> tuple[str, ...]:
    """Parse a comma-separated list of modes, keeping their order."""
    modes = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise EvalError(f"--modes {text!r}: choose from {', '.join(MODES)}")
    return modes


# -- the store -------------------------------------------------------------------------------


@dataclass
class Store:
    """Where the corpus was ingested: settings of the collection and the ingested file."""

    ctx: Context
    corpus_file: Path
    report: IngestReport | None = None

    @property
    def collection(self) -> str:
        """The collection name, `eval_<sha8>`."""
        return self.ctx.collection

    @property
    def source_prefix(self) -> str:
        """The file part of the chunk sources (`<file>#<record id>`)."""
        return self.corpus_file.resolve().as_posix()


def collection_name(corpus_path: Path) -> str:
    """Name the collection after the corpus file's content: `eval_<first 8 hex of sha256>`."""
    digest = hashlib.sha256(corpus_path.read_bytes()).hexdigest()
    return f"eval_{digest[:8]}"


def chunk_size_for(lengths: Sequence[int]) -> int:
    """A chunk size that keeps every passage whole (rounded up to 1000, at most 20000)."""
    longest = max(lengths, default=0)
    return min(MAX_CHUNK_SIZE, max(1000, math.ceil((longest + 1) / 1000) * 1000))


def _write_corpus(dataset: Dataset, path: Path) -> None:
    """Write the passages as JSONL records {id, title, text} (once per corpus)."""
    if path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as fh:
        for p in dataset.passages:
            record = {"id": p.id, "title": p.title, "text": p.text}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    partial.replace(path)


def prepare_store(dataset: Dataset, base: Context, progress: Progress | None = None) -> Store:
    """Ingest the corpus into its own collection (idempotent: unchanged corpus adds nothing)."""
    from treerag.ingest.indexer import ingest

    name = collection_name(dataset.corpus_path)
    corpus_file = eval_corpus_file(base.data_path, name)
    _write_corpus(dataset, corpus_file)
    ctx = replace(
        base,
        collection=name,
        chunk_size=chunk_size_for([len(p.text) for p in dataset.passages]),
        chunk_overlap=0,
    )
    report = ingest([corpus_file], ctx, progress=progress)
    if any(v in ("absent", "stale") for v in report.derived.values()):
        # A collection ingested before ingest built the keyword tree and the graph, or a
        # store that could not follow: measure with both in step.
        from treerag.documents.operations import rebuild

        rebuild(ctx)
    return Store(ctx, corpus_file, report)


def mode_context(store: Store, mode: str, out: Path, max_depth: int | None) -> Context:
    """Settings of one mode: the shared collection, a state folder of its own, its depth."""
    ctx = replace(
        store.ctx,
        data_dir=str(out / "state" / mode),
        milvus_uri=store.ctx.resolved_milvus_uri,
        # The keyword tree and the graph the corpus's ingest built, shared by every mode.
        stores_dir=str(store.ctx.stores_path.absolute()),
    )
    if mode == "judge":
        ctx = replace(ctx, max_depth=0)
    elif mode == "full" and max_depth is not None:
        ctx = replace(ctx, max_depth=max_depth)
    return ctx


# -- one question ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one mode produced for one question, before scoring."""

    answer: str
    evidence: list[dict[str, Any]]
    llm_calls: int
    latency_s: float
    tree: dict[str, int]
    reasoner: str
    extractive: bool
    error: str = ""
    tokens: dict[str, int] | None = None
    cited: dict[int, str] = field(default_factory=dict)
    """The chunk id each citation number [n] of the answer names."""


def _tokens(usage: dict[str, Any]) -> dict[str, int] | None:
    """Sum the token usage the models reported (None when none did)."""
    if not usage:
        return None
    totals = {"input": 0, "output": 0, "total": 0}
    for item in usage.values():
        totals["input"] += int(item.get("input_tokens", 0))
        totals["output"] += int(item.get("output_tokens", 0))
        totals["total"] += int(item.get("total_tokens", 0))
    return totals


async def run_naive(question: str, ctx: Context) -> Outcome:
    """Retrieve top-k and answer over all of it: no judge, evidence in retrieval order."""
    from treerag.models import get_embeddings
    from treerag.reasoning import EvidenceItem, get_reasoner
    from treerag.reasoning.compose import chain as compose_chain
    from treerag.reasoning.named import title_of
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    start = time.perf_counter()
    hits = from_context(ChunkStore(ctx, get_embeddings(ctx))).get_similar_chunk_with_score(question)
    evidence = [
        EvidenceItem(
            n=n,
            chunk_id=str(doc.id),
            title=title_of(doc.metadata),
            source=doc.metadata.get("source", ""),
            text=doc.page_content,
            score=1,
        )
        for n, (doc, _) in enumerate(hits, 1)
    ]
    reasoner = get_reasoner(ctx)
    # Composed as the tree composes its answers: the sentence that answers first, where one
    # of the hits holds it (`reasoning.compose`).
    answer = await reasoner.answer(question, evidence, "", compose_chain(question, evidence))
    return Outcome(
        answer=answer,
        evidence=[
            {"chunk_id": e.chunk_id, "title": e.title, "source": e.source, "score": 1, "depth": 0}
            for e in evidence
        ],
        llm_calls=1,
        latency_s=time.perf_counter() - start,
        tree={"runs": 1, "chunks": len(evidence), "depth": 0},
        reasoner=reasoner.name,
        extractive=bool(reasoner.offline),
        cited={e.n: e.chunk_id for e in evidence},
    )


async def run_graph(question: str, ctx: Context) -> Outcome:
    """Answer with the rag graph (the judge and full modes differ only in `max_depth`)."""
    from treerag.api import ask
    from treerag.search_tree import size

    start = time.perf_counter()
    result = await ask(question, ctx)
    latency = time.perf_counter() - start
    tree = size(result.get("tree"))
    return Outcome(
        answer=str(result.get("answer", "")),
        evidence=list(result.get("evidence", [])),
        llm_calls=int(result.get("llm_calls", 0)),
        latency_s=latency,
        tree={"runs": tree["runs"], "chunks": tree["chunks"], "depth": tree["depth"]},
        reasoner=str(result.get("reasoner", "")),
        extractive=ctx.offline,
        error=str(result.get("error", "")),
        cited={int(c["n"]): str(c["chunk_id"]) for c in result.get("citations", [])},
    )


def warm_up(ctx: Context, question: str) -> None:
    """Load what the first timed question would otherwise pay for: the graph and a search.

    No reasoner is called, so no LLM call is spent.
    """
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    for module in ("treerag.api", "treerag.graphs.rag", "treerag.checkpointing"):
        importlib.import_module(module)
    from_context(ChunkStore(ctx, get_embeddings(ctx))).get_similar_chunk_with_score(question)


def forget_offline_memo(ctx: Context) -> None:
    """Empty the offline reasoner's sentence-embedding memo before a timed run.

    The offline reasoner is shared by the whole process and remembers the embeddings of the
    sentences it has seen; without this, the second mode on a question would find the first
    mode's work done and look faster than it is.
    """
    if not ctx.offline:
        return
    from treerag.reasoning import get_reasoner
    from treerag.reasoning.offline import OfflineReasoner

    reasoner = get_reasoner(ctx)
    if isinstance(reasoner, OfflineReasoner):
        reasoner.clear_memo()


async def run_mode(mode: str, question: str, ctx: Context) -> Outcome:
    """Run one mode on one question cold, counting the tokens the chat model reports."""
    from langchain_core.callbacks import get_usage_metadata_callback

    forget_offline_memo(ctx)
    with get_usage_metadata_callback() as usage:
        if mode == "naive":
            outcome = await run_naive(question, ctx)
        else:
            outcome = await run_graph(question, ctx)
    outcome.tokens = _tokens(dict(usage.usage_metadata))
    return outcome


def evidence_keys(evidence: list[dict[str, Any]], dataset: Dataset, store: Store) -> list[str]:
    """The gold-comparable key of each evidence item: its title or its record id."""
    if dataset.gold_key == "title":
        return [str(e.get("title", "")) for e in evidence]
    return [source_record(str(e.get("source", "")), store.source_prefix) for e in evidence]


def score(
    mode: str, question: Question, outcome: Outcome, dataset: Dataset, store: Store
) -> dict[str, Any]:
    """The results line of one (mode, question)."""
    keys = evidence_keys(outcome.evidence, dataset, store)
    scored = clean_answer(outcome.answer)
    record: dict[str, Any] = {
        "mode": mode,
        "id": question.id,
        "question": question.question,
        "answer": outcome.answer,
        "answer_scored": scored,
        "gold_answers": list(question.answers),
        "em": exact_match(scored, question.answers),
        "f1": round(token_f1(scored, question.answers), 4),
    }
    for k in KS:
        record[f"recall@{k}"] = round(recall_at_k(keys, question.gold, k), 4)
    record.update(
        gold=list(question.gold),
        evidence=list(dict.fromkeys(keys))[: max(KS)],
        llm_calls=outcome.llm_calls,
        tokens=outcome.tokens,
        latency_s=round(outcome.latency_s, 3),
        tree=outcome.tree,
        reasoner=outcome.reasoner,
        extractive=outcome.extractive,
        error=outcome.error,
        collection=store.collection,
    )
    return record


# -- the results file ------------------------------------------------------------------------


class ResultsFile:
    """`results.jsonl`: appended line by line and flushed, so a stopped run loses one answer."""

    def __init__(self, path: Path):
        """Use the file at `path` (created on the first append)."""
        self.path = path

    def load(self) -> list[dict[str, Any]]:
        """Read the complete lines; a torn last line (a run killed mid-write) is dropped."""
        if not self.path.is_file():
            return []
        records, torn = [], False
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                torn = True
                continue
            if isinstance(value, dict) and "mode" in value and "id" in value:
                records.append(value)
        if torn:
            self._rewrite(records)
        return records

    def _rewrite(self, records: list[dict[str, Any]]) -> None:
        partial = self.path.with_suffix(".partial")
        with partial.open("w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        partial.replace(self.path)

    def append(self, record: dict[str, Any]) -> None:
        """Add one line and flush it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()


# -- the loop --------------------------------------------------------------------------------


@dataclass
class Plan:
    """What a run will do: the questions and modes, and which pairs are already done."""

    questions: list[Question]
    modes: tuple[str, ...]
    done: set[tuple[str, str]] = field(default_factory=set)

    @property
    def pending(self) -> list[tuple[str, Question]]:
        """(mode, question) pairs still to run, question by question."""
        return [
            (mode, q)
            for q in self.questions
            for mode in self.modes
            if (mode, q.id) not in self.done
        ]


def plan(
    dataset: Dataset, modes: Sequence[str], limit: int | None, existing: list[dict[str, Any]]
) -> Plan:
    """Select the questions and skip the (mode, id) pairs found in the results file."""
    return Plan(
        dataset.limited(limit),
        tuple(modes),
        {(str(r["mode"]), str(r["id"])) for r in existing},
    )


def check_same_corpus(existing: list[dict[str, Any]], store: Store, out: Path) -> None:
    """Refuse to mix results of another corpus into one results file."""
    others = {r.get("collection") for r in existing} - {store.collection, None}
    if others:
        raise EvalError(
            f"{out / RESULTS} holds results for collection {sorted(map(str, others))[0]!r}, not "
            f"{store.collection!r} (another corpus): use another --out"
        )


OnResult = Callable[[dict[str, Any]], None]
OnStart = Callable[[str, Question], None]


async def run_plan(
    work: Plan,
    dataset: Dataset,
    store: Store,
    out: Path,
    max_depth: int | None = None,
    on_start: OnStart | None = None,
    on_result: OnResult | None = None,
) -> list[dict[str, Any]]:
    """Run every pending (mode, question) pair and append its line; return the new lines."""
    results = ResultsFile(out / RESULTS)
    contexts = {m: mode_context(store, m, out, max_depth) for m in work.modes}
    added: list[dict[str, Any]] = []
    if work.pending:
        warm_up(contexts[work.pending[0][0]], work.pending[0][1].question)
    for mode, question in work.pending:
        if on_start:
            on_start(mode, question)
        outcome = await run_mode(mode, question.question, contexts[mode])
        record = score(mode, question, outcome, dataset, store)
        results.append(record)
        added.append(record)
        if on_result:
            on_result(record)
    return added


def selected(records: list[dict[str, Any]], work: Plan) -> list[dict[str, Any]]:
    """The results of the planned questions and modes (latest line wins for a repeated pair)."""
    wanted = {(m, q.id) for q in work.questions for m in work.modes}
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        key = (str(record["mode"]), str(record["id"]))
        if key in wanted:
            latest[key] = record
    return list(latest.values())
