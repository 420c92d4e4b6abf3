"""Quality benchmark: does the recursive judge tree find more gold passages than one retrieval?

Run from the repository root::

    python benchmarks/quality.py                 # hotpotqa_100, all questions
    python benchmarks/quality.py --limit 20      # the first 20 questions
    python benchmarks/quality.py --write         # also splice the results into BENCHMARKS.md

The passages of the dev set are ingested one per chunk (chunk_size 4000, no overlap) into a
temporary store. Every question then goes through ``treerag.api.ask`` with the offline reasoner
(no chat model) and the default settings (max_depth 2, top_k 5, hybrid search); the ranked
``evidence`` titles (deduplicated in rank order) are scored against the gold supporting titles
at 2 and 5. Baseline, in the same run on the same store: single-shot hybrid retrieval of the
top 5 (``from_context(...)``), recall of its first 2 and 5 titles. Also reported: LLM-role calls
per question and the latency of ``ask``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks._report import machine_summary, percentile, publish, read_hotpotqa  # noqa: E402
from treerag.api import ask  # noqa: E402
from treerag.context import Context  # noqa: E402
from treerag.ingest.indexer import ingest  # noqa: E402
from treerag.models import get_embeddings  # noqa: E402
from treerag.retrievers.chunk_store import ChunkStore  # noqa: E402
from treerag.retrievers.hybrid import from_context  # noqa: E402

DEFAULT_DATASET = REPO_ROOT.parent / "shared" / "datasets" / "hotpotqa_100"
KS = (2, 5)
# Hybrid brute-force recall@5 on hotpotqa_100 recorded in design/LANDMINES.md.
REFERENCE_SINGLE_SHOT_R5 = 0.81


def load(path: Path, limit: int | None) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Return title -> passage text and the questions (question, gold titles, type)."""
    corpus, records = read_hotpotqa(path)
    if limit is not None:
        records = records[:limit]
    questions = [
        {
            "question": r["question"],
            "gold": {title for title, _ in r["supporting_facts"]},
            "type": r.get("type", ""),
        }
        for r in records
    ]
    return {t: "".join(s) for t, s in corpus.items()}, questions


def distinct(titles: list[str]) -> list[str]:
    """Titles in rank order, each once."""
    seen: list[str] = []
    for title in titles:
        if title not in seen:
            seen.append(title)
    return seen


def recall_at(ranked: list[str], gold: set[str], k: int) -> float:
    """Fraction of gold titles among the first k distinct titles."""
    return len(gold.intersection(distinct(ranked)[:k])) / len(gold)


def late_gold(evidence: list[dict[str, Any]], gold: set[str]) -> list[tuple[int, int, int]]:
    """(score, depth, distinct rank) of gold titles the tree found but ranked below 5."""
    order = distinct([e["title"] for e in evidence])
    first = {}
    for e in evidence:
        first.setdefault(e["title"], e)
    return [
        (first[t]["score"], first[t]["depth"], order.index(t) + 1)
        for t in gold
        if t in first and order.index(t) >= 5
    ]


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


async def run(args: argparse.Namespace) -> str:
    started = time.perf_counter()
    corpus, questions = load(args.dataset, args.limit)
    with tempfile.TemporaryDirectory(prefix="treerag-quality-") as tmp:
        workdir = Path(tmp)
        corpus_file = workdir / "corpus.jsonl"
        with corpus_file.open("w", encoding="utf-8") as fh:
            for i, (title, text) in enumerate(corpus.items()):
                fh.write(json.dumps({"id": f"p{i}", "title": title, "text": text}) + "\n")
        ctx = Context(
            data_dir=str(workdir / "data"),
            collection="bench_quality",
            chunk_size=4000,
            chunk_overlap=0,
            chat_model="",
        )
        t0 = time.perf_counter()
        report = ingest([corpus_file], ctx)
        ingest_s = time.perf_counter() - t0
        print(
            f"  ingested {len(corpus)} passages as {report.total_chunks} chunks "
            f"in {ingest_s:.1f} s",
            flush=True,
        )
        retriever = from_context(ChunkStore(ctx, get_embeddings(ctx)), topk=5, mode="hybrid")
        retriever.get_similar_chunk_with_score("warm-up query")

        rows: list[dict[str, Any]] = []
        for i, q in enumerate(questions, 1):
            hits = retriever.get_similar_chunk_with_score(q["question"])
            single = [doc.metadata.get("title", "") for doc, _ in hits]
            result = await ask(q["question"], ctx)
            tree_titles = [e["title"] for e in result["evidence"]]
            gold_depths = sorted(
                {e["depth"] for e in result["evidence"] if e["title"] in q["gold"]}
            )
            row = {
                "type": q["type"],
                "single": {k: recall_at(single, q["gold"], k) for k in KS},
                "tree": {k: recall_at(tree_titles, q["gold"], k) for k in KS},
                "tree_all": len(q["gold"].intersection(tree_titles)) / len(q["gold"]),
                "n_titles": len(distinct(tree_titles)),
                "calls": result["llm_calls"],
                "latency": result["elapsed_s"],
                "gold_depths": gold_depths,
                "top_scores": [e["score"] for e in result["evidence"][:5]],
                "late_gold": late_gold(result["evidence"], q["gold"]),
                "new_gold": len((q["gold"] & set(tree_titles)) - set(single)),
            }
            rows.append(row)
            if i % 10 == 0 or i == len(questions):
                print(
                    f"  [{i}/{len(questions)}] single R@5 "
                    f"{mean([r['single'][5] for r in rows]):.3f}, tree R@5 "
                    f"{mean([r['tree'][5] for r in rows]):.3f}, last ask "
                    f"{row['latency']:.2f} s, elapsed {time.perf_counter() - started:.0f} s",
                    flush=True,
                )
    return render(rows, args, ingest_s, time.perf_counter() - started)


def render(
    rows: list[dict[str, Any]], args: argparse.Namespace, ingest_s: float, seconds: float
) -> str:
    """Markdown summary (also printed)."""
    n = len(rows)
    single = {k: mean([r["single"][k] for r in rows]) for k in KS}
    tree = {k: mean([r["tree"][k] for r in rows]) for k in KS}
    delta5 = tree[5] - single[5]
    latencies = [r["latency"] for r in rows]
    calls = [r["calls"] for r in rows]
    better = sum(r["tree"][5] > r["single"][5] for r in rows)
    worse = sum(r["tree"][5] < r["single"][5] for r in rows)
    lines = [
        "## Quality: recursive tree vs single-shot retrieval (offline reasoner)",
        "",
        f"Machine: {machine_summary()}. Data set: `{args.dataset.name}`, first {n} questions"
        f"{'' if args.limit is None else f' (--limit {args.limit})'}; runtime {seconds:.0f} s "
        f"(ingest {ingest_s:.0f} s).",
        "",
        "Tree = `treerag.api.ask` with the offline reasoner and default settings (max_depth 2, "
        "top_k 5, hybrid RRF); recall of its ranked `evidence` titles (deduplicated in rank "
        "order). Baseline = single-shot hybrid retrieval of the top 5 on the same store in "
        f"the same run (design reference for brute-force hybrid R@5: {REFERENCE_SINGLE_SHOT_R5}).",
        "",
        "| | recall@2 | recall@5 | goal |",
        "|---|---|---|---|",
        f"| single-shot hybrid (top 5) | {single[2]:.3f} | {single[5]:.3f} | baseline |",
        f"| recursive tree (ask) | {tree[2]:.3f} | {tree[5]:.3f} | "
        f"{'✅' if delta5 > 0 else '❌'} R@5 above single-shot |",
        f"| delta | {tree[2] - single[2]:+.3f} | {delta5:+.3f} | |",
        "",
        f"Per question, tree R@5 vs single-shot R@5: better {better}, worse {worse}, "
        f"same {n - better - worse}. Gold titles anywhere in the tree's evidence (any rank): "
        f"{mean([r['tree_all'] for r in rows]):.3f}; distinct evidence titles per question: "
        f"mean {mean([r['n_titles'] for r in rows]):.1f}.",
        "",
        "| | p50 | p95 | mean | max |",
        "|---|---|---|---|---|",
        f"| ask latency (s) | {percentile(latencies, 50):.2f} | {percentile(latencies, 95):.2f} "
        f"| {mean(latencies):.2f} | {max(latencies):.2f} |",
        f"| LLM-role calls per question | {statistics.median(calls):.0f} "
        f"| {percentile([float(c) for c in calls], 95):.0f} | {mean(calls):.1f} | {max(calls)} |",
    ]
    late = [g for r in rows for g in r["late_gold"]]
    top = [s for r in rows for s in r["top_scores"]]
    late_desc = ", ".join(
        f"score {s} at depth {d}: {sum(1 for g in late if g[:2] == (s, d))}"
        for s, d in sorted({g[:2] for g in late})
    )
    lines += [
        "",
        f"Budget: {sum(c >= 60 for c in calls)} of {n} questions used the whole "
        "max_llm_calls=60. Gold titles the tree reached that single-shot top 5 missed: "
        f"{sum(r['new_gold'] for r in rows)}. Gold titles in the evidence but ranked below 5: "
        f"{len(late)} ({late_desc or 'none'}). Judge scores of the top-5 evidence items: "
        + ", ".join(f"{s}: {top.count(s)}" for s in (2, 1, 0))
        + ".",
    ]
    by_type = sorted({r["type"] for r in rows if r["type"]})
    if by_type:
        lines += ["", "| type | n | single R@5 | tree R@5 |", "|---|---|---|---|"]
        for t in by_type:
            sub = [r for r in rows if r["type"] == t]
            lines.append(
                f"| {t} | {len(sub)} | {mean([r['single'][5] for r in sub]):.3f} "
                f"| {mean([r['tree'][5] for r in sub]):.3f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dataset",
        type=Path,
        default=DEFAULT_DATASET,
        help="folder with corpus.json and questions.json (HotpotQA format)",
    )
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    markdown = asyncio.run(run(args))
    print()
    publish("quality", markdown, args.write)


if __name__ == "__main__":
    main()
