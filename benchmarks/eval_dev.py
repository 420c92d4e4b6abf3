"""Run `treerag eval` on the development set (all modes) and report the table in BENCHMARKS.md."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._report import machine_summary, publish  # noqa: E402

DEFAULT_DATASET = ROOT.parent / "shared" / "datasets" / "hotpotqa_100"
KEYS = ("n", "em", "f1", "recall@2", "recall@5", "llm_calls_mean", "latency_p50_s")


def main() -> None:
    """Run the eval in a temporary directory, print and optionally write the report table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args()
    corpus, questions = args.dataset / "corpus.json", args.dataset / "questions.json"
    if not corpus.exists() or not questions.exists():
        sys.exit(f"no dev set at {args.dataset} (expected corpus.json and questions.json)")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        cmd = [
            sys.executable,
            "-m",
            "treerag",
            "eval",
            "--questions",
            str(questions),
            "--corpus",
            str(corpus),
            "--format",
            "hotpotqa",
            "--modes",
            "naive,judge,full",
            "--out",
            str(out),
            "--data-dir",
            str(Path(tmp) / "data"),
        ]
        if args.limit:
            cmd += ["--limit", str(args.limit)]
        subprocess.run(cmd, check=True)
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    minutes = (time.perf_counter() - start) / 60
    rows = ["| mode | " + " | ".join(KEYS) + " |", "|---" * (len(KEYS) + 1) + "|"]
    for mode in ("naive", "judge", "full"):
        stats = report[mode]
        cells = [f"{stats[k]:.3f}" if isinstance(stats[k], float) else str(stats[k]) for k in KEYS]
        rows.append(f"| {mode} | " + " | ".join(cells) + " |")
    gap = report["full"]["recall@5"] - report["naive"]["recall@5"]
    limited = f", first {args.limit} questions" if args.limit else ""
    markdown = "\n".join(
        [
            "## Evaluation on the development set (`benchmarks/eval_dev.py`, `treerag eval`)",
            "",
            f"Machine: {machine_summary()}. Data set: `{args.dataset.name}`{limited}; "
            f"runtime {minutes:.1f} min.",
            "Offline reasoner: answers are extractive, so EM/F1 say little; recall of the "
            "ranked evidence is the figure that compares the modes. naive = retrieve, answer; "
            "judge = one level of judging; full = the whole graph (recursion, keyword tree and "
            "graph when built).",
            "",
            *rows,
            "",
            f"Goal: recall@5 of full above naive. Gap: {gap:+.3f}, at "
            f"{report['full']['llm_calls_mean']:.1f} LLM-role calls per question against "
            f"{report['naive']['llm_calls_mean']:.1f}.",
        ]
    )
    publish("eval", markdown, args.write)


if __name__ == "__main__":
    main()
