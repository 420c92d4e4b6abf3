"""Loading both formats, and bad input reported with the file and line."""

from __future__ import annotations

import json

import pytest

from tests.eval.conftest import generic_records, hotpotqa_records, write_jsonl
from treerag.eval.datasets import DatasetError, load_dataset


def test_generic_format(generic_files):
    questions, corpus = generic_files
    data = load_dataset(questions, corpus, "generic")
    assert [q.id for q in data.questions] == ["q1", "q2", "q3"]
    assert data.questions[1].gold == ("c3", "c4")
    assert data.questions[2].answers == ("苏岚",)
    assert data.gold_key == "id"
    assert len(data.passages) == 6 and data.passages[1].text.endswith("lit in 1712.")
    assert [q.id for q in data.limited(2)] == ["q1", "q2"]


def test_hotpotqa_format(hotpotqa_files):
    questions, corpus = hotpotqa_files
    data = load_dataset(questions, corpus, "hotpotqa")
    assert data.gold_key == "title"
    assert data.questions[1].gold == ("Suran", "Lightweavers Guild")
    assert data.questions[0].answers == ("1712",)
    # a passage's text is its sentences joined
    tallow = next(p for p in data.passages if p.title == "Tallow Beacon")
    assert tallow.text == "The Tallow Beacon is the lighthouse of Keldmarsh. It was lit in 1712."
    assert tallow.id == "Tallow Beacon"


def _generic_with(tmp_path, line: int, change: dict, drop: tuple[str, ...] = ()):
    questions, corpus = generic_records()
    record = questions[line - 1]
    record.update(change)
    for key in drop:
        record.pop(key)
    q = write_jsonl(tmp_path / "questions.jsonl", questions)
    c = write_jsonl(tmp_path / "corpus.jsonl", corpus)
    with pytest.raises(DatasetError) as info:
        load_dataset(q, c, "generic")
    return str(info.value), info.value


def test_missing_field_names_file_and_line(tmp_path):
    message, error = _generic_with(tmp_path, 2, {}, drop=("answers", "gold_ids"))
    assert message.startswith(f"{tmp_path / 'questions.jsonl'}:2:")
    assert "missing fields 'answers', 'gold_ids'" in message
    assert error.line == 2


def test_gold_id_absent_from_corpus(tmp_path):
    message, _ = _generic_with(tmp_path, 3, {"gold_ids": ["c6", "c9"]})
    assert message.startswith(f"{tmp_path / 'questions.jsonl'}:3:")
    assert "not in the corpus: 'c9'" in message


def test_empty_answers(tmp_path):
    message, _ = _generic_with(tmp_path, 1, {"answers": []})
    assert ":1:" in message and "'answers' is empty" in message
    message, _ = _generic_with(tmp_path, 2, {"answers": ["Brand Harbour", " "]})
    assert ":2:" in message and "answers[1]" in message


def test_bad_corpus_record(tmp_path):
    questions, corpus = generic_records()
    del corpus[3]["text"]
    q = write_jsonl(tmp_path / "questions.jsonl", questions)
    c = write_jsonl(tmp_path / "corpus.jsonl", corpus)
    with pytest.raises(DatasetError, match=r"corpus\.jsonl:4: missing field 'text'"):
        load_dataset(q, c, "generic")


def test_duplicate_ids_and_invalid_json(tmp_path):
    questions, corpus = generic_records()
    questions[2]["id"] = "q1"
    q = write_jsonl(tmp_path / "questions.jsonl", questions)
    c = write_jsonl(tmp_path / "corpus.jsonl", corpus)
    with pytest.raises(DatasetError, match=r"questions\.jsonl:3: duplicate question id 'q1'"):
        load_dataset(q, c, "generic")
    q.write_text(q.read_text().replace('"q1"', '"q1', 1))
    with pytest.raises(DatasetError, match=r"questions\.jsonl:1: invalid JSON"):
        load_dataset(q, c, "generic")


def _line_of_record(text: str, index: int) -> int:
    """Line where the index-th object of an indent=2 JSON array starts."""
    starts = [n for n, line in enumerate(text.splitlines(), 1) if line == "  {"]
    return starts[index]


def test_hotpotqa_errors_name_the_line(tmp_path):
    questions, corpus = hotpotqa_records()
    questions[1]["supporting_facts"].append(["Nowhere", 0])
    questions[2]["answer"] = ""
    q_path, c_path = tmp_path / "questions.json", tmp_path / "corpus.json"
    c_path.write_text(json.dumps(corpus, indent=1), encoding="utf-8")
    q_path.write_text(json.dumps(questions, indent=2), encoding="utf-8")
    line = _line_of_record(q_path.read_text(), 1)
    with pytest.raises(DatasetError) as info:
        load_dataset(q_path, c_path, "hotpotqa")
    assert str(info.value).startswith(f"{q_path}:{line}:")
    assert "'Nowhere'" in str(info.value)

    questions[1]["supporting_facts"].pop()
    q_path.write_text(json.dumps(questions, indent=2), encoding="utf-8")
    line = _line_of_record(q_path.read_text(), 2)
    with pytest.raises(DatasetError, match=rf"questions\.json:{line}: field 'answer' must be"):
        load_dataset(q_path, c_path, "hotpotqa")

    del questions[2]["_id"]
    questions[2]["answer"] = "苏岚"
    q_path.write_text(json.dumps(questions, indent=2), encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"questions\.json:{line}: missing field '_id'"):
        load_dataset(q_path, c_path, "hotpotqa")


def test_hotpotqa_corpus_errors(tmp_path):
    questions, corpus = hotpotqa_records()
    corpus["Ferry"] = 42
    q_path, c_path = tmp_path / "questions.json", tmp_path / "corpus.json"
    q_path.write_text(json.dumps(questions), encoding="utf-8")
    c_path.write_text(json.dumps(corpus, indent=1), encoding="utf-8")
    line = next(n for n, s in enumerate(c_path.read_text().splitlines(), 1) if '"Ferry"' in s)
    with pytest.raises(DatasetError, match=rf"corpus\.json:{line}: passage 'Ferry' must be"):
        load_dataset(q_path, c_path, "hotpotqa")
    c_path.write_text('{"Ferry": ["A ferry."],\n "Keldmarsh": ["x"] oops}', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"corpus\.json:2: invalid JSON"):
        load_dataset(q_path, c_path, "hotpotqa")
