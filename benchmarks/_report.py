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
