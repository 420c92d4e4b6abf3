"""A tiny evaluation data set (6 passages, 3 questions) written in both formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PASSAGES = [
    ("c1", "Keldmarsh", ["Keldmarsh is a harbour city at the mouth of the River Voss."]),
    (
        "c2",
        "Tallow Beacon",
        ["The Tallow Beacon is the lighthouse of Keldmarsh.", " It was lit in 1712."],
    ),
    ("c3", "Suran", ["Suran was the first head of the Lightweavers Guild."]),
    ("c4", "Lightweavers Guild", ["The Lightweavers Guild was founded in Brand Harbour."]),
    ("c5", "Ferry", ["A ferry crosses the estuary twice a day."]),
    ("c6", "织光行会", ["织光行会成立于布兰德港。", "首任会长是苏岚。"]),
]
QUESTIONS = [
    ("q1", "In which year was the lighthouse of Keldmarsh lit?", ["1712"], ["c2"]),
    (
        "q2",
        "Where was the guild founded whose first head was Suran?",
        ["Brand Harbour"],
        ["c3", "c4"],
    ),
    ("q3", "织光行会的首任会长是谁？", ["苏岚"], ["c6"]),
]
TITLES = {pid: title for pid, title, _ in PASSAGES}


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def generic_records() -> tuple[list[dict], list[dict]]:
    corpus = [{"id": p, "title": t, "text": "".join(s)} for p, t, s in PASSAGES]
    questions = [
        {"id": q, "question": text, "answers": answers, "gold_ids": gold}
        for q, text, answers, gold in QUESTIONS
    ]
    return questions, corpus


def hotpotqa_records() -> tuple[list[dict], dict]:
    corpus = {t: s for _, t, s in PASSAGES}
    questions = [
        {
            "_id": q,
            "question": text,
            "answer": answers[0],
            "supporting_facts": [[TITLES[g], 0] for g in gold],
            "type": "bridge",
            "level": "easy",
            "context": [[TITLES[g], corpus[TITLES[g]]] for g in gold],
        }
        for q, text, answers, gold in QUESTIONS
    ]
    return questions, corpus


@pytest.fixture
def generic_files(tmp_path) -> tuple[Path, Path]:
    questions, corpus = generic_records()
    return (
        write_jsonl(tmp_path / "questions.jsonl", questions),
        write_jsonl(tmp_path / "corpus.jsonl", corpus),
    )


@pytest.fixture
def hotpotqa_files(tmp_path) -> tuple[Path, Path]:
    questions, corpus = hotpotqa_records()
    q_path, c_path = tmp_path / "questions.json", tmp_path / "corpus.json"
    q_path.write_text(json.dumps(questions, ensure_ascii=False, indent=2), encoding="utf-8")
    c_path.write_text(json.dumps(corpus, ensure_ascii=False, indent=1), encoding="utf-8")
    return q_path, c_path
