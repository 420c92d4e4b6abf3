"""`treerag search`: run the retriever alone and show the chunks it finds."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    TopKOption,
    console,
    make_run_context,
    quiet_libraries,
    user_errors,
)


def search_command(
    query: str = typer.Argument(..., help="What to look for."),
    mode: str = typer.Option(
        None,
        "--mode",
        "-m",
        help="dense | sparse | hybrid (default: TREERAG_SEARCH_MODE, else hybrid).",
    ),
    k: int = TopKOption,
    ranker: str = typer.Option(
        None,
        "--ranker",
        help="Hybrid fusion: auto | rrf | weighted | model (default: TREERAG_RANKER, else auto).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Search the ingested chunks (no LLM involved)."""
    from treerag.models import get_embeddings
    from treerag.retrievers.chunk_store import ChunkStore
    from treerag.retrievers.hybrid import from_context

    quiet_libraries()
    # Bounds only (top_k=0 would find nothing, quietly): a search needs no chat model.
    ctx = make_run_context(
        models=False,
        data_dir=data_dir,
        collection=collection,
        search_mode=mode,
        top_k=k,
        ranker=ranker,
    )
    with user_errors():
        retriever = from_context(ChunkStore(ctx, get_embeddings(ctx)))
        results = retriever.get_similar_chunk_with_score(query)
    if as_json:
        rows = [
            {
                "id": d.id,
                "score": s,
                "title": d.metadata["title"],
                "source": d.metadata["source"],
                "text": d.page_content,
            }
            for d, s in results
        ]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    table = Table(title=f"{ctx.search_mode} search: {query}")
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("title")
    table.add_column("text")
    for i, (doc, score) in enumerate(results, 1):
        headings = doc.metadata.get("heading_path", [])
        # A document's first heading is often its title: say it once.
        heading = " › ".join(h for h in headings if h != doc.metadata["title"])
        title = doc.metadata["title"] + (f"\n[dim]{heading}[/]" if heading else "")
        text = _body(doc.page_content, [doc.metadata["title"], *headings]).replace("\n", " ")
        table.add_row(str(i), f"{score:.3f}", title, text[:200] + ("…" if len(text) > 200 else ""))
    console.print(table)


def _body(text: str, shown: list[str]) -> str:
    """The chunk's text without its opening title line when the title column already shows it."""
    from treerag.reasoning.chunk_reading import title_line

    line = title_line(text)
    if line and line in shown:
        return text.split(line, 1)[1].strip()
    return text


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("search")(search_command)
