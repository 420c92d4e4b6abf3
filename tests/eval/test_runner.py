"""Runner pieces that need no store: modes, chunk size, collection name, results file."""

from __future__ import annotations

import json

import pytest

from treerag.eval.runner import (
    EvalError,
    ResultsFile,
    chunk_size_for,
    collection_name,
    parse_modes,
)


def test_parse_modes():
    assert parse_modes("full, naive,full") == ("full", "naive")
    with pytest.raises(EvalError, match="choose from naive, judge, full"):
        parse_modes("naive,deep")
    with pytest.raises(EvalError):
        parse_modes(" , ")


def test_chunk_size_keeps_passages_whole():
    assert chunk_size_for([71, 548]) == 1000
    assert chunk_size_for([3491]) == 4000
    assert chunk_size_for([10**6]) == 20_000


def test_collection_name_follows_the_content(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("same\n")
    b.write_text("same\n")
    assert collection_name(a) == collection_name(b)
    assert collection_name(a).startswith("eval_") and len(collection_name(a)) == 13
    b.write_text("changed\n")
    assert collection_name(a) != collection_name(b)


def test_results_file_drops_a_torn_last_line(tmp_path):
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path)
    results.append({"mode": "naive", "id": "q1"})
    with path.open("a") as fh:
        fh.write('{"mode": "judge", "id"')
    assert results.load() == [{"mode": "naive", "id": "q1"}]
    results.append({"mode": "judge", "id": "q1"})
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["mode"] for r in lines] == ["naive", "judge"]
