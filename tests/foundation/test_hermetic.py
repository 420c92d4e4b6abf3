"""Tests stay out of the checkout and the user's settings; reads create no data dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import REPO, changes, snapshot
from treerag.cli import app
from treerag.context import Context

runner = CliRunner()


def _outside_checkout(path: Path) -> bool:
    return not path.resolve().is_relative_to(REPO)


@pytest.fixture(scope="module")
def seen_by_a_module_fixture() -> tuple[Path, Path]:
    """What a module-scoped fixture sees: it runs before the function-scoped `_isolated_env`."""
    return Path.cwd(), Context().data_path


def test_module_fixtures_see_a_temporary_folder_and_data_dir(seen_by_a_module_fixture) -> None:
    cwd, data = seen_by_a_module_fixture
    assert _outside_checkout(cwd), cwd
    assert _outside_checkout(data), data


def test_tests_run_outside_the_checkout_without_user_settings() -> None:
    assert _outside_checkout(Path.cwd())
    assert _outside_checkout(Context().data_path)
    settings = {k for k in os.environ if k.startswith("TREERAG_")}
    assert settings == {"TREERAG_DATA_DIR"}
    assert "OPENAI_API_KEY" not in os.environ


def test_the_session_check_sees_a_data_dir_created_or_changed(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    empty = snapshot(folder)
    assert empty is None
    folder.mkdir()
    (folder / "milvus.db").write_text("x", encoding="utf-8")
    first = snapshot(folder)
    assert changes(empty, first) == ["created"]
    (folder / "milvus.db").write_text("xy", encoding="utf-8")
    (folder / "checkpoints.sqlite").write_text("x", encoding="utf-8")
    assert changes(first, snapshot(folder)) == [
        "checkpoints.sqlite: added",
        "milvus.db: changed",
    ]
    assert changes(first, first) == []


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["ask", "Which guild built the Saltwren?"], 1, "treerag ingest"),
        (["search", "Saltwren"], 1, "treerag ingest"),
        (["runs"], 0, "no runs yet"),
        (["tree", "abc123"], 1, "no run with thread_id"),
    ],
)
def test_reading_before_any_ingest_creates_no_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], code: int, message: str
) -> None:
    # The default data dir, ./data, in a folder where nothing was ingested.
    monkeypatch.delenv("TREERAG_DATA_DIR")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert not (tmp_path / "data").exists(), sorted(p.name for p in (tmp_path / "data").rglob("*"))
