"""The data dir's layout (`treerag.data_layout`) is spelled in one module, and the README's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import treerag
from treerag import data_layout
from treerag.context import Context

PACKAGE = Path(treerag.__file__).parent
README = PACKAGE.parent / "README.md"
SPELLED = {*data_layout.FILES, data_layout.ENDPOINT_SUFFIX}
"""Names no other module may write as a string, anywhere."""


def _spellings(tree: ast.AST) -> list[str]:
    """File names written as strings; folder names joined onto a path or given a name."""
    found = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in SPELLED
    ]
    for n in ast.walk(tree):
        value = None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            value = n.right  # base / "uploads"
        elif isinstance(n, ast.Assign | ast.AnnAssign):
            value = n.value  # UPLOADS = "uploads"
        if isinstance(value, ast.Constant) and value.value in data_layout.FOLDERS:
            found.append(value.value)
    return found


def test_data_dir_names_are_spelled_only_in_data_layout():
    offenders = {
        str(path.relative_to(PACKAGE)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "data_layout.py"
        for names in [_spellings(ast.parse(path.read_text(encoding="utf-8")))]
        if names
    }
    assert offenders == {}, "data dir names spelled outside treerag/data_layout.py: use it"


def test_the_check_sees_a_spelled_name():
    code = 'p = base / "uploads" / "x"\nq = "judge_cache.sqlite"\nTREES = "keyword_tree"'
    assert sorted(_spellings(ast.parse(code))) == ["judge_cache.sqlite", "keyword_tree", "uploads"]


def _readme_layout() -> set[str]:
    """The names of the README's data-dir layout block (the first word of each line)."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- data-dir layout -->\s*```text\n(.*?)```", text, re.S)
    assert block, "the README's data-dir layout block is missing"
    return {line.split()[0].split("/")[0] for line in block.group(1).splitlines()[1:] if line}


def test_the_readme_layout_names_the_same_files_and_folders():
    expected = {
        *data_layout.FILES,
        *data_layout.FOLDERS,
        data_layout.MILVUS_FILE + data_layout.ENDPOINT_SUFFIX,
    }
    assert _readme_layout() == expected


def test_the_same_file_names_on_disk(tmp_path):
    ctx = Context(data_dir=str(tmp_path), tenant="acme", collection="notes")
    tenant = tmp_path / "tenants" / "acme"
    assert ctx.resolved_milvus_uri == str(tmp_path / "milvus.db")
    assert ctx.resolved_checkpointer_uri == str(tenant / "checkpoints.sqlite")
    assert ctx.stores_path == tenant / "collections" / "notes"
    default = Context(data_dir=str(tmp_path))
    assert default.stores_path == tmp_path
    assert data_layout.passage_graph_file(data_layout.knowledge_graph_dir(tmp_path)) == (
        tmp_path / "knowledge_graph" / "passages.sqlite"
    )
