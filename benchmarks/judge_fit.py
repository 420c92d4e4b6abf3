"""Fit the offline judge's thresholds on the dev sets (hotpotqa_100 and rgb_zh_300).

Run from the repository root::

    python benchmarks/judge_fit.py                   # both dev sets, all questions
    python benchmarks/judge_fit.py --limit 50        # the first 50 questions of each

For every question the top 10 chunks of hybrid retrieval are measured the way the offline
judge measures them (`OfflineReasoner.features`: term coverage, best-sentence similarity,
whether the chunk shares a term, whether its best sentences fill the asked-for slot), and
labelled from the data set: *useful* when the chunk is a gold passage, *answering* when it is
gold and holds a gold answer string. Then, over a grid, for each data set on its own
(hotpotqa_100 gives the thresholds of Latin-script questions, rgb_zh_300 those of Chinese
ones, `offline.THRESHOLDS`):

- the partial thresholds (score >= 1) maximise Youden's J = share of useful chunks kept
  minus share of the other chunks kept, among those that keep at least 90% of the useful
  chunks (0 must mean "does not help": a useful chunk scored 0 is lost to the answer and
  ranked last in the evidence);
- the sufficient thresholds (score 2, which stops recursion) maximise F0.5 of predicting
  answering chunks (precision counts double: a wrong 2 ends the search early), among those
  whose 2s hold the answer at least 40% of the time (`MIN_SUFFICIENT_PRECISION`; without it
  the best F0.5 on hotpotqa_100 is a 2 that is right a quarter of the time, which stops
  most trees at the root).

The corpora are ingested as `treerag eval` ingests them (one passage per chunk), into
`--data-dir` (reused between runs); the measurements are saved there too, so a second run only
refits (`--remeasure` measures again).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from treerag.context import Context  # noqa: E402
from treerag.eval.datasets import load_dataset  # noqa: E402
from treerag.eval.metrics import normalize_answer  # noqa: E402
from treerag.eval.runner import prepare_store  # noqa: E402
from treerag.text import source_record  # noqa: E402

DATASETS = REPO_ROOT.parent / "shared" / "datasets"
SETS = {
    "hotpotqa_100": ("questions.json", "corpus.json", "hotpotqa"),
    "rgb_zh_300": ("questions.jsonl", "corpus.jsonl", "generic"),
}
BENCH_DATA = Path(tempfile.gettempdir()) / "treerag-bench"
"""Where the dev corpora are ingested (kept between runs of this and the quality benchmark)."""
SCRIPTS = {"hotpotqa_100": "latin", "rgb_zh_300": "cjk"}
CANDIDATES = 10
COVERAGES = [round(0.05 * i, 2) for i in range(0, 21)]
SIMILARITIES = [round(0.05 * i, 2) for i in range(4, 19)]


def measure(name: str, data_dir: Path, limit: int | None) -> list[dict[str, Any]]:
    """Measure the top-10 hybrid hits of each question and label them from the data set."""
    from treerag.models import get_embeddings
    from treerag.reasoning.offline import OfflineReasoner
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    questions_file, corpus_file, fmt = SETS[name]
    folder = DATASETS / name
    dataset = load_dataset(folder / questions_file, folder / corpus_file, fmt)  # type: ignore[arg-type]
    store = prepare_store(dataset, Context(data_dir=str(data_dir), chat_model=""))
    embeddings = get_embeddings(store.ctx)
    retriever = from_context(ChunkStore(store.ctx, embeddings), topk=CANDIDATES)
    judge = OfflineReasoner(embeddings)
    rows = []
    for i, q in enumerate(dataset.limited(limit), 1):
        if i % 25 == 0:
            print(f"  {name}: {i} questions measured", flush=True)
        answers = [normalize_answer(a) for a in q.answers if a.strip()]
        for doc, _ in retriever.get_similar_chunk_with_score(q.question):
            title = doc.metadata.get("title", "")
            key = (
                title
                if dataset.gold_key == "title"
                else source_record(doc.metadata.get("source", ""), store.source_prefix)
            )
            f = judge.features(q.question, title, doc.page_content)
            text = normalize_answer(doc.page_content)
            useful = key in q.gold
            rows.append(
                {
                    "coverage": f.coverage,
                    "similarity": f.similarity,
                    "shares": bool(f.found),
                    "filled": f.filled,
                    "useful": useful,
                    "answering": useful and any(a and a in text for a in answers),
                }
            )
    return rows


MIN_USEFUL_KEPT = 0.9


def partial_j(rows: list[dict[str, Any]], cov: float, sim: float) -> float:
    """Youden's J of `score >= 1` for telling useful chunks from the others (-1 if it keeps
    fewer than `MIN_USEFUL_KEPT` of the useful chunks)."""
    kept = [(r["shares"] and r["coverage"] >= cov) or r["similarity"] >= sim for r in rows]
    pos = [k for k, r in zip(kept, rows, strict=True) if r["useful"]]
    neg = [k for k, r in zip(kept, rows, strict=True) if not r["useful"]]
    tpr = sum(pos) / max(1, len(pos))
    return tpr - sum(neg) / max(1, len(neg)) - (0 if tpr >= MIN_USEFUL_KEPT else 2)


MIN_SUFFICIENT_PRECISION = 0.4


def sufficient_f(rows: list[dict[str, Any]], cov: float, sim: float) -> float:
    """F0.5 of `score 2` for predicting answering chunks (-1 when its precision is too low)."""
    hits = [r["coverage"] >= cov and r["similarity"] >= sim and r["filled"] for r in rows]
    tp = sum(h and r["answering"] for h, r in zip(hits, rows, strict=True))
    predicted, actual = sum(hits), sum(r["answering"] for r in rows)
    if not tp:
        return 0.0
    precision, recall = tp / predicted, tp / actual
    penalty = 0 if precision >= MIN_SUFFICIENT_PRECISION else 2
    return 1.25 * precision * recall / (0.25 * precision + recall) - penalty


def best(rows: list[dict[str, Any]], objective: Any) -> tuple[float, float, float]:
    """The grid point with the best objective (ties: lower thresholds)."""
    scored = [
        (objective(rows, cov, sim), -cov, -sim)
        for cov, sim in itertools.product(COVERAGES, SIMILARITIES)
    ]
    top = max(scored)
    return -top[1], -top[2], top[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N questions of each set")
    parser.add_argument("--data-dir", type=Path, default=BENCH_DATA)
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated dev sets")
    parser.add_argument("--remeasure", action="store_true", help="ignore saved measurements")
    args = parser.parse_args()
    per_set = {}
    for name in args.sets.split(","):
        t0 = time.perf_counter()
        saved = args.data_dir / f"judge_fit_{name}_{args.limit or 'all'}.json"
        if saved.is_file() and not args.remeasure:
            per_set[name] = json.loads(saved.read_text(encoding="utf-8"))
        else:
            per_set[name] = measure(name, args.data_dir, args.limit)
            saved.write_text(json.dumps(per_set[name]), encoding="utf-8")
        rows = per_set[name]
        print(
            f"{name}: {len(rows)} chunks measured in {time.perf_counter() - t0:.0f} s; "
            f"useful {sum(r['useful'] for r in rows)}, answering "
            f"{sum(r['answering'] for r in rows)}",
            flush=True,
        )
    from treerag.reasoning.offline import THRESHOLDS

    for name, rows in per_set.items():
        cov1, sim1, j = best(rows, partial_j)
        cov2, sim2, f = best(rows, sufficient_f)
        now = THRESHOLDS[SCRIPTS[name]]
        print(
            f"{name} ({SCRIPTS[name]}): Thresholds({cov1}, {sim1}, {cov2}, {sim2}) — "
            f"partial Youden J {j:.3f}, sufficient F0.5 {f:.3f}; current {now}: J "
            f"{partial_j(rows, now.partial_coverage, now.partial_similarity):.3f}, F0.5 "
            f"{sufficient_f(rows, now.sufficient_coverage, now.sufficient_similarity):.3f}"
        )


if __name__ == "__main__":
    main()
