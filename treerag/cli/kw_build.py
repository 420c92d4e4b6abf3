"""`treerag kw derive` and `treerag kw reorganize`: build and tidy the keyword tree."""

from __future__ import annotations

import typer

from treerag.cli.common import (
    CollectionOption,
    DataDirOption,
    console,
    fail,
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
    console.print(derive_summary(str(tree_dir(ctx)), result.detail, result.operation_id))


def derive_summary(where: str, detail: dict, operation_id: str | None) -> str:
    """Say in one sentence what `kw derive` wrote, from its counts of created/updated records."""
    if not operation_id:
        chunks = detail.get("chunks", 0)
        return f"Keyword tree at {where}: nothing new; its {chunks:,} chunks were already linked."
    parts = [
        f"{detail.get(f'{kind}_{change}', 0):,} {name} {change}"
        for kind, name in (("node", "keywords"), ("info", "chunks"), ("link", "links"))
        for change in ("created", "updated")
        if detail.get(f"{kind}_{change}")
    ]
    return (
        f"Keyword tree at {where}: {', '.join(parts)} "
        f"[dim](operation {operation_id}; undo with `treerag kw undo`)[/]."
    )


def reorganize_command(
    apply: bool = typer.Option(False, "--apply", help="Apply the plan (one undoable operation)."),
    scope: str = typer.Option(None, "--scope", help="Keyword id of the subtree (default: all)."),
    data_dir: str = DataDirOption,
) -> None:
    """Propose a reorganization plan (rules, plus the chat model's review when one is set).

    Prints the plan; with --apply, applies it as one operation that `treerag kw undo` reverts.
    Without a chat model only the rules run (orphans to the top, same-named siblings merged).
    """
    from treerag.reasoning import get_reasoner
    from treerag.retrievers.keyword_tree import open_tree, tree_dir

    quiet_libraries()
    ctx = make_context(data_dir=data_dir)
    tree = open_tree(ctx)
    if tree is None:
        fail(f"no keyword tree at {tree_dir(ctx)}: run `treerag kw derive` or `kw import` first")
    reasoner = get_reasoner(ctx)
    agent = None if reasoner.offline else reasoner.keyword_agent()
    with user_errors():
        plan = tree.reorganize(scope, agent=agent)
    if not plan.steps:
        console.print("the tree needs no changes")
        return
    for i, step in enumerate(plan.steps, 1):
        what = " ".join(
            f"{k}={v}"
            for k, v in step.model_dump(exclude_none=True).items()
            if k not in ("reason", "patch") and v
        )
        console.print(f"{i}. {what} [dim]{step.reason}[/]", highlight=False)
    if apply:
        result = tree.apply_reorganize_plan(plan)
        console.print(
            f"applied [dim](operation {result.operation_id}; `treerag kw undo` reverts)[/]"
        )
    else:
        console.print("[dim]review the plan, then run again with --apply[/]")


def register(kw_app: typer.Typer) -> None:
    """Add the commands to the `treerag kw` family."""
    kw_app.command("derive")(derive_command)
    kw_app.command("reorganize")(reorganize_command)
