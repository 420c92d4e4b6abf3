"""`treerag ingest`: load folders and files into the chunk store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    counted,
    err_console,
    make_context,
    quiet_libraries,
    staged_progress,
    user_errors,
)


def ingest_command(
    paths: list[Path] = typer.Argument(
        ...,
        metavar="PATH...",
        help="Files or folders: .txt .md .pdf .json .jsonl .html .docx .pptx .xlsx .csv.",
    ),
    include: list[str] = typer.Option(
        [], "--include", "-i", help="Glob of paths to keep, e.g. '*.md' (repeatable)."
    ),
    exclude: list[str] = typer.Option(
        [], "--exclude", "-x", help="Glob of paths to skip, e.g. 'drafts/*' (repeatable)."
    ),
    prune: bool = typer.Option(
        False, "--prune", help="Delete chunks of files under these folders that no longer exist."
    ),
    rebuild: bool = typer.Option(
        False, "--rebuild", help="Drop the collection first and index everything again."
    ),
    json_text: str = typer.Option(
        "text", "--json-text", help="JSON/JSONL field holding a record's text."
    ),
    json_title: str = typer.Option(
        "title", "--json-title", help="JSON/JSONL field holding a record's title."
    ),
    json_id: str = typer.Option("id", "--json-id", help="JSON/JSONL field holding a record's id."),
    chunk_size: int = typer.Option(
        None,
        "--chunk-size",
        help="Chunk size in characters (default: TREERAG_CHUNK_SIZE, else 800).",
    ),
    chunk_overlap: int = typer.Option(
        None,
        "--chunk-overlap",
        help="Overlap in characters (default: TREERAG_CHUNK_OVERLAP, else 100).",
    ),
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Index documents. Re-running is cheap: unchanged files add nothing, changed files replace.

    Every file named or found is either ingested or reported with the reason it was not
    (unsupported format, unreadable, empty, binary, duplicate content is noted); the exit
    code is 3 when anything was skipped (a file, or a JSONL line that is not a record).
    """
    from treerag.ingest.indexer import ingest
    from treerag.ingest.loaders import JsonFields

    quiet_libraries()
    ctx = make_context(
        data_dir=data_dir, collection=collection, chunk_size=chunk_size, chunk_overlap=chunk_overlap
    )
    with user_errors():
        if rebuild:
            from treerag.models import get_embeddings
            from treerag.retrievers.chunk_store import ChunkStore

            ChunkStore(ctx, get_embeddings(ctx)).drop()
        with staged_progress({"load": "reading files", "embed": "embedding chunks"}) as progress:
            report = ingest(
                paths,
                ctx,
                include=include,
                exclude=exclude,
                prune=prune,
                json_fields=JsonFields(json_text, json_title, json_id),
                progress=progress,
                notify=lambda note: err_console.print(f"[yellow]note:[/] {note}", highlight=False),
            )
    _print_report(report)
    if report.interrupted:
        err_console.print(
            f"[yellow]interrupted:[/] the {report.written:,} chunks written so far are kept; "
            "run the same command again to index the rest.",
            highlight=False,
        )
        raise typer.Exit(130)
    if report.skipped or report.left_out:
        raise typer.Exit(3)


def _print_report(report) -> None:
    table = Table(title="ingest", show_lines=False)
    for col in ("file", "status", "chunks", "added", "removed"):
        table.add_column(col, justify="right" if col in ("chunks", "added", "removed") else "left")
    colours = {
        "added": "green",
        "updated": "yellow",
        "unchanged": "dim",
        "duplicate": "cyan",
        "skipped": "red",
    }
    for f in report.files:
        table.add_row(
            _short(f.path),
            f"[{colours[f.status]}]{f.status}[/]",
            str(f.chunks),
            str(f.added),
            str(f.removed),
        )
    console.print(table)
    for f in report.skipped:
        err_console.print(f"[red]skipped[/] {f.reason}", highlight=False)
    for part in report.left_out:
        err_console.print(f"[yellow]left out[/] {part}; the file's other records went in")
    for f in report.duplicates:
        said = f"[cyan]duplicate[/] {_short(f.path)}: {f.reason}, stored once"
        console.print(said, highlight=False)
    for source in report.pruned_sources:
        console.print(f"[yellow]pruned[/] {_short(source)}")
    _say_derived(report)
    console.print(
        f"{counted(report.added, 'chunk')} added, {report.removed:,} removed, "
        f"{report.total_chunks:,} in the collection; {counted(len(report.duplicates), 'duplicate')}"
        f", {counted(len(report.skipped), 'file')} skipped."
    )


def _say_derived(report: Any) -> None:
    """Say whether the keyword tree and the graph followed the chunks, or why not."""
    changes = report.derived_changes
    followed = [s.replace("_", " ") for s, o in report.derived.items() if o == "updated"]
    if followed and (changes.get("added") or changes.get("removed")):
        console.print(
            f"{' and '.join(followed)} updated: "
            f"{counted(changes.get('added', 0), 'chunk')} linked, "
            f"{changes.get('removed', 0)} let go"
        )
    for store, outcome in report.derived.items():
        if outcome == "rebuilt":
            console.print(
                f"{store.replace('_', ' ')} built again from every chunk (this release's rules, "
                "or its file was damaged)"
            )
        if outcome == "stale":
            err_console.print(
                f"[yellow]{store.replace('_', ' ')} is stale[/] (the chunks went in; it could "
                "not follow): run `treerag docs rebuild`"
            )


def _short(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("ingest")(ingest_command)
