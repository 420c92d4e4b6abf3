"""What the terminal says after a first ingest: counts in words, each thing said once, hints."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from treerag.cli import app, common

runner = CliRunner()
TOWN = "Orlenburg\n\nOrlenburg is a town on the river Sella. Marta Velik was born there.\n"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir of its own, and a folder with a file and its copy."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a_town.txt").write_text(TOWN, encoding="utf-8")
    (docs / "b_copy.txt").write_text(TOWN, encoding="utf-8")
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(common.console, "_width", 80)
    return docs


def said(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return " ".join(result.output.split())


def test_first_ingest_in_words(data: Path) -> None:
    assert "No documents yet" in said(["docs", "list"]) and "treerag ingest" in said(
        ["docs", "list"]
    )
    ingested = said(["ingest", str(data)])
    assert "1 chunk added" in ingested and "1 duplicate," in ingested
    assert "1 chunks" not in ingested and "(s)" not in ingested

    listed = said(["docs", "list"])  # the copy is listed, with where its text is
    assert "b_copy.txt: duplicate (same text as" in listed and "a_town.txt" in listed
    removed = runner.invoke(app, ["docs", "rm", "b_copy.txt"])
    assert removed.exit_code == 3, removed.output
    assert "is not stored: duplicate (same text as" in " ".join(removed.output.split())

    found = said(["search", "river Sella"])
    assert "Orlenburg Orlenburg" not in found and "Orlenburg is a town" in found

    tree = said(["kw", "show"])
    assert "(1 chunk)" in tree and "infos" not in tree and "not yet placed" not in tree


def test_runs_at_80_columns_show_the_question(data: Path) -> None:
    said(["ingest", str(data)])
    question = "Which river flows through the town where Marta Velik was born?"
    said(["ask", question])
    lines = runner.invoke(app, ["runs"]).output.splitlines()
    assert any(line.strip() == question for line in lines), lines
    assert all(len(line) <= 80 for line in lines)


def test_search_says_a_markdown_title_once(data: Path) -> None:
    (data / "marta.md").write_text("# Marta Velik\n\nMarta Velik was born in Orlenburg.\n")
    said(["ingest", str(data)])
    result = runner.invoke(app, ["search", "Marta Velik"])
    row = [line for line in result.output.splitlines() if "│" in line and "score" not in line]
    titles = [line.split("│")[3].strip() for line in row]  # the title column, line by line
    assert titles[0] == "Marta Velik" and "Marta Velik" not in titles[1:], result.output
