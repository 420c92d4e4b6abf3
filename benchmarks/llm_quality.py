"""Answer quality with a real LLM: naive, judge, full and a CRAG-style baseline, same run.

Run from the repository root (needs the `local` extra)::

    python benchmarks/llm_quality.py --limit 30            # the first 30 questions of each set
    python benchmarks/llm_quality.py --limit 5 --sets rgb  # a quick look at the Chinese set
    python benchmarks/llm_quality.py --write               # also splice into BENCHMARKS.md
    python benchmarks/llm_quality.py --render r.jsonl --write  # tables from a --results file

Every mode answers with the same chat model (`--model`, default `local`: the bundled
Qwen2.5-Coder-1.5B on llama.cpp, with the `local` preset's top_k 3 and max_depth 1) over the
same store (one passage per chunk):

- naive: retrieve top-k, answer over all of it (1 call);
- judge: the rag graph with max_depth 0 (k judges + 1 answer);
- full: the whole rag graph (judges, follow-up sub-runs, answers), the model judging;
- full-offline-judge: the same graph with `local_judge=offline`: the heuristic judge picks
  and recurses, the model only answers (the judge role measured against the model's; what
  the `local` preset does by default);
- crag: the corrective-RAG loop of LangGraph's tutorial, written here: grade the k chunks one
  after another (the same judge; relevant = score 1 or 2), rewrite the question once if none
  is relevant, retrieve again, answer over the relevant chunks (or the new ones).

Reported per set and mode: EM, token F1, answer-contains-gold (a normalised gold answer is a
substring of the normalised answer), recall@5 of the ranked evidence, the answer's citations
(marks per answer, the share naming an item the answer was given, the share of answers citing
a gold passage), LLM calls, tokens (as the server reports them), and the p50 latency of one
question.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._report import machine_summary, percentile, publish  # noqa: E402
from treerag.context import Context  # noqa: E402
from treerag.eval.datasets import Dataset, load_dataset  # noqa: E402
from treerag.eval.metrics import clean_answer, normalize_answer  # noqa: E402
from treerag.eval.runner import (  # noqa: E402
    Outcome,
    evidence_keys,
    mode_context,
    prepare_store,
    run_mode,
    score,
)

DATASETS = ROOT.parent / "shared" / "datasets"
SETS = {
    "hotpotqa": ("hotpotqa_100", "questions.json", "corpus.json", "hotpotqa"),
    "rgb": ("rgb_zh_300", "questions.jsonl", "corpus.jsonl", "generic"),
}
MODES = ("naive", "judge", "full", "full-offline-judge", "crag")
REWRITE_PROMPT = """Rewrite the question below as a better search query for a document search
engine: keep its names, add the words a relevant passage would contain, keep its language.
Reply with the query only.

Question: {question}"""


_MARK = re.compile(r"\[(\d+)\]")


def citation_figures(outcome: Outcome, keys: list[str], gold: set[str]) -> dict[str, int]:
    """The answer's [n] marks: how many, how many name a chunk it was given, any gold one.

    A model writes its own sentences, so a citation is checked by where it points, not by
    quoting: a mark is valid when its n is one of the answer's evidence items, and it cites
    gold when that item is a gold passage (title or record id, as recall counts them).
    """
    key_of = dict(zip((str(e.get("chunk_id", "")) for e in outcome.evidence), keys, strict=False))
    marks = [int(n) for n in _MARK.findall(outcome.answer)]
    valid = [outcome.cited[n] for n in marks if n in outcome.cited]
    return {
        "cite_marks": len(marks),
        "cite_valid": len(valid),
        "cites_gold": int(any(key_of.get(chunk) in gold for chunk in valid)),
    }


def contains_gold(answer: str, golds: list[str]) -> float:
    """1.0 when a normalised gold answer occurs in the normalised answer."""
    text = normalize_answer(clean_answer(answer))
    return float(any(normalize_answer(g) and normalize_answer(g) in text for g in golds))


async def run_crag(question: str, ctx: Context) -> Outcome:
    """Grade each retrieved chunk in turn; rewrite once and retrieve again if none is relevant."""
    from langchain_core.messages import HumanMessage

    from treerag.models import get_embeddings
    from treerag.reasoning import EvidenceItem, get_reasoner
    from treerag.reasoning.structured import CONDENSE_MAX_TOKENS, capped
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    start = time.perf_counter()
    retriever = from_context(ChunkStore(ctx, get_embeddings(ctx)))
    reasoner = get_reasoner(ctx)
    hits = [doc for doc, _ in retriever.get_similar_chunk_with_score(question)]
    calls, relevant = 0, []
    for doc in hits:  # one after another, as the tutorial's grader loop
        verdict = await reasoner.judge(question, doc.metadata.get("title", ""), doc.page_content)
        calls += verdict.calls
        if verdict.score > 0:
            relevant.append(doc)
    if not relevant:
        if getattr(reasoner, "model", None) is None:  # the local model starts on first use
            await reasoner._ready()  # type: ignore[attr-defined]
        model = capped(reasoner.model, CONDENSE_MAX_TOKENS)  # type: ignore[attr-defined]
        reply = await model.ainvoke(
            [HumanMessage(content=REWRITE_PROMPT.format(question=question))]
        )
        calls += 1
        rewritten = str(reply.content).strip() or question
        relevant = [doc for doc, _ in retriever.get_similar_chunk_with_score(rewritten)]
    evidence = [
        EvidenceItem(
            n=n,
            chunk_id=str(doc.id),
            title=doc.metadata.get("title", ""),
            source=doc.metadata.get("source", ""),
            text=doc.page_content,
            score=1,
        )
        for n, doc in enumerate(relevant, 1)
    ]
    answer = await reasoner.answer(question, evidence, "")
    calls += 1
    return Outcome(
        answer=answer,
        evidence=[
            {"chunk_id": e.chunk_id, "title": e.title, "source": e.source, "score": 1, "depth": 0}
            for e in evidence
        ],
        llm_calls=calls,
        latency_s=time.perf_counter() - start,
        tree={"runs": 1, "chunks": len(hits), "depth": 0},
        reasoner=reasoner.name,
        extractive=False,
        cited={e.n: e.chunk_id for e in evidence},
    )


async def run_one(mode: str, question: str, ctx: Context) -> Outcome:
    """One mode on one question, with the chat model's token usage."""
    if mode != "crag":
        return await run_mode("full" if mode == "full-offline-judge" else mode, question, ctx)
    from langchain_core.callbacks import get_usage_metadata_callback

    from treerag.eval.runner import _tokens

    with get_usage_metadata_callback() as usage:
        outcome = await run_crag(question, ctx)
    outcome.tokens = _tokens(dict(usage.usage_metadata))
    return outcome


def load(name: str) -> Dataset:
    folder, questions, corpus, fmt = SETS[name]
    return load_dataset(DATASETS / folder / questions, DATASETS / folder / corpus, fmt)  # type: ignore[arg-type]


async def run_sets(
    names: list[str],
    base: Context,
    out: Path,
    limit: int,
    modes: tuple[str, ...],
    results: Path | None,
    skip: int = 0,
) -> list[dict[str, Any]]:
    """Every mode on the first `limit` questions of each set, the sets taken in turn.

    Question i of every set runs before question i+1 of any, so a run stopped early still
    covers each set to the same depth; each record is appended to `results` as it is scored.
    """
    opened = []
    for name in names:
        dataset = load(name)
        opened.append((name, dataset, prepare_store(dataset, base)))
    records = []
    for i in range(skip, limit):
        for name, dataset, store in opened:
            if i >= len(dataset.questions):
                continue
            question = dataset.questions[i]
            for mode in modes:
                ctx = mode_context(store, "judge" if mode == "judge" else "full", out / name, None)
                ctx = replace(ctx, data_dir=str(out / name / "state" / mode))
                # The model judges in every mode but one, whatever the preset's default.
                judge_by = "offline" if mode == "full-offline-judge" else "model"
                ctx = replace(ctx, local_judge=judge_by)
                outcome = await run_one(mode, question.question, ctx)
                record = score(mode, question, outcome, dataset, store)
                record["contains"] = contains_gold(outcome.answer, list(question.answers))
                keys = evidence_keys(outcome.evidence, dataset, store)
                record.update(citation_figures(outcome, keys, set(question.gold)))
                record["set"] = name
                records.append(record)
                if results:
                    with results.open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                print(
                    json.dumps(
                        {k: record[k] for k in ("set", "mode", "id", "f1", "contains", "llm_calls")}
                        | {"latency_s": record["latency_s"], "answer": record["answer"][:120]},
                        ensure_ascii=False,
                    ),
                    flush=True,
                )
    return records


def summarize(records: list[dict[str, Any]], mode: str) -> dict[str, float]:
    rows = [r for r in records if r["mode"] == mode]
    if not rows:
        return {}

    def mean(key: str) -> float:
        return statistics.fmean(float(r[key]) for r in rows)

    tokens = [float((r.get("tokens") or {}).get("total", 0)) for r in rows]
    return {
        "n": len(rows),
        "em": mean("em"),
        "f1": mean("f1"),
        "contains": mean("contains"),
        "recall@5": mean("recall@5"),
        # Records from before the citation figures count as none.
        "marks": statistics.fmean(float(r.get("cite_marks", 0)) for r in rows),
        "valid": _share(
            sum(r.get("cite_valid", 0) for r in rows), sum(r.get("cite_marks", 0) for r in rows)
        ),
        "cites_gold": statistics.fmean(float(r.get("cites_gold", 0)) for r in rows),
        "calls": mean("llm_calls"),
        "tokens": statistics.fmean(tokens),
        "p50_s": percentile([float(r["latency_s"]) for r in rows], 50),
    }


def _share(part: float, whole: float) -> float:
    return part / whole if whole else float("nan")


def table(name: str, records: list[dict[str, Any]], modes: tuple[str, ...]) -> list[str]:
    rows = [
        f"**{name}**",
        "",
        "| mode | n | EM | F1 | contains gold | recall@5 | citations / answer | valid | "
        "cites gold | LLM calls | tokens | p50 s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in modes:
        s = summarize(records, mode)
        if s:
            rows.append(
                f"| {mode} | {s['n']} | {s['em']:.2f} | {s['f1']:.2f} | {s['contains']:.2f} | "
                f"{s['recall@5']:.2f} | {s['marks']:.1f} | {s['valid']:.2f} | "
                f"{s['cites_gold']:.2f} | {s['calls']:.1f} | {s['tokens']:.0f} | {s['p50_s']:.0f} |"
            )
    return [*rows, ""]


def render(
    records: list[dict[str, Any]], model: str, minutes: float, modes: tuple[str, ...]
) -> str:
    """The BENCHMARKS.md block: one table per set, with the questions each mode answered."""
    lines: list[str] = []
    # A question re-run after a stop (--skip) counts once: its last record wins.
    records = list({(r["set"], r["mode"], r["id"]): r for r in records}.values())
    for name in dict.fromkeys(r["set"] for r in records):
        rows = [r for r in records if r["set"] == name]
        # Only the questions every mode answered, so that each row is over the same ones.
        done = {
            q
            for q in {r["id"] for r in rows}
            if {r["mode"] for r in rows if r["id"] == q} >= set(modes)
        }
        rows = [r for r in rows if r["id"] in done]
        lines += table(f"{SETS[name][0]} (first {len(done)} questions)", rows, modes)
    base_ctx = Context(chat_model=model)
    return "\n".join(
        [
            "## Answer quality with a local LLM (`benchmarks/llm_quality.py`)",
            "",
            f"Machine: {machine_summary()}. Model: `{model}`; top_k {base_ctx.top_k}, "
            f"max_depth {base_ctx.max_depth}; runtime {minutes:.1f} min. naive = retrieve, "
            "answer; judge = one level of judging; full = the whole graph, the model judging; "
            "full-offline-judge = the whole graph, the heuristic judge deciding and the model "
            "answering (the `local` preset's default); crag = grade each chunk, rewrite once if "
            "none is relevant, retrieve again, answer. The model judges in judge, full and crag.",
            "",
            *lines,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=30, help="first N questions of each set")
    parser.add_argument("--sets", default="hotpotqa,rgb", help="hotpotqa, rgb or both")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--model", default="local", help="TREERAG_CHAT_MODEL for every mode")
    parser.add_argument(
        "--data-dir", type=Path, help="ingested corpora, kept between runs (default: a temp dir)"
    )
    parser.add_argument("--results", type=Path, help="append each scored question here (JSONL)")
    parser.add_argument(
        "--skip", type=int, default=0, help="start at question N+1 (to go on with a --results file)"
    )
    parser.add_argument("--render", type=Path, help="no run: make the tables from a --results file")
    parser.add_argument("--minutes", type=float, default=0.0, help="runtime to print with --render")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    if args.render:
        rows = [json.loads(line) for line in args.render.read_text("utf-8").splitlines() if line]
        publish("llm_quality", render(rows, args.model, args.minutes, modes), args.write)
        return
    sets = [s for s in args.sets.split(",") if s]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        base = Context(data_dir=str(data_dir), chat_model=args.model)
        records = asyncio.run(
            run_sets(sets, base, Path(tmp) / "out", args.limit, modes, args.results, args.skip)
        )
    minutes = (time.perf_counter() - start) / 60
    publish("llm_quality", render(records, args.model, minutes, modes), args.write)


if __name__ == "__main__":
    main()
