"""The soak benchmark warms the server up in every language of its questions before measuring."""

from __future__ import annotations

import json

from benchmarks.soak import QUESTIONS_FILE, questions, warmup_questions


def test_warmup_asks_the_first_question_of_each_language():
    # A language's first question loads its own tools once (Chinese: jieba's part-of-speech
    # dictionary, OpenCC's tables); measured after English alone, that load read as growth.
    records = [json.loads(line) for line in QUESTIONS_FILE.read_text("utf-8").splitlines() if line]
    langs = {r["lang"] for r in records}
    warm = warmup_questions()
    assert len(langs) >= 2 and len(warm) == len(langs)
    by_question = {r["question"]: r["lang"] for r in records}
    assert {by_question[q] for q in warm} == langs
    assert all(
        questions().index(q) == min(i for i, r in enumerate(records) if r["lang"] == by_question[q])
        for q in warm
    )
