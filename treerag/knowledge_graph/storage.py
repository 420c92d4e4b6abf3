"""Save and load a world as files in a directory, each written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

from treerag.data_layout import COMMUNITIES_FILE, VECTORS_FILE, WORLD_FILE
from treerag.knowledge_graph.embedding import Embed, embed_checked
from treerag.knowledge_graph.errors import GraphFormatError
from treerag.knowledge_graph.model import (
    edge_from_dict,
    edge_text,
    edge_to_dict,
    entity_from_dict,
    entity_text,
    entity_to_dict,
    text_unit_from_dict,
    text_unit_to_dict,
)
from treerag.knowledge_graph.vectors import NumpyVectorIndex, VectorIndex
from treerag.knowledge_graph.world import World

FORMAT = "treerag-knowledge-graph/1"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write bytes to path through a temp file in the same directory and os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def world_to_dict(world: World) -> dict[str, Any]:
    """Return the JSON-ready form of a world (also accepted by the importer)."""
    return {
        "format": FORMAT,
        "embed_id": world.embed_id,
        "entities": [entity_to_dict(e) for e in world.entities()],
        "edges": [edge_to_dict(e) for e in world.edges()],
        "chunks": [text_unit_to_dict(c) for c in world.chunks()],
    }


def save_world(world: World, directory: str | Path) -> None:
    """Write world.json (+ vectors.npz for the numpy index, + communities.json if computed)."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    payload = orjson.dumps(world_to_dict(world), option=orjson.OPT_INDENT_2)
    atomic_write_bytes(root / WORLD_FILE, payload)
    if isinstance(world.index, NumpyVectorIndex):
        world.index.save(root / VECTORS_FILE)
    communities = world.peek_cached("communities")
    if communities is not None:
        atomic_write_bytes(root / COMMUNITIES_FILE, orjson.dumps(communities.to_dict()))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise GraphFormatError(f"{path}: no saved graph here (run an import first)") from None
    except orjson.JSONDecodeError as exc:
        raise GraphFormatError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GraphFormatError(f"{path}: unknown format {data.get('format')!r}; want {FORMAT!r}")
    return data


def load_world(
    directory: str | Path,
    embed: Embed | None = None,
    *,
    index: VectorIndex | None = None,
    embed_id: str | None = None,
) -> World:
    """Read a world written by save_world.

    Vectors come from ``index`` (e.g. a Milvus collection) or from vectors.npz. When an
    embed function is given whose id differs from the one the vectors were made with, every
    vector is recomputed; otherwise only the missing ones are.
    """
    root = Path(directory)
    data = _read_json(root / WORLD_FILE)
    stored_id = str(data.get("embed_id", ""))
    world = World(embed, index=index, embed_id=embed_id)
    stale = embed is not None and bool(stored_id) and world.embed_id != stored_id
    if index is None and (root / VECTORS_FILE).exists() and not stale:
        world.index = NumpyVectorIndex.load(root / VECTORS_FILE)
    if embed is None:
        world.embed_id = stored_id
    try:
        entities = [entity_from_dict(d) for d in data.get("entities", [])]
        edges = [edge_from_dict(d) for d in data.get("edges", [])]
        chunks = [text_unit_from_dict(d) for d in data.get("chunks", [])]
    except (KeyError, TypeError, ValueError) as exc:
        raise GraphFormatError(f"{root / WORLD_FILE}: bad record ({exc})") from None
    world.restore(entities, edges, chunks)
    if embed is not None:
        _embed_missing(world, embed, recompute_all=stale)
    _load_communities(world, root / COMMUNITIES_FILE)
    return world


def _embed_missing(world: World, embed: Embed, *, recompute_all: bool) -> None:
    """Compute the vectors the index lacks (all of them after an embedder change)."""
    entity_ids = [e.id for e in world.entities()]
    edge_ids = [e.id for e in world.edges()]
    if not recompute_all and len(world.index) == len(entity_ids) + len(edge_ids):
        return  # fast path: the index is complete
    for ids, kind in ((entity_ids, "entity"), (edge_ids, "edge")):
        if recompute_all:
            missing = ids
        else:
            found = set(world.index.fetch(ids)[0])
            missing = [i for i in ids if i not in found]
        if not missing:
            continue
        if kind == "entity":
            texts = [entity_text(world.get_entity(i)) for i in missing]  # type: ignore[arg-type]
        else:
            texts = [_edge_text(world, i) for i in missing]
        world.index.upsert(missing, embed_checked(embed, texts), [kind] * len(missing))
        world.vectors_recomputed += len(missing)


def _edge_text(world: World, edge_id: str) -> str:
    edge = world.get_edge(edge_id)
    assert edge is not None
    src, dst = world.get_entity(edge.source), world.get_entity(edge.target)
    assert src is not None and dst is not None
    return edge_text(edge, src.label, dst.label)


def _load_communities(world: World, path: Path) -> None:
    if not path.exists():
        return
    from treerag.knowledge_graph.communities import CommunityIndex, graph_fingerprint

    try:
        saved = CommunityIndex.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError):
        return  # a stale or damaged cache is recomputed on demand
    if saved.fingerprint == graph_fingerprint(world):
        world.put_cached("communities", saved)
