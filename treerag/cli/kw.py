"""`treerag kw`: import, show, search and edit the keyword knowledge tree."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.tree import Tree

from treerag import data_layout
from treerag.cli.common import console, counted, err_console, folder_or_fail

if TYPE_CHECKING:
    from treerag.keyword_tree import KeywordTree

app = typer.Typer(
    no_args_is_help=True,
    help="Keyword knowledge tree: derive, import, show, search, edit, reorganize.\n\n"
    "Exit codes: 1 nothing found (search), 2 bad input, 3 not found, "
    "4 conflict (duplicate, cycle, stale version, undo refused), 5 storage problem.",
)

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Store directory (default: $TREERAG_DATA_DIR/keyword_tree, else ./data/keyword_tree).",
    ),
]
Fmt = Literal["json", "yaml", "markdown"]


def store_path(store: Path | None) -> Path:
    """Return --store, or <TREERAG_DATA_DIR or ./data>/keyword_tree."""
    if store is not None:
        return folder_or_fail(store, "--store")
    from treerag.server.tenants import tenant_dir

    data = Path(os.environ.get("TREERAG_DATA_DIR") or "./data").expanduser()
    tree = data_layout.keyword_tree_dir(tenant_dir(data, os.environ.get("TREERAG_TENANT", "")))
    return folder_or_fail(tree, "--store")


def _exit_code(exc: Exception) -> int:
    from treerag.keyword_tree import errors

    for kind, code in (
        (errors.InvalidInputError, 2),
        (errors.NotFoundError, 3),
        (errors.ConflictError, 4),
        (errors.DuplicateError, 4),
        (errors.CycleError, 4),
        (errors.StorageError, 5),
        (errors.CorruptRecordError, 5),
    ):
        if isinstance(exc, kind):
            return code
    return 1


@contextmanager
def opened(store: Path | None, *, must_exist: bool = True) -> Iterator[KeywordTree]:
    """Open the store, turn keyword-tree errors into a message on stderr and an exit code."""
    from treerag.keyword_tree import HeuristicAgent, KeywordTree, KeywordTreeError

    path = store_path(store)
    if must_exist and not data_layout.has_keyword_tree(path):
        err_console.print(
            f"[bold red]error:[/] no keyword tree at {path}; run `treerag kw derive` "
            "(from the ingested documents) or `treerag kw import` first"
        )
        raise typer.Exit(3)
    try:
        tree = KeywordTree(path, agent=HeuristicAgent())
    except (KeywordTreeError, OSError) as exc:
        err_console.print(f"[bold red]error:[/] cannot open {path}: {exc}", highlight=False)
        raise typer.Exit(5) from exc
    for issue in tree.issues:
        err_console.print(f"[yellow]warning:[/] {issue}", highlight=False)
    try:
        yield tree
    except KeywordTreeError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(_exit_code(exc)) from exc
    finally:
        tree.close()


def resolve(tree: KeywordTree, ref: str) -> str:
    """Accept a keyword id or a name that matches exactly one keyword."""
    from treerag.keyword_tree import InvalidInputError, NotFoundError

    if tree.has_keyword(ref):
        return ref
    ids = tree.exact_ids(ref)
    if not ids:
        raise NotFoundError("keyword", ref, "give an id or an exact name")
    if len(ids) > 1:
        paths = ["/".join(n.name for n in tree.get_path(i)) + f" ({i})" for i in ids]
        raise InvalidInputError(f"{ref!r} names {len(ids)} keywords: {'; '.join(paths)}; use an id")
    return ids[0]


def report_done(result: Any, what: str) -> None:
    """Print what a write did and the operation id that `treerag kw undo` takes."""
    op = f" [dim](operation {result.operation_id})[/]" if result.operation_id else " (no change)"
    console.print(f"{what}{op}", highlight=False)


@app.command("import")
def import_(
    file: Annotated[
        Path, typer.Argument(help="A .json, .yaml/.yml or .md outline file.", exists=True)
    ],
    fmt: Annotated[
        Fmt | None, typer.Option("--format", help="Override the format guessed from the extension.")
    ] = None,
    parent: Annotated[
        str | None, typer.Option(help="Graft under this keyword (id or name).")
    ] = None,
    on_duplicate: Annotated[
        Literal["merge", "skip", "error"], typer.Option(help="Same name under the same parent.")
    ] = "merge",
    store: StoreOption = None,
) -> None:
    """Import a tree (nested JSON/YAML, or markdown bullets/headings with "name: description")."""
    with opened(store, must_exist=False) as tree:
        parent_id = resolve(tree, parent) if parent else None
        result = tree.import_tree(file, fmt, parent_id=parent_id, on_duplicate=on_duplicate)
        report_done(result, f"imported {len(result.ids)} new keywords from {file}")


@app.command()
def export(
    fmt: Annotated[Fmt, typer.Option("--format", help="Output format.")] = "json",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
    root: Annotated[str | None, typer.Option(help="Only this subtree (id or name).")] = None,
    infos: Annotated[
        bool, typer.Option("--infos", help="Include infos and links (JSON/YAML).")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Export the tree; markdown keeps names and descriptions only."""
    with opened(store) as tree:
        root_id = resolve(tree, root) if root else None
        text = tree.export_tree(fmt, root_id=root_id, include_infos=infos)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        console.print(f"wrote {output}")


@app.command()
def show(
    ref: Annotated[str | None, typer.Argument(help="Start at this keyword (id or name).")] = None,
    depth: Annotated[int, typer.Option(help="Levels to print.")] = 4,
    ids: Annotated[bool, typer.Option("--ids", help="Print ids next to names.")] = False,
    store: StoreOption = None,
) -> None:
    """Print the tree (or a subtree) with descriptions and info counts."""
    with opened(store) as tree:
        top = Tree(f"[bold]{store_path(store)}[/]")
        starts = [resolve(tree, ref)] if ref else [n.id for n in tree.get_roots()]
        for node_id in starts:
            _grow(tree, top, node_id, depth, ids)
        console.print(top)
        counts = tree.counts()
        console.print(
            f"{counted(counts['keywords'], 'keyword')}, {counted(counts['infos'], 'chunk')}, "
            f"{counted(counts['links'], 'link')}"
        )


def _grow(tree: KeywordTree, branch: Tree, node_id: str, depth: int, ids: bool) -> None:
    node = tree.get_keyword(node_id)
    infos = len(tree.index.info_by_kw.get(node_id, {}))
    label = f"[bold]{node.name}[/]" + (f" [dim]{node.id}[/]" if ids else "")
    label += f" [cyan]({counted(infos, 'chunk')})[/]" if infos else ""
    label += f" — {node.description}" if node.description else ""
    sub = branch.add(label, highlight=False)
    if depth <= 1 and node.children:
        sub.add(f"[dim]… {len(node.children)} more[/]")
        return
    for child in node.children:
        _grow(tree, sub, child, depth - 1, ids)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="A keyword or a question.")],
    no_agent: Annotated[bool, typer.Option("--no-agent", help="Exact lookup only.")] = False,
    relation: Annotated[
        str | None, typer.Option(help="Only infos linked as PRIMARY or RELATED.")
    ] = None,
    size: Annotated[int, typer.Option(help="Infos to show.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    store: StoreOption = None,
) -> None:
    """Search (exact lookup, then descent with the offline heuristic agent)."""
    with opened(store) as tree:
        result = tree.search(query, use_agent=not no_agent, relation=relation, size=size)
    if as_json:
        typer.echo(json.dumps(asdict(result), ensure_ascii=False, indent=2, default=str))
        return
    if result.kind == "matched":
        console.print(
            "[green]matched[/] "
            + " > ".join(n.name for n in result.path)
            + f" [dim]via {result.via}[/]"
        )
        for hit in result.infos.items if result.infos else []:
            console.print(f"  [{hit.relation}] {hit.info.content[:200]}", highlight=False)
    elif result.kind == "ambiguous":
        console.print(f"[yellow]ambiguous[/]: {result.reason}")
        for node in result.candidates:
            console.print(f"  {node.id}  {node.name} — {node.description}", highlight=False)
    else:
        console.print(not_found_sentence(query, result), highlight=False)
        raise typer.Exit(1)


def not_found_sentence(query: str, result: Any) -> str:
    """Say why a search found nothing and where a keyword for it would go, as sentences."""
    where = result.suggested_parent.name if result.suggested_parent else "the top of the tree"
    why = f"the search stopped: {result.error}" if result.error else result.reason
    return (
        f"[red]Not found:[/] no keyword matches {query!r} ({why}). "
        f"A keyword for it would go under {where}."
    )


@app.command()
def add(
    name: Annotated[str, typer.Argument(help="The new keyword's name.")],
    parent: Annotated[
        str | None, typer.Option(help="Parent (id or name); omit with --place.")
    ] = None,
    description: Annotated[str, typer.Option(help="What it covers (helps descent).")] = "",
    alias: Annotated[list[str] | None, typer.Option(help="Another name (repeatable).")] = None,
    place: Annotated[
        bool, typer.Option("--place", help="Let the heuristic agent choose the parent.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Add a keyword (a root unless --parent or --place)."""
    with opened(store, must_exist=False) as tree:
        parent_id = resolve(tree, parent) if parent else None
        result = tree.create_keyword(
            name, parent_id=parent_id, aliases=alias, description=description, use_agent=place
        )
        node = result.node
        assert node is not None  # a create returns the created (or matched) keyword
        path = " > ".join(n.name for n in tree.get_path(node.id))
        report_done(result, f"{result.action}: {path} [dim]{node.id}[/]")


@app.command()
def move(
    ref: Annotated[str, typer.Argument(help="Keyword to move (id or name).")],
    parent: Annotated[
        str | None, typer.Argument(help="New parent (id or name); omit with --top.")
    ] = None,
    top: Annotated[bool, typer.Option("--top", help="Make it a root.")] = False,
    store: StoreOption = None,
) -> None:
    """Move a keyword and its subtree."""
    if (parent is None) != top:
        err_console.print("[bold red]error:[/] give a new parent or --top (not both)")
        raise typer.Exit(2)
    with opened(store) as tree:
        node_id = resolve(tree, ref)
        result = tree.move_keyword(node_id, resolve(tree, parent) if parent else None)
        report_done(result, "moved: " + " > ".join(n.name for n in tree.get_path(node_id)))


@app.command()
def merge(
    src: Annotated[str, typer.Argument(help="Keyword that disappears (id or name).")],
    dst: Annotated[str, typer.Argument(help="Keyword that stays (id or name).")],
    flatten: Annotated[
        bool, typer.Option("--flatten", help="Put all of src's descendants directly under dst.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Merge SRC into DST: aliases, infos and children move over."""
    with opened(store) as tree:
        result = tree.merge_keywords(
            resolve(tree, src), resolve(tree, dst), children="flatten" if flatten else "reattach"
        )
        report_done(result, f"merged into {result.node.name if result.node else dst}")


@app.command()
def delete(
    ref: Annotated[str, typer.Argument(help="Keyword (id or name).")],
    cascade: Annotated[
        bool, typer.Option("--cascade", help="Also delete its descendants.")
    ] = False,
    infos: Annotated[
        Literal["forbid", "reattach", "unlink"], typer.Option(help="What happens to linked infos.")
    ] = "reattach",
    store: StoreOption = None,
) -> None:
    """Delete a keyword (soft: undo brings it back)."""
    with opened(store) as tree:
        result = tree.delete_keyword(resolve(tree, ref), cascade=cascade, info_policy=infos)
        report_done(result, f"deleted {len(result.ids)} keywords")


def register(root: typer.Typer) -> None:
    """Add `treerag kw`, with its build and maintenance commands, to the root app."""
    root.add_typer(app, name="kw")


# The build and maintenance commands live in their own modules; they import this one's helpers.
from treerag.cli import kw_build, kw_maintenance  # noqa: E402

kw_build.register(app)
kw_maintenance.register(app)
