"""Read-only views of a data directory's graphs for a person exploring them.

Two graphs can hold an entity: the passage–entity graph every ingest keeps (an entity is a name
passages share; two entities are linked by the passages that name both) and the entity graph
an extractor built or a user imported (entities joined by typed relations such as "capital").
An entity is looked up by its canonical key (`name_key`: width, case, Traditional →
Simplified), so "奧倫堡" finds the node a Simplified document named "奥伦堡".

Each view opens the passage graph's SQLite file read-only for the one call: a page that
explores never holds a writer's lock or a handle between requests.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from treerag.knowledge_graph.names import entity_names
from treerag.knowledge_graph.passage_graph import MAX_DEGREE, name_key

PASSAGES_SHOWN = 12
"""Passages listed for one entity (or one link); the count says how many there are."""
NEIGHBOURS_SHOWN = 24
"""Neighbours drawn around one entity, most shared passages first: more is unreadable."""
WORLD_PREFIX = "world:"
"""Ids of entities only the entity graph holds (the passage graph names them nowhere)."""


@contextlib.contextmanager
def _reader(path: Path) -> Iterator[sqlite3.Connection | None]:
    if not path.exists():
        yield None
        return
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        yield db
    finally:
        db.close()


def _marks(items: list[Any]) -> str:
    return ",".join("?" * len(items))


def _passages(db: sqlite3.Connection, ids: list[str]) -> list[dict[str, str]]:
    """Passages by id, in the order given: id, title and source."""
    if not ids:
        return []
    rows = db.execute(
        f"select id, title, source from passages where id in ({_marks(ids)})", ids
    ).fetchall()
    found = {i: {"id": i, "title": t, "source": s} for i, t, s in rows}
    return [found[i] for i in ids if i in found]


def _names(db: sqlite3.Connection, node: str) -> list[str]:
    rows = db.execute("select label, kind from names where node = ?", (node,)).fetchall()
    # The node's own name first, aliases (the other script) after.
    return [label for label, kind in sorted(rows, key=lambda r: r[1] == "alias")]


def search(graph_file: Path, world: Any, text: str, limit: int = 20) -> list[dict[str, Any]]:
    """Entities whose name holds `text` (canonical form), an exact name first, then most named.

    Each: id, label, names (both scripts where a document gave both), passages (how many
    passages name it) and where it is held (`graphs`: "passages", "entities").
    """
    key = name_key(text)
    if not key:
        return []
    found: dict[str, dict[str, Any]] = {}
    with _reader(graph_file) as db:
        if db is not None:
            rows = db.execute(
                "select n.node, n.key, count(distinct m.passage) from names n "
                "left join mentions m on m.key = n.node where n.key like ? "
                "group by n.node, n.key",
                (f"%{key}%",),
            ).fetchall()
            for node, name, count in rows:
                entry = found.setdefault(
                    node, {"id": node, "passages": int(count), "exact": False, "graphs": []}
                )
                entry["exact"] = entry["exact"] or name == key
            for node, entry in found.items():
                entry["names"] = _names(db, node)
                entry["label"] = entry["names"][0] if entry["names"] else node
                entry["graphs"].append("passages")
    for entity, keys in _world_matches(world, key):
        hit = next((e for e in found.values() if e["id"] in keys), None)
        if hit is None:
            hit = found.setdefault(
                WORLD_PREFIX + entity.id,
                {
                    "id": WORLD_PREFIX + entity.id,
                    "label": entity.label,
                    "names": entity_names(entity),
                    "passages": len(entity.chunk_ids),
                    "exact": key in keys,
                    "graphs": [],
                },
            )
        hit["graphs"].append("entities")
        hit["type"] = entity.type
    ranked = sorted(found.values(), key=lambda e: (not e["exact"], -e["passages"], e["label"]))
    return [{k: v for k, v in e.items() if k != "exact"} for e in ranked[:limit]]


def _name_keys(world: Any) -> list[tuple[Any, frozenset[str]]]:
    """Every entity of the entity graph with the keys of its names, built once per version.

    A key is a canonical form (OpenCC among its steps): computed per request, a large
    imported graph would convert every name of every entity on each search.
    """
    return world.cached(
        "explore_name_keys",
        lambda: [(e, frozenset(name_key(n) for n in entity_names(e))) for e in world.entities()],
    )


def _world_matches(world: Any, key: str) -> list[tuple[Any, frozenset[str]]]:
    if world is None:
        return []
    return [(e, keys) for e, keys in _name_keys(world) if any(key in k for k in keys)]


def _world_entity(world: Any, node: str, names: list[str]) -> Any | None:
    """The entity-graph entity behind an explorer id (its own id, or one of its names)."""
    if world is None:
        return None
    if node.startswith(WORLD_PREFIX):
        return world.get_entity(node.removeprefix(WORLD_PREFIX))
    wanted = {name_key(n) for n in names} | {node}
    return next((e for e, keys in _name_keys(world) if wanted & keys), None)


def entity(graph_file: Path, world: Any, node: str) -> dict[str, Any] | None:
    """One entity: its names, the passages that name it, and its neighbours with their links.

    A neighbour in the passage graph is linked by the passages that name both (the link's
    label is the first such passage's title); in the entity graph by a relation, labelled
    with the relation phrase and the passages it was read from. None when neither graph
    holds `node`.
    """
    view: dict[str, Any] | None = None
    with _reader(graph_file) as db:
        if db is not None and not node.startswith(WORLD_PREFIX):
            view = _passage_view(db, node)
        world_entity = _world_entity(world, node, view["names"] if view else [])
        if world_entity is not None:
            view = view or {
                "id": node,
                "label": world_entity.label,
                "names": entity_names(world_entity),
                "passage_count": 0,
                "passages": [],
                "neighbours": [],
            }
            view["type"] = world_entity.type
            view["description"] = world_entity.description
            _add_relations(view, world, world_entity, db)
    return view


def _passage_view(db: sqlite3.Connection, node: str) -> dict[str, Any] | None:
    names = _names(db, node)
    if not names:
        return None
    linked = [p for (p,) in db.execute("select passage from mentions where key = ?", (node,))]
    view: dict[str, Any] = {
        "id": node,
        "label": names[0],
        "names": names,
        "passage_count": len(linked),
        "passages": _passages(db, sorted(linked)[:PASSAGES_SHOWN]),
        "neighbours": [],
        # A hub (more passages than the retrieval walks through) links everything to
        # everything: its neighbours say little, so they are not listed.
        "hub": len(linked) > MAX_DEGREE,
    }
    if view["hub"] or not linked:
        return view
    rows = db.execute(
        f"select key, group_concat(passage, char(31)) from mentions where passage in "
        f"({_marks(linked)}) and key != ? group by key order by count(*) desc, key limit ?",
        [*linked, node, NEIGHBOURS_SHOWN],
    ).fetchall()
    for key, joined in rows:
        through = sorted(joined.split("\x1f"))
        shown = _passages(db, through[:PASSAGES_SHOWN])
        names_of = _names(db, key)
        view["neighbours"].append(
            {
                "id": key,
                "label": names_of[0] if names_of else key,
                "link": "passage",
                "relation": f"named together in {shown[0]['title'] or shown[0]['id']}"
                if shown
                else "",
                "passage_count": len(through),
                "passages": shown,
            }
        )
    return view


def _add_relations(view: dict[str, Any], world: Any, found: Any, db: Any) -> None:
    """The entity graph's relations of `found`, as neighbours labelled with their relation."""
    for start, edge, end in world.get_related_edges(found.id) or []:
        other = end if start.id == found.id else start
        other_id = _node_of(db, other)
        ids = sorted(edge.chunk_ids)[:PASSAGES_SHOWN]
        passages = _passages(db, ids) if db is not None else []
        units = {p["id"] for p in passages}
        for unit in ids:
            if unit not in units and (text_unit := world.get_chunk(unit)) is not None:
                passages.append({"id": unit, "title": text_unit.title, "source": ""})
        view["neighbours"].append(
            {
                "id": other_id,
                "label": other.label,
                "link": "relation",
                "relation": edge.label.replace("_", " "),
                "outgoing": start.id == found.id,
                "passage_count": len(edge.chunk_ids),
                "passages": passages,
            }
        )


def _node_of(db: sqlite3.Connection | None, entity: Any) -> str:
    """The passage-graph node of an entity-graph entity, else its entity-graph id."""
    if db is not None:
        for name in entity_names(entity):
            row = db.execute("select node from names where key = ?", (name_key(name),)).fetchone()
            if row:
                return str(row[0])
    return WORLD_PREFIX + entity.id
