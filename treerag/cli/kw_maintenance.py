"""`treerag kw undo | metrics | compact | snapshot | restore`: the store's upkeep commands."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from treerag.cli.common import console, err_console
from treerag.cli.kw import StoreOption, opened, report_done


def undo(
    operation: Annotated[str | None, typer.Argument(help="Operation id (see --list).")] = None,
    last: Annotated[bool, typer.Option("--last", help="Undo the most recent operation.")] = False,
    list_: Annotated[bool, typer.Option("--list", help="List recent operations.")] = False,
    store: StoreOption = None,
) -> None:
    """Undo an operation, or list recent ones."""
    with opened(store) as tree:
        history = tree.history(15)
        if list_ or (operation is None and not last):
            for op in history:
                console.print(
                    f"{op['op_id']}  {op['ts'][:19]}  {op['kind']}  {op['changes']} changes",
                    highlight=False,
                )
            return
        target = operation or (history[0]["op_id"] if history else None)
        if target is None:
            err_console.print("[bold red]error:[/] nothing to undo")
            raise typer.Exit(3)
        report_done(tree.undo(target), f"undid {target}")


def metrics(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    store: StoreOption = None,
) -> None:
    """Tree health: orphans, empty leaves, missing descriptions, depth, branching."""
    with opened(store) as tree:
        m = asdict(tree.tree_metrics())
    if as_json:
        typer.echo(json.dumps(m, ensure_ascii=False, indent=2))
        return
    for key, value in m.items():
        if not key.endswith("sample"):
            console.print(f"{key:26} {value}", highlight=False)


def compact(store: StoreOption = None) -> None:
    """Rewrite the JSONL files without old versions and deleted records."""
    with opened(store) as tree:
        report = tree.compact_storage()
    console.print(
        f"{report.bytes_before:,} → {report.bytes_after:,} bytes in {report.seconds:.2f}s"
    )


def snapshot(
    list_: Annotated[
        bool, typer.Option("--list", help="List the snapshots instead (auto = periodic).")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Write snapshots/snapshot_<ts>.tar.gz and print ts, or list the snapshots."""
    with opened(store) as tree:
        if not list_:
            typer.echo(tree.snapshot())
            return
        from treerag.keyword_tree.upkeep import read_marks

        automatic = set(read_marks(tree.path).auto_snapshots)
        for ts in tree.list_snapshots():
            typer.echo(f"{ts}  {'auto' if ts in automatic else 'manual'}")


def restore(
    ts: Annotated[str, typer.Argument(help='Snapshot timestamp, file name, or "latest".')],
    store: StoreOption = None,
) -> None:
    """Restore a snapshot (the current state is snapshotted first)."""
    with opened(store) as tree:
        safety = tree.restore(ts)
    console.print(f"restored {ts}; the previous state is snapshot {safety}")


def register(kw_app: typer.Typer) -> None:
    """Add the commands to the `treerag kw` family."""
    for command in (undo, metrics, compact, snapshot, restore):
        kw_app.command()(command)
