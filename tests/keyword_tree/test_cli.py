"""`treerag kw` commands: output, exit codes, errors on stderr."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from treerag.cli.kw import app, store_path
from treerag.keyword_tree import KeywordTree, TreeConfig
from treerag.keyword_tree.upkeep import read_marks

runner = CliRunner()
OUTLINE = "# 技术: technology\n## 编程语言: programming languages\n- Python\n  - GIL: global interpreter lock\n- Go\n# 生活\n- 美食\n"


def _run(*args: str, store: Path) -> object:
    return runner.invoke(app, [*args, "--store", str(store)])


def test_default_store_follows_the_data_dir(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path / "d"))
    assert store_path(None) == tmp_path / "d" / "keyword_tree"
    monkeypatch.delenv("TREERAG_DATA_DIR")
    assert store_path(None) == Path("data/keyword_tree")
    assert store_path(tmp_path) == tmp_path


def test_import_show_search_edit_undo(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    outline = tmp_path / "tree.md"
    outline.write_text(OUTLINE, encoding="utf-8")
    result = _run("import", str(outline), store=store)
    assert result.exit_code == 0, result.output
    assert "imported 7 new keywords" in result.output
    shown = _run("show", store=store)
    assert "GIL" in shown.output and "global interpreter lock" in shown.output
    found = _run("search", "Python 的 GIL", store=store)
    assert found.exit_code == 0 and "技术 > 编程语言 > Python > GIL" in found.output
    assert (
        _run(
            "add", "Rust", "--parent", "编程语言", "--description", "systems", store=store
        ).exit_code
        == 0
    )
    moved = _run("move", "Rust", "生活", store=store)
    assert moved.exit_code == 0 and "moved: 生活 > Rust" in moved.output
    assert _run("merge", "Go", "Python", store=store).exit_code == 0
    merged = _run("search", "Go", store=store)
    assert "技术 > 编程语言 > Python" in merged.output  # Go is now an alias of Python
    undone = _run("undo", "--last", store=store)
    assert undone.exit_code == 0 and "undid" in undone.output
    listed = _run("undo", "--list", store=store)
    assert "merge_keywords" in listed.output and "move_keyword" in listed.output
    assert _run("delete", "Rust", store=store).exit_code == 0
    exported = _run("export", "--format", "markdown", store=store)
    assert exported.output.startswith("- 技术: technology\n")
    metrics = _run("metrics", "--json", store=store)
    assert '"keywords": 7' in metrics.output


def test_errors_go_to_stderr_with_exit_codes(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    missing = _run("show", store=store)
    assert missing.exit_code == 3 and "treerag kw import" in missing.stderr
    outline = tmp_path / "tree.md"
    outline.write_text(OUTLINE, encoding="utf-8")
    _run("import", str(outline), store=store)
    assert _run("delete", "nope", store=store).exit_code == 3
    cycle = _run("move", "技术", "GIL", store=store)
    assert cycle.exit_code == 4 and "inside the subtree" in cycle.stderr
    dup = _run("add", "python", "--parent", "编程语言", store=store)
    assert dup.exit_code == 4 and "already exists" in dup.stderr
    assert _run("delete", "编程语言", store=store).exit_code == 4  # has children, no --cascade
    assert _run("move", "Go", store=store).exit_code == 2  # neither parent nor --top
    assert _run("restore", "19990101T000000Z", store=store).exit_code == 3
    not_found = _run("search", "量子纠缠", store=store)
    assert not_found.exit_code == 1 and "not found" in not_found.output.lower()


def test_compact_snapshot_restore(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    outline = tmp_path / "tree.md"
    outline.write_text(OUTLINE, encoding="utf-8")
    _run("import", str(outline), store=store)
    ts = _run("snapshot", store=store).output.strip()
    assert _run("delete", "生活", "--cascade", store=store).exit_code == 0
    assert "美食" not in _run("show", store=store).output
    assert _run("compact", store=store).exit_code == 0
    assert _run("restore", ts, store=store).exit_code == 0
    assert "美食" in _run("show", store=store).output


def test_snapshot_list_tells_periodic_snapshots_from_manual_ones(tmp_path: Path) -> None:
    store = tmp_path / "kt"
    with KeywordTree(store, config=TreeConfig(fsync=False, snapshot_every_bytes=2000)) as tree:
        for i in range(30):
            tree.create_keyword(f"keyword {i}")
    auto = read_marks(store).auto_snapshots
    assert auto
    manual = _run("snapshot", store=store).output.strip()
    listed = dict(
        line.split() for line in _run("snapshot", "--list", store=store).output.splitlines()
    )
    assert listed == {manual: "manual", **dict.fromkeys(auto, "auto")}


def test_help_texts() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in (
        "import",
        "export",
        "show",
        "search",
        "add",
        "move",
        "merge",
        "delete",
        "undo",
        "metrics",
        "compact",
        "snapshot",
        "restore",
    ):
        assert command in result.output
    assert "Exit codes" in result.output
