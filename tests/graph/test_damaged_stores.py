"""A damaged derived store costs a question its finds, not its answer, and is made again.

The keyword tree and the passage graph are derived from the chunks. A damaged passage graph
file (a disk fault, a copy cut short) used to fail every question, `docs list` and `doctor`'s
derived-store check, and `docs rebuild` could not repair it: it marked the graph stale and
told the user to run itself again.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from treerag.api import ask
from treerag.checkpointing import open_checkpointer
from treerag.context import Context
from treerag.documents import list_documents, rebuild
from treerag.documents.health import StoreProblem, derived_stores
from treerag.graphs.chat import builder as chat_builder
from treerag.ingest.indexer import ingest
from treerag.retrievers.sources import passage_graph_file

DOCS = {
    "a.md": "# Aldous Brennick\n\nAldous Brennick was born in Port Veyra. He later commanded "
    "the Saltwren.\n",
    "b.md": "# Port Veyra\n\nPort Veyra lies on the Salt River, where the old ferries cross to "
    "the eastern marshes.\n",
    **{
        f"d{i}.md": f"# River notes {i}\n\nThe river Amble {i} flows past mills and meadows; "
        f"the town of Lowmarsh {i} stands on a river bank.\n"
        for i in range(1, 9)
    },
}
PAGE = 4096
QUESTION = "Which river flows through the city where Aldous Brennick was born?"


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Context, Path]:
    """The corpus ingested, then its passage graph file cut to its first page."""
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    ctx = Context(data_dir=str(tmp_path / "data"), checkpointer_uri=str(tmp_path / "cp.sqlite"))
    assert ingest([root], ctx).derived["knowledge_graph"] == "updated"
    path = passage_graph_file(ctx)
    close_passage_graphs()  # as a new process finds it: everything in the main file
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("pragma wal_checkpoint(truncate)")
    data = path.read_bytes()
    assert len(data) > 3 * PAGE
    path.write_bytes(data[:PAGE] + b"\xff" * (len(data) - PAGE))  # every page but the header
    return ctx, root


def close_passage_graphs() -> None:
    """Close this process's open passage graphs (a later open reads the file anew)."""
    from treerag.retrievers import sources

    for key in sources._passage_graphs.keys():
        sources._passage_graphs.pop(key)


async def test_a_question_is_answered_without_a_damaged_graph_and_says_so(damaged):
    ctx, root = damaged
    result = await ask(QUESTION, ctx)
    assert result["error"].startswith("The knowledge graph could not be read"), result["error"]
    assert "treerag docs rebuild" in result["error"]
    assert (root / "a.md").as_posix() in {c["source"] for c in result["citations"]}
    listing = list_documents(ctx)
    assert listing.stale["knowledge_graph"] and listing.behind["knowledge_graph"]["unreadable"]
    with pytest.raises(StoreProblem, match="the knowledge graph cannot be read"):
        derived_stores(ctx)


async def test_rebuild_sets_a_damaged_graph_aside_and_makes_it_again(damaged):
    ctx, root = damaged
    assert rebuild(ctx) == {"keyword_tree": "updated", "knowledge_graph": "rebuilt"}
    path = passage_graph_file(ctx)
    assert [p.name for p in path.parent.glob(f"{path.name}.damaged-*")]  # kept, not deleted
    assert "all" in derived_stores(ctx)
    result = await ask(QUESTION, ctx)
    assert result["error"] == ""
    # The graph's second hop is back: b.md, which no retrieval on the question finds.
    assert (root / "b.md").as_posix() in {c["source"] for c in result["citations"]}


async def test_the_chat_reply_carries_the_sentence_as_a_notice(damaged):
    ctx, _ = damaged
    async with open_checkpointer(ctx) as saver:
        graph = chat_builder.compile(checkpointer=saver)
        final = await graph.ainvoke(
            {"messages": [HumanMessage(QUESTION)]},
            {"configurable": {"thread_id": "damaged"}},
            context=ctx,
        )
    meta = final["messages"][-1].additional_kwargs["treerag"]
    assert "error" not in meta  # the turn did not fail
    assert meta["notice"].startswith("The knowledge graph could not be read")


def test_the_terminal_answer_is_followed_by_the_sentence(damaged):
    from typer.testing import CliRunner

    from treerag.cli import app

    ctx, _ = damaged
    out = CliRunner().invoke(
        app, ["ask", QUESTION, "--data-dir", ctx.data_dir], env={"COLUMNS": "200"}
    )
    assert out.exit_code == 0, out.output
    assert "The knowledge graph could not be read" in " ".join(out.output.split())
