"""Shared helpers for benchmark scripts: machine summary and BENCHMARKS.md section splicing."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import statistics
from pathlib import Path

BENCHMARKS_MD = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


def machine_summary() -> str:
    """Return a one-line description of this machine and date."""
    mem = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            kb = int(fh.readline().split()[1])
        mem = f", {kb / 2**20:.0f} GiB"
    except OSError:
        pass
    return (
        f"{_dt.date.today().isoformat()}, {platform.machine()}, {os.cpu_count()} cores{mem}, "
        f"Python {platform.python_version()}"
    )


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (0-100) of values, linear interpolation."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[max(0, min(98, int(q) - 1))]


def write_section(name: str, markdown: str, path: Path = BENCHMARKS_MD) -> None:
    """Replace (or append) the section delimited by ``<!-- bench:name -->`` markers."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{markdown.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: block, text)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def publish(name: str, markdown: str, write: bool) -> None:
    """Print a benchmark's section; with --write also splice it into BENCHMARKS.md."""
    print(markdown)
    if write:
        write_section(name, markdown)
        print(f"wrote section {name!r} to BENCHMARKS.md")


def read_hotpotqa(path: Path) -> tuple[dict[str, list[str]], list[dict]]:
    """Read a HotpotQA-format dev set: corpus (title -> sentences) and question records.

    Exits with a message naming the missing files when the folder is not a dev set.
    """
    import json

    corpus_file, questions_file = path / "corpus.json", path / "questions.json"
    missing = [str(p) for p in (corpus_file, questions_file) if not p.is_file()]
    if missing:
        raise SystemExit(
            f"dataset not found: missing {', '.join(missing)}\n"
            "pass --dataset PATH to a folder holding corpus.json (title -> [sentences]) and "
            "questions.json (HotpotQA format), e.g. ../shared/datasets/hotpotqa_100"
        )
    corpus = json.loads(corpus_file.read_text(encoding="utf-8"))
    records = json.loads(questions_file.read_text(encoding="utf-8"))
    return corpus, records
