"""What a new user meets in the first hour: errors as one line, true counts, readable output."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.foundation.conftest import write_corpus
from treerag.cli import app
from treerag.context import Context, SettingsError
from treerag.ingest.loaders import LoadError, load
from treerag.search_tree import shorten, to_mermaid, to_rich

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


# -- item 1: --data-dir pointing at a file -----------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["ingest", "."],
        ["search", "x"],
        ["ask", "x"],
        ["runs"],
        ["doctor"],
        ["kw", "derive"],
        ["kg", "build"],
    ],
)
def test_data_dir_that_is_a_file_is_one_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("not a folder", encoding="utf-8")
    result = runner.invoke(app, [*args, "--data-dir", str(afile)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    message = " ".join(result.output.split())
    assert "is a file, not a folder" in message and "notes.txt" in message


def test_kw_and_kg_stores_under_a_file_are_refused(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    afile = tmp_path / "data"
    afile.write_text("", encoding="utf-8")
    monkeypatch.setenv("TREERAG_DATA_DIR", str(afile))
    for args in (["kw", "show"], ["kg", "show"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "lies under the file" in " ".join(result.output.split())


def test_context_refuses_a_data_dir_under_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "f"
    afile.write_text("", encoding="utf-8")
    with pytest.raises(SettingsError, match="lies under the file"):
        Context(data_dir=str(afile / "sub"))


# -- item 5: kw derive counts and kw search sentences ------------------------------------------
def test_kw_derive_reports_what_it_wrote_and_search_speaks_in_sentences(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    data = ["--data-dir", str(tmp_path / "data"), "--collection", "derive_counts"]
    assert runner.invoke(app, ["ingest", str(docs), *data]).exit_code == 0
    # Ingest derives the keyword tree itself (a collection other than the default keeps its
    # stores in a folder of its own); derive one from scratch to read its counts.
    tree = tmp_path / "data" / "collections" / "derive_counts" / "keyword_tree"
    assert tree.is_dir()
    shutil.rmtree(tree)
    first = runner.invoke(app, ["kw", "derive", *data], terminal_width=200)
    assert first.exit_code == 0, first.output
    store = ["--store", str(tree)]
    metrics = json.loads(runner.invoke(app, ["kw", "metrics", "--json", *store]).output)
    said = " ".join(first.output.split())
    assert "0 records" not in said
    assert f"{metrics['keywords']} keywords created" in said
    assert f"{metrics['infos']} chunks created" in said
    assert f"{metrics['links']} links created" in said
    again = runner.invoke(app, ["kw", "derive", *data], terminal_width=200)
    assert "nothing new" in again.output
    missing = runner.invoke(app, ["kw", "search", "云雾岭茶园", *store], terminal_width=200)
    assert missing.exit_code == 1
    sentence = " ".join(missing.output.split())
    assert re.fullmatch(
        r"Not found: no keyword matches '云雾岭茶园' \(.+\)\. A keyword for it would go under .+\.",
        sentence,
    ), sentence
    assert "; it belongs here; would go under" not in sentence


# -- item 7: labels cut with an ellipsis; Mermaid keeps Chinese; follow-ups show their own words
def _tree() -> dict:
    question = "鹤烟灯塔的透镜由哪个行会烧制？"
    child = {
        "question": question + " 行会的首任会长是谁",
        "thread_id": "t/0",
        "chunks": [{"score": 2, "title": "织光行会", "reason": "names the guild"}],
        "answer": "苏岚",
    }
    return {
        "question": question,
        "thread_id": "t",
        "chunks": [
            {
                "score": 1,
                "title": "灯塔",
                "reason": "best sentence similarity 0.4213 " + "x" * 120,
                "followup": child["question"],
                "child_thread_id": "t/0",
                "child": child,
            }
        ],
    }


def test_labels_are_cut_with_an_ellipsis() -> None:
    assert shorten("best sentence similarity 0.4213", 22) == "best sentence similar…"
    assert shorten("short", 22) == "short"
    from rich.console import Console

    console = Console(width=400, record=True)
    console.print(to_rich(_tree()))
    text = console.export_text()
    assert "…" in text
    assert "x" * 101 not in text


def test_mermaid_keeps_chinese_and_shows_the_follow_up() -> None:
    chart = to_mermaid(_tree())
    assert "\\u" not in chart
    assert "鹤烟灯塔的透镜由哪个行会烧制？" in chart
    assert "行会的首任会长是谁" in chart  # the follow-up's own words, not only the root question


# -- item 8: JSON errors say where ---------------------------------------------------------------
def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"id": 1, "text": "ok"},\n  {"id": 2, "text": "open]', encoding="utf-8")
    with pytest.raises(LoadError, match=r"Unterminated string starting at line 3, column 21"):
        load(broken)
    lines = tmp_path / "broken.jsonl"
    lines.write_text('{"text": "a"}\n{"text": "b}\n{"text": "c"}\n', encoding="utf-8")
    problems: list[str] = []
    # The broken line is left out and said, with its line and column; the others go in.
    assert [s.text for s in load(lines, problems=problems)] == ["a", "c"]
    assert len(problems) == 1
    assert re.search(r"broken.jsonl:2: invalid JSON \(.* at line 2, column 10\)", problems[0])
    # A file with no good line at all is refused, saying why.
    lines.write_text('{"text": "b}\n', encoding="utf-8")
    with pytest.raises(LoadError, match=r"broken.jsonl:1: invalid JSON"):
        load(lines)


def test_license_is_an_spdx_string() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"


def test_readme_says_what_design_seeds_say_instead_of_citing_numbers() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"\bseeds? ?\d", readme, flags=re.IGNORECASE)


# -- item 10: make test says what was skipped and why ------------------------------------------
def test_pytest_summary_lists_skips_with_reasons(tmp_path: Path) -> None:
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n@pytest.mark.skip(reason='no chromium here')\ndef test_web():\n    pass\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ROOT / "pyproject.toml"),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_skips.py"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert "SKIPPED" in done.stdout and "no chromium here" in done.stdout, done.stdout[-2000:]


# -- item 8: no GOAWAY too_many_pings from the local Milvus Lite server -------------------------
def test_milvus_lite_clients_send_no_idle_keepalive_pings(tmp_path: Path) -> None:
    from treerag.knowledge_graph.milvus_index import MilvusVectorIndex
    from treerag.retrievers.milvus_client import milvus_client

    # pymilvus pings every 10 s even when idle; the server answers GOAWAY too_many_pings,
    # which gRPC prints on stderr after about a minute and a half of quiet.
    for client in (
        milvus_client(str(tmp_path / "chunks.db")),
        MilvusVectorIndex(str(tmp_path / "graph.db"))._client,
    ):
        options = client._get_connection()._grpc_options
        assert options["grpc.keepalive_permit_without_calls"] is False
        assert options["grpc.keepalive_time_ms"] >= 300_000


def test_doctor_takes_the_store_options(tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    result = runner.invoke(app, ["doctor", "--data-dir", str(data), "--collection", "c1"])
    assert result.exit_code == 0, result.output
    assert data.is_dir()  # the data-dir check ran on the folder given, not ./data
    assert (data / "milvus.db").exists()  # and Milvus opened there
    assert "c1" in result.output
