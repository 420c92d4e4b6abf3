"""`treerag kw derive`: build the keyword tree from the ingested documents' structure."""

from __future__ import annotations

import typer

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    make_context,
    quiet_libraries,
    user_errors,
)


def derive_command(
    root_name: str = typer.Option("Documents", "--root", help="Name of the top keyword."),
    data_dir: str = DataDirOption,
    collection: str = CollectionOption,
) -> None:
    """Derive keywords from the ingested chunks: folder → file → heading path.

    Every chunk is linked as an info to the keyword of its heading, so `treerag ask` can
    reach it by descending the tree. Running it again adds only what is new.
    """
    from treerag.retrievers.keyword_tree import derive_from_collection, tree_dir

    quiet_libraries()
    ctx = make_context(data_dir=data_dir, collection=collection)
    with user_errors():
        result = derive_from_collection(ctx, root_name)
    changed = len(getattr(result, "ids", []) or [])
    console.print(
        f"keyword tree at {tree_dir(ctx)}: {changed} records written "
        f"[dim](operation {result.operation_id or 'none: nothing new'})[/]"
    )


def register(kw_app: typer.Typer) -> None:
    """Add the command to the `treerag kw` family."""
    kw_app.command("derive")(derive_command)
