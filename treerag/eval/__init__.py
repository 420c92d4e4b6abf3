"""Evaluation harness: load a QA data set, run the modes, score answers and evidence, report.

- `datasets`: the generic (JSONL) and HotpotQA formats, validated with file:line errors.
- `metrics`: exact match, token F1 (CJK by characters) and recall@k.
- `runner`: the naive / judge / full modes over a resumable results file.
- `report`: report.json, report.md and report.png from the results.
"""

from __future__ import annotations

from treerag.eval.datasets import Dataset, DatasetError, Passage, Question, load_dataset
from treerag.eval.metrics import exact_match, recall_at_k, token_f1

__all__ = [
    "Dataset",
    "DatasetError",
    "Passage",
    "Question",
    "exact_match",
    "load_dataset",
    "recall_at_k",
    "token_f1",
]
