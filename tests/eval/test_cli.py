"""End to end: `treerag eval` on the tiny data set with the offline reasoner, then resumed."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from treerag.cli.eval import register

REPORT_KEYS = {"em", "f1", "recall@2", "recall@5", "llm_calls_mean", "latency_p50_s", "n"}
LINE_KEYS = {
    "mode",
    "id",
    "answer",
    "em",
    "f1",
    "recall@2",
    "recall@5",
    "llm_calls",
    "tokens",
    "latency_s",
    "tree",
}


@pytest.fixture
def app() -> typer.Typer:
    root = typer.Typer()

    @root.callback()
    def _main() -> None:
        """treerag."""

    register(root)
    return root


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> str:
    """One Milvus Lite file for the module: each corpus gets its own collection in it."""
    return str(tmp_path_factory.mktemp("eval-data"))


def _eval(app, *args: str):
    return CliRunner().invoke(app, ["eval", *args], catch_exceptions=False)


@pytest.mark.slow
def test_eval_all_modes_then_resume(app, generic_files, data_dir, tmp_path):
    questions, corpus = generic_files
    out = tmp_path / "out"
    args = (
        "--questions", str(questions), "--corpus", str(corpus), "--format", "generic",
        "--modes", "naive,judge,full", "--limit", "2", "--out", str(out),
        "--data-dir", data_dir,
    )  # fmt: skip
    result = _eval(app, *args)
    assert result.exit_code == 0, result.output

    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    assert {(r["mode"], r["id"]) for r in lines} == {
        (m, q) for m in ("naive", "judge", "full") for q in ("q1", "q2")
    }
    for line in lines:
        assert LINE_KEYS <= set(line)
        assert line["tokens"] is None  # the offline reasoner reports no tokens
        assert not line["answer_scored"].startswith("[offline")
        assert "[1]" not in line["answer_scored"]
        assert set(line["tree"]) >= {"runs", "depth"}
    by_mode = {(r["mode"], r["id"]): r for r in lines}
    assert by_mode[("naive", "q1")]["llm_calls"] == 1
    assert by_mode[("judge", "q1")]["tree"]["depth"] == 0
    assert by_mode[("judge", "q1")]["llm_calls"] > 1  # judges plus the answer
    assert by_mode[("naive", "q1")]["recall@5"] == 1.0  # the lighthouse passage is found

    report = json.loads((out / "report.json").read_text())
    assert list(report) == ["naive", "judge", "full"]
    for summary in report.values():
        assert REPORT_KEYS <= set(summary)
        assert summary["n"] == 2
        assert summary["answers"] == "extractive (offline reasoner)"
    markdown = (out / "report.md").read_text()
    assert "| mode | n | EM | F1 | recall@2 | recall@5 |" in markdown
    assert "extractive" in markdown and "report.png" in markdown
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    again = _eval(app, *args)
    assert again.exit_code == 0, again.output
    assert "resuming: 6" in again.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 6
    assert json.loads((out / "report.json").read_text())["full"]["n"] == 2


@pytest.mark.slow
def test_eval_hotpotqa_format_scores_titles(app, hotpotqa_files, data_dir, tmp_path):
    questions, corpus = hotpotqa_files
    out = tmp_path / "out"
    result = _eval(
        app,
        "--questions", str(questions), "--corpus", str(corpus), "--format", "hotpotqa",
        "--modes", "naive", "--out", str(out), "--data-dir", data_dir,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 3
    q2 = next(r for r in lines if r["id"] == "q2")
    assert q2["gold"] == ["Suran", "Lightweavers Guild"]
    assert set(q2["evidence"]) >= {"Suran", "Lightweavers Guild"}  # titles, not ids
    assert q2["recall@5"] == 1.0
    assert json.loads((out / "report.json").read_text())["naive"]["n"] == 3


def test_bad_input_exits_2_naming_the_line(app, generic_files, tmp_path):
    questions, corpus = generic_files
    rows = questions.read_text().splitlines()
    rows[1] = rows[1].replace('"gold_ids": ["c3", "c4"]', '"gold_ids": ["c3", "c99"]')
    questions.write_text("\n".join(rows) + "\n")
    result = _eval(
        app, "--questions", str(questions), "--corpus", str(corpus), "--out", str(tmp_path / "o")
    )
    assert result.exit_code == 2
    assert "questions.jsonl:2:" in result.output and "c99" in result.output
    assert not (tmp_path / "o").exists()


def test_bad_options_exit_2(app, generic_files, tmp_path):
    questions, corpus = generic_files
    common = ("--questions", str(questions), "--corpus", str(corpus), "--out", str(tmp_path))
    assert _eval(app, *common, "--modes", "naive,deep").exit_code == 2
    assert _eval(app, *common, "--format", "squad").exit_code == 2
    missing = ("--questions", str(tmp_path / "nope.jsonl"), "--corpus", str(corpus))
    result = _eval(app, *missing, "--out", str(tmp_path))
    assert result.exit_code == 2 and "nope.jsonl" in result.output
