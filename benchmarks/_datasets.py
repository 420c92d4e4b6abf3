"""Dev sets for the fusion benchmark as (ids, texts, questions, gold ids), whole or subsampled."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"


@dataclass
class DevSet:
    """Passages and questions; recall is capped when `capped` (rgb_zh_300's SOURCES.md)."""

    name: str
    ids: list[str]
    texts: list[str]
    questions: list[str]
    gold: list[set[str]]
    capped: bool

    def subset(self, every: int) -> DevSet:
        """Every `every`-th question with the passages of their own pools (rgb_zh_300 only).

        rgb_zh_300's corpus lists each question's pool (gold then same-topic negatives)
        contiguously in question order, so a pool runs from its first gold passage to the
        next question's first gold passage.
        """
        pos = {pid: i for i, pid in enumerate(self.ids)}
        starts = [min(pos[g] for g in gold) for gold in self.gold] + [len(self.ids)]
        keep_q = list(range(0, len(self.questions), every))
        keep_p = sorted({p for q in keep_q for p in range(starts[q], starts[q + 1])})
        return DevSet(
            f"{self.name} (every {every}th question, its pool)",
            [self.ids[p] for p in keep_p],
            [self.texts[p] for p in keep_p],
            [self.questions[q] for q in keep_q],
            [self.gold[q] for q in keep_q],
            self.capped,
        )


def load_rgb_zh(path: Path = SHARED / "rgb_zh_300") -> DevSet:
    """rgb_zh_300: generic JSONL format, capped recall."""
    corpus = [json.loads(line) for line in (path / "corpus.jsonl").open(encoding="utf-8")]
    questions = [json.loads(line) for line in (path / "questions.jsonl").open(encoding="utf-8")]
    return DevSet(
        "rgb_zh_300",
        [c["id"] for c in corpus],
        [c["text"] for c in corpus],
        [q["question"] for q in questions],
        [set(q["gold_ids"]) for q in questions],
        capped=True,
    )


def load_hotpotqa(path: Path = SHARED / "hotpotqa_100") -> DevSet:
    """hotpotqa_100: passages are `title\\ntext` (what ingest indexes), gold = titles."""
    from benchmarks._report import read_hotpotqa

    corpus, records = read_hotpotqa(path)
    titles = list(corpus)
    return DevSet(
        "hotpotqa_100",
        titles,
        [f"{t}\n{''.join(corpus[t])}" for t in titles],
        [r["question"] for r in records],
        [{title for title, _ in r["supporting_facts"]} for r in records],
        capped=False,
    )


def recall_at(ranked_ids: list[str], gold: set[str], k: int, capped: bool) -> float:
    """|gold ∩ top-k| / |gold|, or / min(k, |gold|) when capped."""
    top: list[str] = []
    for pid in ranked_ids:
        if pid not in top:
            top.append(pid)
        if len(top) == k:
            break
    return len(gold.intersection(top)) / (min(k, len(gold)) if capped else len(gold))
