"""`treerag doctor` readable at 80 columns, `treerag docs rm` by the name a user types (issue 23)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from tests.foundation.conftest import write_corpus
from treerag.cli import app, common
from treerag.cli.doctor import settings_table
from treerag.context import Context

runner = CliRunner()


def rendered(renderable: object, width: int = 80) -> list[str]:
    console = Console(width=width, record=True)
    console.print(renderable)
    return console.export_text().splitlines()


def test_settings_fit_80_columns_one_line_each(tmp_path: Path) -> None:
    ctx = Context(data_dir=str(tmp_path))
    lines = rendered(settings_table(ctx))
    assert all(len(line) <= 80 for line in lines)
    names = [name for name, *_ in ctx.describe()]
    rows = [line for line in lines if line.startswith("│ ") and line[2:].split(" ", 1)[0] in names]
    assert len(rows) == len(names)  # every setting on a line of its own
    assert len(lines) < len(names) + 20  # and no description spread over ten lines a row


def test_verbose_settings_keep_their_brackets(tmp_path: Path) -> None:
    text = "\n".join(rendered(settings_table(Context(data_dir=str(tmp_path)), verbose=True)))
    assert "extra [local]" in text and "extra )" not in text


def test_doctor_at_80_columns(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(common.console, "_width", 80)
    result = runner.invoke(app, ["doctor", "--verbose", "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())
    assert "extra [local]" in " ".join(result.output.split())


def test_docs_rm_takes_a_path_from_the_files_own_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    docs = write_corpus(tmp_path / "docs")
    data = ["--data-dir", str(tmp_path / "data"), "--collection", "rm_names"]
    assert runner.invoke(app, ["ingest", str(docs), *data]).exit_code == 0
    monkeypatch.chdir(docs)
    result = runner.invoke(app, ["docs", "rm", "cats.txt", *data], terminal_width=200)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"deleted 1 chunk of {(docs / 'cats.txt').resolve().as_posix()};" in said
    again = runner.invoke(app, ["docs", "rm", "cats.txt", *data], terminal_width=200)
    assert again.exit_code == 3 and "no document 'cats.txt' is ingested" in again.output
