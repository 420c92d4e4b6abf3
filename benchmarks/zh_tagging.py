"""Tagging Traditional Chinese: jieba on the text as written vs read in Simplified (`segment.tag`).

Run from the repository root::

    python -m benchmarks.zh_tagging              # 300 passages of rgb_zh_300
    python -m benchmarks.zh_tagging --passages 60 --write

The passages of ``../shared/datasets/rgb_zh_300/corpus.jsonl`` are converted to Traditional
with OpenCC (s2t), as the quality benchmark's ``rgb_zh_300_t`` is. In one run, on the same
passages, three readings are timed:

1. ``posseg.cut`` on the Traditional text as written (how names were tagged before);
2. ``segment.tag`` on the Traditional text (read in Simplified, given back as written);
3. ``posseg.cut`` on the Simplified original (the reference).

Besides seconds per passage, each Traditional reading is compared with the reference: the
share of the reference's proper nouns (nr / ns / nt tags, two characters or more) that it
finds too, compared in Simplified script (Jaccard over the passage's name sets, averaged).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks._report import machine_summary, publish

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "datasets" / "rgb_zh_300" / "corpus.jsonl"
_PROPER = ("nr", "ns", "nt")


def _passages(limit: int) -> list[str]:
    if not CORPUS.exists():
        sys.exit(f"no corpus at {CORPUS}: the rgb_zh_300 dev set is needed")
    texts = []
    with CORPUS.open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            text = record.get("text") or record.get("contents") or ""
            if text.strip():
                texts.append(text)
            if len(texts) == limit:
                break
    return texts


def _names(pairs: list[tuple[str, str]]) -> set[str]:
    from treerag.text.canonical import to_simplified

    return {to_simplified(w) for w, f in pairs if f.startswith(_PROPER) and len(w) >= 2}


def _timed(read, texts: list[str]) -> tuple[float, list[set[str]]]:
    start = time.perf_counter()
    found = [_names(read(t)) for t in texts]
    return (time.perf_counter() - start) / len(texts), found


def _jaccard(a: set[str], b: set[str]) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=300, help="passages to tag (300)")
    parser.add_argument("--write", action="store_true", help="splice into BENCHMARKS.md")
    args = parser.parse_args(argv)

    from opencc import OpenCC

    from treerag.segment import posseg, tag

    simplified = _passages(args.passages)
    s2t = OpenCC("s2t")
    traditional = [s2t.convert(t) for t in simplified]
    cut = posseg()
    as_written = lambda text: [(p.word, p.flag) for p in cut.cut(text)]  # noqa: E731
    as_written(traditional[0]), tag(traditional[0])  # load the dictionary and HMM tables

    ref_s, ref = _timed(as_written, simplified)
    rows = []
    for label, read in (("as written (before)", as_written), ("`segment.tag` (after)", tag)):
        seconds, found = _timed(read, traditional)
        agree = sum(map(_jaccard, found, ref)) / len(ref)
        rows.append(f"| {label} | {seconds * 1000:.1f} | {agree:.3f} |")
    chars = sum(map(len, simplified)) / len(simplified)
    markdown = "\n".join(
        [
            "## Tagging Traditional Chinese (`benchmarks/zh_tagging.py`)",
            "",
            f"Machine: {machine_summary()}. {len(simplified)} passages of rgb_zh_300 "
            f"({chars:.0f} characters on average), converted to Traditional by OpenCC s2t.",
            f"The Simplified originals tag in {ref_s * 1000:.1f} ms per passage (the reference).",
            "",
            "| Traditional text read | ms per passage | names the Simplified reading finds |",
            "|---|---|---|",
            *rows,
            "",
            "Read in Simplified, a converted passage finds the reference's names wherever OpenCC's",
            "round trip (s2t, then t2s) gives the original back; the first row is what jieba finds",
            "in Traditional text as written.",
        ]
    )
    publish("zh_tagging", markdown, args.write)


if __name__ == "__main__":
    main()
