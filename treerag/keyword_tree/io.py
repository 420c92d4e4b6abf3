"""Import and export of trees as JSON, YAML or a markdown outline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml

from treerag.keyword_tree.errors import DuplicateError, InvalidInputError, NotFoundError
from treerag.keyword_tree.indexes import unpack_link
from treerag.keyword_tree.info_ops import stage_create_info, stage_link
from treerag.keyword_tree.keyword_ops import sibling_with_name, stage_create, stage_update
from treerag.keyword_tree.outline import parse_outline, render_outline
from treerag.keyword_tree.results import WriteResult
from treerag.keyword_tree.txn import Txn
from treerag.text import canonical

if TYPE_CHECKING:
    from treerag.keyword_tree.store import KeywordTree

Format = Literal["json", "yaml", "markdown"]
FORMAT_TAG = "treerag-keyword-tree"
OnDuplicate = Literal["merge", "skip", "error"]


def guess_format(path: str | Path) -> Format:
    """Return the format implied by a file extension."""
    suffix = Path(path).suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix in (".md", ".markdown", ".txt"):
        return "markdown"
    if suffix == ".json":
        return "json"
    raise InvalidInputError(f"cannot tell the format of {path}; use .json, .yaml or .md")


# -- export ------------------------------------------------------------------------------------


def _node_spec(store: KeywordTree, node_id: str, *, full: bool) -> dict[str, Any]:
    rec = store.index.nodes[node_id]
    spec: dict[str, Any] = {"name": rec["name"], "description": rec["description"]}
    if full:
        spec = {"id": node_id, **spec, "aliases": list(rec["aliases"]), "metadata": rec["metadata"]}
    spec["children"] = [_node_spec(store, c, full=full) for c in store.index.child_ids(node_id)]
    return spec


def export_data(
    store: KeywordTree, *, root_id: str | None = None, include_infos: bool = False
) -> dict[str, Any]:
    """Return the tree (or the subtree at root_id) as a JSON-ready dict."""
    store.refresh()
    tops = [root_id] if root_id is not None else store.index.child_ids(None)
    if root_id is not None:
        store.get_keyword(root_id)
    data: dict[str, Any] = {"format": FORMAT_TAG, "version": 1}
    data["keywords"] = [_node_spec(store, t, full=True) for t in tops]
    if include_infos:
        covered = {n for t in tops for n in store.index.iter_subtree(t)}
        infos = []
        for info_id in store.index.info_offsets:
            links = store.index.kw_by_info.get(info_id, {})
            if root_id is not None and not covered.intersection(links):
                continue
            rec = store.index.get_info(info_id) or {}
            infos.append(
                {
                    "id": info_id,
                    "content": rec.get("content", ""),
                    "source": rec.get("source", ""),
                    "metadata": rec.get("metadata", {}),
                    "links": [
                        {"keyword_id": k, "relation": unpack_link(packed)[0]}
                        for k, packed in links.items()
                        if k in covered
                    ],
                }
            )
        data["infos"] = infos
    return data


def export_tree(
    store: KeywordTree,
    fmt: Format = "json",
    *,
    root_id: str | None = None,
    include_infos: bool = False,
) -> str:
    """Return the tree as JSON, YAML or a markdown outline (names and descriptions only)."""
    data = export_data(store, root_id=root_id, include_infos=include_infos)
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if fmt == "yaml":
        return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    if fmt == "markdown":
        return render_outline(data["keywords"]) + "\n"
    raise InvalidInputError(f"unknown format {fmt!r}; use json, yaml or markdown")


# -- import ------------------------------------------------------------------------------------


def parse_tree(text: str, fmt: Format) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Parse text into (keyword specs, info specs)."""
    if fmt == "markdown":
        return parse_outline(text), []
    try:
        data = json.loads(text) if fmt == "json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise InvalidInputError(f"not valid {fmt}: {exc}") from exc
    if isinstance(data, dict) and "keywords" in data:
        return [_spec_of(x) for x in data["keywords"] or []], list(data.get("infos") or [])
    return _specs_of(data), []


def _specs_of(data: Any) -> list[dict[str, Any]]:
    """Accept a list of nodes, or a mapping {name: children | description | None}."""
    if data is None:
        return []
    if isinstance(data, list):
        return [_spec_of(item) for item in data]
    if isinstance(data, dict) and "name" in data:
        return [_spec_of(data)]  # a single top keyword: {name, description?, children?}
    if isinstance(data, dict):
        return [_spec_of({name: value}) for name, value in data.items()]
    raise InvalidInputError(f"expected a list or mapping of keywords, got {type(data).__name__}")


def _spec_of(item: Any) -> dict[str, Any]:
    if isinstance(item, str):
        return {"name": item, "children": []}
    if isinstance(item, dict) and "name" in item:
        return {**item, "children": _specs_of(item.get("children"))}
    if isinstance(item, dict) and len(item) == 1:
        ((name, value),) = item.items()
        if isinstance(value, str):
            return {"name": str(name), "description": value, "children": []}
        return {"name": str(name), "children": _specs_of(value)}
    raise InvalidInputError(f"cannot read a keyword from {item!r}")


def import_tree(
    store: KeywordTree,
    source: str | Path,
    fmt: Format | None = None,
    *,
    parent_id: str | None = None,
    on_duplicate: OnDuplicate = "merge",
) -> WriteResult:
    """Import a tree from a file path or text, as one undoable operation.

    Args:
        store: The target store.
        source: A path, or the text itself (then fmt is required).
        fmt: json, yaml or markdown; guessed from the extension for paths.
        parent_id: Graft the imported roots under this keyword.
        on_duplicate: When a same-named keyword exists under the same parent: "merge"
            reuses it (importing twice changes nothing), "skip" leaves that subtree out,
            "error" raises DuplicateError.
    """
    if _is_file(source):
        path = Path(source)
        fmt = fmt or guess_format(path)
        if not path.is_file():
            raise NotFoundError("file", str(path))
        text = path.read_text(encoding="utf-8")
    else:
        text = str(source)
    if fmt is None:
        raise InvalidInputError("pass fmt= when importing from text")
    specs, infos = parse_tree(text, fmt)
    with store._write("import_tree", {"format": fmt, "parent_id": parent_id}) as tx:
        ids: dict[str, str] = {}
        created: list[str] = []
        for spec in specs:
            _import_node(tx, spec, parent_id, on_duplicate, ids, created)
        for info in infos:
            _import_info(tx, info, ids)
        tx.args["created"] = len(created)
    return WriteResult(
        operation_id=tx.op_id if tx.changes() else None,
        kind="import_tree",
        action="imported",
        ids=created,
    )


def _is_file(source: str | Path) -> bool:
    if isinstance(source, Path):
        return True
    if "\n" in source or len(source) > 4096:
        return False
    try:
        return Path(source).is_file()
    except OSError:
        return False


def _import_node(
    tx: Txn,
    spec: dict[str, Any],
    parent_id: str | None,
    on_duplicate: OnDuplicate,
    ids: dict[str, str],
    created: list[str],
) -> None:
    name = str(spec.get("name", "")).strip()
    existing = sibling_with_name(tx.index, parent_id, canonical(name)) if name else None
    if existing is not None:
        if on_duplicate == "error":
            raise DuplicateError(f"{name!r} already exists under the import point", existing)
        if on_duplicate == "skip":
            return
        old = tx.index.nodes[existing]
        patch: dict[str, Any] = {"aliases": [*old["aliases"], *(spec.get("aliases") or [])]}
        if spec.get("description") and not old["description"]:
            patch["description"] = spec["description"]
        stage_update(tx, existing, patch, None)
        node_id = existing
    else:
        wanted = spec.get("id")
        rec = stage_create(
            tx,
            name,
            parent_id=parent_id,
            aliases=spec.get("aliases"),
            description=str(spec.get("description") or ""),
            metadata=spec.get("metadata"),
            node_id=wanted if wanted and wanted not in tx.index.nodes else None,
        )
        node_id = rec["id"]
        created.append(node_id)
    if spec.get("id"):
        ids[str(spec["id"])] = node_id
    for child in spec.get("children") or []:
        _import_node(tx, child, node_id, on_duplicate, ids, created)


def _import_info(tx: Txn, info: dict[str, Any], ids: dict[str, str]) -> None:
    wanted = info.get("id")
    free = wanted if wanted and wanted not in tx.index.info_offsets else None
    rec = stage_create_info(
        tx, str(info.get("content", "")), str(info.get("source", "")), info.get("metadata"), free
    )
    for link in info.get("links") or []:
        keyword_id = ids.get(link.get("keyword_id"), link.get("keyword_id"))
        if keyword_id in tx.index.nodes:
            stage_link(tx, rec["id"], keyword_id, link.get("relation", "RELATED"), "import")
