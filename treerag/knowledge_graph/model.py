"""World-model records: entities, edges, text units and search results (seed 01)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any, TypeAlias

# Attribute keys whose latest value names the entity or the relation when no explicit
# name/relation is set: the seed 01 example keeps names in attributes ("名字", "关系").
NAME_KEYS = ("name", "名字", "名称", "姓名")
RELATION_KEYS = ("relation", "关系")

Attributes: TypeAlias = dict[str, list["AttributeValue"]]


def new_id() -> str:
    """Return a fresh random id."""
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class AttributeValue:
    """One value of an attribute together with the time it holds, in words (seed 01)."""

    value: str
    timestamp_desc: str = ""


def _check_importance(kind: str, ident: str, importance: float) -> None:
    if not 0.0 <= importance <= 1.0:
        raise ValueError(f"{kind} {ident!r}: importance must be in [0, 1], got {importance}")


def _latest(attributes: Attributes, keys: tuple[str, ...]) -> str:
    for key in keys:
        values = attributes.get(key)
        if values:
            return values[-1].value
    return ""


@dataclass(kw_only=True, slots=True)
class Entity:
    """A node of the world: a typed thing whose attributes keep every value they had."""

    name: str = ""
    type: str = "entity"
    description: str = ""
    attributes: Attributes = field(default_factory=dict)
    importance: float = 0.5
    chunk_ids: list[str] = field(default_factory=list)
    """Text units (chunks) that mention this entity."""
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    last_accessed_at: float | None = None
    id: str = field(default_factory=new_id)

    def __post_init__(self) -> None:
        if not self.id:
            raise ValueError("entity id must not be empty")
        _check_importance("entity", self.id, self.importance)

    @property
    def label(self) -> str:
        """Return the display name: the name, else the latest name attribute, else the id."""
        return self.name or _latest(self.attributes, NAME_KEYS) or self.id


@dataclass(kw_only=True, slots=True)
class Edge:
    """A directed, typed relation between two entities."""

    source: str
    target: str
    type: str = "default"
    """Edge type; seed 04 §4.2 weighs reference, attribute, has_property, relation, temporal."""
    relation: str = ""
    """Short relation phrase such as "member of"."""
    description: str = ""
    attributes: Attributes = field(default_factory=dict)
    importance: float = 0.5
    chunk_ids: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    id: str = field(default_factory=new_id)

    def __post_init__(self) -> None:
        if not self.id:
            raise ValueError("edge id must not be empty")
        _check_importance("edge", self.id, self.importance)

    @property
    def label(self) -> str:
        """Return the relation phrase, else the latest relation attribute, else the type."""
        return self.relation or _latest(self.attributes, RELATION_KEYS) or self.type


@dataclass(kw_only=True, slots=True)
class TextUnit:
    """A chunk of source text that entities are linked to (seed 05's text units)."""

    id: str
    text: str
    title: str = ""
    importance: float = 0.5
    created_at: float = field(default_factory=time.time)
    last_accessed_at: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SearchResultEntity:
    """An entity found by vector search; a larger score is more similar."""

    id: str
    type: str
    name: str
    attributes: Attributes
    score: float

    @classmethod
    def of(cls, entity: Entity, score: float) -> SearchResultEntity:
        """Return the search result for an entity."""
        return cls(entity.id, entity.type, entity.label, entity.attributes, score)


@dataclass(frozen=True, slots=True)
class SearchResultEdge:
    """An edge found by vector search; a larger score is more similar."""

    id: str
    source: str
    target: str
    type: str
    relation: str
    attributes: Attributes
    score: float

    @classmethod
    def of(cls, edge: Edge, score: float) -> SearchResultEdge:
        """Return the search result for an edge."""
        return cls(edge.id, edge.source, edge.target, edge.type, edge.label, edge.attributes, score)


SearchResult: TypeAlias = SearchResultEntity | SearchResultEdge


def attributes_text(attributes: Attributes, sep: str = "\n") -> str:
    """Return attributes as "key: value (time); value (time)" lines joined by sep."""
    return sep.join(
        f"{key}: " + "; ".join(_value_text(v) for v in values) for key, values in attributes.items()
    )


def _value_text(value: AttributeValue) -> str:
    return f"{value.value} ({value.timestamp_desc})" if value.timestamp_desc else value.value


def entity_text(entity: Entity) -> str:
    """Return the text embedded for an entity: name, type, description, attributes."""
    parts = [
        f"{entity.label} ({entity.type})",
        entity.description,
        attributes_text(entity.attributes),
    ]
    return "\n".join(p for p in parts if p)


def edge_text(edge: Edge, source_label: str, target_label: str) -> str:
    """Return the text embedded for an edge: both ends, the relation, its attributes."""
    parts = [
        f"{source_label} {edge.label} {target_label}",
        edge.description,
        attributes_text(edge.attributes),
    ]
    return "\n".join(p for p in parts if p)


# --- plain-dict forms, used by storage and import -------------------------------------------


def attributes_to_dict(attributes: Attributes) -> dict[str, list[dict[str, str]]]:
    """Return attributes as JSON-ready lists of {value, timestamp_desc}."""
    return {
        key: [{"value": v.value, "timestamp_desc": v.timestamp_desc} for v in values]
        for key, values in attributes.items()
    }


def attributes_from_dict(data: dict[str, Any]) -> Attributes:
    """Build attributes from JSON lists; a bare string stands for one value without a time."""
    out: Attributes = {}
    for key, values in data.items():
        if isinstance(values, str):
            out[key] = [AttributeValue(values)]
        else:
            out[key] = [
                AttributeValue(str(v["value"]), str(v.get("timestamp_desc", ""))) for v in values
            ]
    return out


def entity_to_dict(entity: Entity) -> dict[str, Any]:
    """Return a JSON-ready dict of an entity."""
    return {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "description": entity.description,
        "attributes": attributes_to_dict(entity.attributes),
        "importance": entity.importance,
        "chunk_ids": list(entity.chunk_ids),
        "metadata": dict(entity.metadata),
        "created_at": entity.created_at,
        "last_accessed_at": entity.last_accessed_at,
    }


def edge_to_dict(edge: Edge) -> dict[str, Any]:
    """Return a JSON-ready dict of an edge."""
    return {
        "id": edge.id,
        "source": edge.source,
        "target": edge.target,
        "type": edge.type,
        "relation": edge.relation,
        "description": edge.description,
        "attributes": attributes_to_dict(edge.attributes),
        "importance": edge.importance,
        "chunk_ids": list(edge.chunk_ids),
        "metadata": dict(edge.metadata),
        "created_at": edge.created_at,
    }


def text_unit_to_dict(unit: TextUnit) -> dict[str, Any]:
    """Return a JSON-ready dict of a text unit."""
    return {
        "id": unit.id,
        "text": unit.text,
        "title": unit.title,
        "importance": unit.importance,
        "created_at": unit.created_at,
        "last_accessed_at": unit.last_accessed_at,
        "metadata": dict(unit.metadata),
    }


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def entity_from_dict(data: dict[str, Any]) -> Entity:
    """Build an entity from the dict form written by entity_to_dict."""
    return Entity(
        id=str(data["id"]),
        name=str(data.get("name", "")),
        type=str(data.get("type", "entity")),
        description=str(data.get("description", "")),
        attributes=attributes_from_dict(data.get("attributes") or {}),
        importance=float(data.get("importance", 0.5)),
        chunk_ids=[str(c) for c in data.get("chunk_ids") or []],
        metadata=dict(data.get("metadata") or {}),
        created_at=float(data.get("created_at") or 0.0),
        last_accessed_at=_opt_float(data.get("last_accessed_at")),
    )


def edge_from_dict(data: dict[str, Any]) -> Edge:
    """Build an edge from the dict form written by edge_to_dict."""
    return Edge(
        id=str(data["id"]),
        source=str(data["source"]),
        target=str(data["target"]),
        type=str(data.get("type", "default")),
        relation=str(data.get("relation", "")),
        description=str(data.get("description", "")),
        attributes=attributes_from_dict(data.get("attributes") or {}),
        importance=float(data.get("importance", 0.5)),
        chunk_ids=[str(c) for c in data.get("chunk_ids") or []],
        metadata=dict(data.get("metadata") or {}),
        created_at=float(data.get("created_at") or 0.0),
    )


def text_unit_from_dict(data: dict[str, Any]) -> TextUnit:
    """Build a text unit from the dict form written by text_unit_to_dict."""
    return TextUnit(
        id=str(data["id"]),
        text=str(data["text"]),
        title=str(data.get("title", "")),
        importance=float(data.get("importance", 0.5)),
        created_at=float(data.get("created_at") or 0.0),
        last_accessed_at=_opt_float(data.get("last_accessed_at")),
        metadata=dict(data.get("metadata") or {}),
    )
