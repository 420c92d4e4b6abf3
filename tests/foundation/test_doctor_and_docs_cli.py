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


def test_a_damaged_store_is_one_line_and_doctor_names_it(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    data = tmp_path / "data"
    flags = ["--data-dir", str(data)]
    assert runner.invoke(app, ["ingest", str(docs), *flags]).exit_code == 0
    assert runner.invoke(app, ["ask", "What do cats eat?", *flags]).exit_code == 0
    healthy = runner.invoke(app, ["doctor", *flags], terminal_width=200)
    assert healthy.exit_code == 0, healthy.output
    assert "keyword tree and graph hold all" in healthy.output
    # A truncated checkpoint file: runs and ask say so in one line, doctor names the fix.
    checkpoints = data / "checkpoints.sqlite"
    checkpoints.write_bytes(checkpoints.read_bytes()[:8192])
    for command in (["runs"], ["ask", "What do cats eat?"]):
        result = runner.invoke(app, [*command, *flags], terminal_width=200)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        said = " ".join(result.output.split())
        assert "a store of the data dir is damaged" in said and "treerag doctor" in said
    doctor = runner.invoke(app, ["doctor", *flags], terminal_width=200)
    assert doctor.exit_code == 1
    said = " ".join(doctor.output.split())
    assert "the run history is damaged" in said and "move it aside" in said
    assert "the documents are not" in said


def test_doctor_and_docs_list_report_chunks_the_stores_miss(tmp_path: Path) -> None:
    from treerag.retrievers.sources import open_passage_graph

    docs = write_corpus(tmp_path / "docs")
    data = tmp_path / "data"
    flags = ["--data-dir", str(data)]
    assert runner.invoke(app, ["ingest", str(docs), *flags]).exit_code == 0
    graph = open_passage_graph(Context(data_dir=str(data)))
    graph.remove({next(iter(graph.passage_ids()))})  # as a killed write would leave it
    doctor = runner.invoke(app, ["doctor", *flags], terminal_width=200)
    assert doctor.exit_code == 1
    assert "the knowledge graph misses 1 of" in " ".join(doctor.output.split())
    listed = runner.invoke(app, ["docs", "list", *flags], terminal_width=200)
    assert (
        "knowledge graph misses 1 of" in listed.output and "treerag docs rebuild" in listed.output
    )
    assert runner.invoke(app, ["docs", "rebuild", *flags]).exit_code == 0
    assert runner.invoke(app, ["doctor", *flags]).exit_code == 0


def test_a_damaged_chunk_store_is_one_line_and_doctor_names_it(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    docs = write_corpus(tmp_path / "docs")
    data = tmp_path / "data"
    env = {**os.environ, "TREERAG_DATA_DIR": str(data)}

    def treerag(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "treerag", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)

    assert treerag("ingest", str(docs)).returncode == 0
    # As a crash mid-write or another Milvus Lite version would leave the collection's files.
    for manifest in (data / "milvus.db").rglob("manifest.json*"):
        manifest.write_text('{"format_version": 99', encoding="utf-8")
    search = treerag("search", "cats")
    said = " ".join((search.stdout + search.stderr).split())
    assert search.returncode == 1 and "Traceback" not in said, said[-2000:]
    assert "the chunk store could not be read" in said and "move it aside" in said
    doctor = treerag("doctor")
    assert doctor.returncode == 1
    assert "the chunk store could not be read" in " ".join(doctor.stdout.split())
