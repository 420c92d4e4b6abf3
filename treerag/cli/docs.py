"""`treerag docs`: list, delete and rebuild documents (the same operations as the web page)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    err_console,
    fail,
    make_context,
    quiet_libraries,
    user_errors,
)

app = typer.Typer(
    no_args_is_help=True,
    help="Documents: list what is ingested, delete a document, rebuild derived stores.",
)


@app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """List ingested documents (chunks, when ingested) and the files recently skipped."""
    from treerag.documents import list_documents

    quiet_libraries()
    ctx = make_context(data_dir=data_dir, collection=collection)
    with user_errors():
        listing = list_documents(ctx)
    if as_json:
        print(json.dumps(listing.as_dict(), ensure_ascii=False, indent=1))
        return
    if not listing.documents:
        console.print("No documents yet: add a folder or files with `treerag ingest <path>`.")
    table = Table(title="documents")
    table.add_column("source", overflow="fold")  # whole, so that it can be pasted into `rm`
    table.add_column("chunks", justify="right")
    table.add_column("ingested")
    for doc in listing.documents:
        table.add_row(doc.source, str(doc.chunks), doc.ingested_at or "-")
    if listing.documents:
        console.print(table)
    for skip in listing.skipped:
        err_console.print(f"[red]skipped[/] {skip['name']}: {skip['reason']}", highlight=False)
    total = sum(doc.chunks for doc in listing.documents)
    for store, is_stale in listing.stale.items():
        if not is_stale:
            continue
        name = store.replace("_", " ")
        lag = listing.behind.get(store, {})
        said = [
            f"misses {lag['missing']:,} of {total:,} chunks" if lag.get("missing") else "",
            f"holds {lag['extra']:,} deleted ones" if lag.get("extra") else "",
            "was built by an older release's rules" if lag.get("old_rules") else "",
            f"cannot be read ({lag['unreadable']})" if lag.get("unreadable") else "",
        ]
        why = " and ".join(w for w in said if w) or "could not follow the last change"
        err_console.print(
            f"[yellow]{name} {why}[/]: run `treerag docs rebuild` (any ingest repairs it too)",
            highlight=False,
        )


@app.command("rm")
def rm_command(
    source: str = typer.Argument(
        ..., help="The file: as `treerag docs list` shows it, a path, or its name alone."
    ),
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Delete a document: its chunks, and its entries in the keyword tree and the graph."""
    from treerag.documents import UnknownDocumentError, delete_document, resolve_document

    quiet_libraries()
    ctx = make_context(data_dir=data_dir, collection=collection)
    with user_errors():
        try:
            done = delete_document(ctx, resolve_document(ctx, source))
        except UnknownDocumentError as exc:
            fail(f"{exc.args[0]} (see `treerag docs list`)", code=3)
    chunks = f"{done.deleted_chunks} chunk{'' if done.deleted_chunks == 1 else 's'}"
    console.print(
        f"deleted {chunks} of {done.source}; "
        f"keyword tree: {done.keyword_tree}, knowledge graph: {done.knowledge_graph}",
        highlight=False,
    )
    if "stale" in (done.keyword_tree, done.knowledge_graph):
        err_console.print("[yellow]a derived store is stale[/]: run `treerag docs rebuild`")


@app.command("rebuild")
def rebuild_command(
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Bring the keyword tree and the knowledge graph back in step with the stored chunks.

    A store an older release's rules built, or whose file is damaged (set aside, kept), is
    built again from every chunk; `treerag doctor` and `docs list` say when one is.
    """
    from treerag.documents import rebuild

    quiet_libraries()
    ctx = make_context(data_dir=data_dir, collection=collection)
    with user_errors(), err_console.status("Rebuilding from the stored chunks…"):
        done = rebuild(ctx)
    console.print(
        f"keyword tree: {done['keyword_tree']}, knowledge graph: {done['knowledge_graph']}",
        highlight=False,
    )


def register(app_: typer.Typer) -> None:
    """Add the command family to the root app."""
    app_.add_typer(app, name="docs")
