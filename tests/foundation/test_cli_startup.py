"""`treerag` starts fast: the root help and each command import only what they use.

The budget is counted in modules (parsed from `python -X importtime`), not seconds, so it
holds on a loaded machine: heavy libraries must not load for `--help`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = {"pymilvus", "networkx", "pandas", "langgraph", "langchain_core", "numpy", "jieba"}


def imported_modules(code: str) -> set[str]:
    """Top-level packages imported by running `code` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def run_cli(*args: str) -> str:
    return f"from treerag.cli import app\ntry:\n    app({list(args)!r})\nexcept SystemExit:\n    pass\n"


def test_root_help_imports_no_command_family_and_nothing_heavy() -> None:
    names = imported_modules(run_cli("--help"))
    assert "typer" in names  # the parse worked: it saw the help being printed
    assert not HEAVY & names, f"treerag --help imported {sorted(HEAVY & names)}"


@pytest.mark.parametrize("command", ["ingest", "search", "ask", "doctor", "kw"])
def test_a_command_help_imports_nothing_heavy(command: str) -> None:
    names = imported_modules(run_cli(command, "--help"))
    assert not HEAVY & names, f"treerag {command} --help imported {sorted(HEAVY & names)}"


def test_command_help_is_lazy_per_family() -> None:
    code = run_cli("search", "--help") + (
        "import sys\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('treerag.cli.'))\n"
        "print(loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = done.stdout.strip().splitlines()[-1]
    assert "treerag.cli.search" in last
    for other in ("treerag.cli.kg", "treerag.cli.kw", "treerag.cli.chat", "treerag.cli.eval"):
        assert f"'{other}'" not in last


def test_help_lists_every_family_and_shows_flags_without_types() -> None:
    from typer.testing import CliRunner

    from treerag.cli import FAMILIES, app

    runner = CliRunner()
    root = runner.invoke(app, ["--help"], terminal_width=100)
    assert root.exit_code == 0
    for name in FAMILIES:
        assert f" {name} " in root.output
    assert "<bool>" not in root.output
    ingest = runner.invoke(app, ["ingest", "--help"], terminal_width=100)
    assert ingest.exit_code == 0
    assert "--prune " in ingest.output and "<bool>" not in ingest.output
    # A wrapped docstring line reads as one paragraph, not a line broken mid-sentence.
    assert "and the\n" not in ingest.output
    # Every command's docstring is reflowed so, not only the ones written on one line.
    ask = runner.invoke(app, ["ask", "--help"], env={"COLUMNS": "200"})
    assert "Without a chat model the offline reasoner answers" in ask.output


def test_the_knowledge_graph_package_loads_only_the_names_asked_for() -> None:
    code = (
        "import sys\n"
        "from treerag.knowledge_graph import World\n"
        "print(sorted(m for m in sys.modules if m.startswith('treerag.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = done.stdout.strip().splitlines()[-1]
    assert "'treerag.knowledge_graph.world'" in loaded
    for builder in ("build", "extract", "importer", "communities"):
        assert f"'treerag.knowledge_graph.{builder}'" not in loaded
    assert "'treerag.keyword_tree'" not in loaded


def test_a_function_named_like_its_module_stays_the_function_after_the_module_loads() -> None:
    code = (
        "import treerag.knowledge_graph.local_search\n"
        "import treerag.knowledge_graph as kg\n"
        "from treerag.knowledge_graph import local_search\n"
        "print(callable(local_search), callable(kg.local_search))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
