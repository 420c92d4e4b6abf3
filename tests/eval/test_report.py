"""Summaries by hand, and the report files (with and without matplotlib)."""

from __future__ import annotations

import json

import pytest

from treerag.eval import report


def _line(mode: str, qid: str, em: float, f1: float, r2: float, r5: float, calls: int, s: float):
    return {
        "mode": mode, "id": qid, "em": em, "f1": f1, "recall@2": r2, "recall@5": r5,
        "llm_calls": calls, "latency_s": s, "tokens": None, "extractive": True,
        "reasoner": "offline-heuristic-v2", "error": "",
    }  # fmt: skip


RECORDS = [
    _line("naive", "q1", 1.0, 1.0, 1.0, 1.0, 1, 0.5),
    _line("naive", "q2", 0.0, 0.5, 0.5, 1.0, 1, 1.5),
    _line("naive", "q3", 0.0, 0.0, 0.0, 0.5, 1, 0.7),
    _line("full", "q1", 1.0, 1.0, 1.0, 1.0, 10, 3.0),
]


def test_summarize_by_hand():
    summary = report.summarize(RECORDS, ["naive", "full"])
    naive = summary["naive"]
    assert naive["n"] == 3
    assert naive["em"] == pytest.approx(1 / 3, abs=1e-4)
    assert naive["f1"] == 0.5
    assert naive["recall@2"] == 0.5
    assert naive["recall@5"] == pytest.approx(2.5 / 3, abs=1e-4)
    assert naive["llm_calls_mean"] == 1.0
    assert naive["latency_p50_s"] == 0.7
    assert naive["tokens_mean"] is None
    assert naive["answers"] == report.EXTRACTIVE
    assert summary["full"]["n"] == 1 and summary["full"]["llm_calls_mean"] == 10.0


def test_generated_answers_are_named():
    lines = [dict(RECORDS[0], extractive=False, reasoner="gpt-x", tokens={"total": 120})]
    summary = report.summarize_mode(lines)
    assert summary["answers"] == "generated (gpt-x)"
    assert summary["tokens_mean"] == 120.0


def test_write_reports(tmp_path):
    report.write_reports(RECORDS, ["naive", "full"], tmp_path, {"reasoner": "offline"})
    assert list(json.loads((tmp_path / "report.json").read_text())) == ["naive", "full"]
    assert (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"
    assert "![recall, F1 and latency per mode](report.png)" in (tmp_path / "report.md").read_text()


def test_write_reports_without_matplotlib(tmp_path, monkeypatch):
    def missing(*_args):
        raise ImportError("No module named 'matplotlib'")

    monkeypatch.setattr(report, "plot", missing)
    report.write_reports(RECORDS, ["naive"], tmp_path, {})
    assert not (tmp_path / "report.png").exists()
    assert "matplotlib is not installed" in (tmp_path / "report.md").read_text()
