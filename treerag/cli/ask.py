"""`treerag ask`, `treerag tree`, `treerag runs`: answer questions and inspect search trees."""

from __future__ import annotations

import asyncio
import json

import typer
from rich.console import Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    MaxDepthOption,
    TopKOption,
    console,
    fail,
    make_context,
    make_run_context,
    quiet_libraries,
    user_errors,
)


def ask_command(
    question: str = typer.Argument(..., help="The question, in English or Chinese."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object, no live view."),
    depth: int = MaxDepthOption,
    k: int = TopKOption,
    thread_id: str = typer.Option(
        None, "--thread-id", help="Root thread_id to use (default: new)."
    ),
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Answer a question: retrieve, judge each chunk, recurse on partial ones, cite the answer.

    The answer streams token by token while the search tree grows. Without a chat model the
    offline reasoner answers (extractive, labelled as such).
    """
    from treerag.api import ask
    from treerag.models import get_embeddings
    from treerag.preflight import check_question
    from treerag.retrievers.chunk_store import ChunkStore, EmptyStoreError
    from treerag.search_tree import TreeFold, to_rich

    quiet_libraries()
    ctx = make_run_context(data_dir=data_dir, collection=collection, max_depth=depth, top_k=k)
    with user_errors():
        check_question(question, ctx)  # before the live view: a refused run draws nothing
        try:
            ChunkStore(ctx, get_embeddings(ctx)).require_data()
        except EmptyStoreError as exc:
            fail(str(exc))
        if as_json:
            result = asyncio.run(ask(question, ctx, thread_id=thread_id))
            typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
            return
        if ctx.offline:
            console.print(
                "[dim]no chat model configured: the offline reasoner answers "
                "(set TREERAG_CHAT_MODEL=openai:<model>)[/]"
            )
        fold = TreeFold()
        answer = Text()

        def view() -> Group:
            parts: list = [to_rich(fold.root, show_answers=True)] if fold.root else []
            parts.append(Panel(answer, title="answer", border_style="green"))
            return Group(*parts)

        with Live(view(), console=console, refresh_per_second=8, transient=False) as live:

            def on_event(event: dict) -> None:
                fold.apply(event)
                live.update(view())

            def on_token(text: str, _meta: dict) -> None:
                answer.append(text)
                live.update(view())

            result = asyncio.run(
                ask(question, ctx, thread_id=thread_id, on_event=on_event, on_token=on_token)
            )
            if not answer.plain:
                answer.append(result["answer"])
            live.update(view())
    _print_citations(result)


def _print_citations(result: dict) -> None:
    if result.get("error"):  # what the run had to work around (a failed model, a store)
        console.print(Text(result["error"], style="yellow"))
    console.print()
    for c in result["citations"]:
        console.print(f"[bold][{c['n']}][/] {escape(c['title'])} [dim]{escape(c['source'])}[/]")
    console.print(
        f"[dim]thread {result['thread_id']} · {result['llm_calls']} LLM-role calls · "
        f"{result['elapsed_s']:.1f} s · `treerag tree {result['thread_id']}`[/]"
    )


def tree_command(
    thread_id: str = typer.Argument(..., help="Root (or any) thread_id printed by `treerag ask`."),
    fmt: str = typer.Option("text", "--format", "-f", help="text | json | mermaid"),
    data_dir: str = DataDirOption,
) -> None:
    """Rebuild a search tree from the checkpointer and print it."""
    from treerag.api import tree
    from treerag.search_tree import to_mermaid, to_rich

    if fmt not in ("text", "json", "mermaid"):
        fail(f"--format {fmt!r}: use text, json or mermaid", code=2)
    ctx = make_context(data_dir=data_dir)
    with user_errors():
        rebuilt = asyncio.run(tree(thread_id, ctx))
    if rebuilt is None:
        fail(
            f"no run with thread_id {thread_id!r} in {ctx.resolved_checkpointer_uri} "
            "(see `treerag runs`)"
        )
    if fmt == "json":
        typer.echo(json.dumps(rebuilt, ensure_ascii=False, indent=2))
    elif fmt == "mermaid":
        typer.echo(to_mermaid(rebuilt))
    else:
        console.print(to_rich(rebuilt))
        if rebuilt["answer"]:
            console.print(Panel(escape(rebuilt["answer"]), title="answer", border_style="green"))


WIDE_RUNS = 110
"""Terminal columns from which `runs` is one table row a run (a thread id takes 36 or more)."""


def runs_command(
    limit: int = typer.Option(20, "--limit", "-n", help="How many runs."),
    data_dir: str = DataDirOption,
) -> None:
    """List recent root runs: time, question, tree size."""
    from treerag.api import runs

    ctx = make_context(data_dir=data_dir)
    with user_errors():
        rows = asyncio.run(runs(ctx, limit))
    if not rows:
        console.print('no runs yet: try `treerag ask "…"`')
        return
    if console.width < WIDE_RUNS:  # the ids alone fill a narrow line: two lines a run
        for row in rows:
            when = row["time"][:19].replace("T", " ")
            console.print(f"{row['thread_id']}  [dim]{when} · {row['runs']} runs[/]")
            question = Text("  " + " ".join(row["question"].split()), style="bold")
            question.truncate(console.width, overflow="ellipsis")
            console.print(question)
        return
    # One line per run: a long question is cut to the terminal's width, not wrapped.
    table = Table(title="recent runs")
    for col in ("thread_id", "time", "runs"):
        table.add_column(col, no_wrap=True)
    table.add_column("question", ratio=1)
    for row in rows:
        table.add_row(
            row["thread_id"],
            row["time"][:19].replace("T", " "),
            str(row["runs"]),
            Text(" ".join(row["question"].split()), no_wrap=True, overflow="ellipsis"),
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add the commands to the root app."""
    app.command("ask")(ask_command)
    app.command("tree")(tree_command)
    app.command("runs")(runs_command)
