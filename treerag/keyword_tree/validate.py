"""Argument checks shared by the write operations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from treerag.keyword_tree.errors import InvalidInputError
from treerag.keyword_tree.jsonl import dumps
from treerag.text import canonical

MAX_NAME = 200


def check_name(name: object, what: str = "name") -> str:
    """Return name stripped, or raise if it is empty, too long or has line breaks."""
    if not isinstance(name, str):
        raise InvalidInputError(f"{what} must be a string, got {type(name).__name__}")
    text = name.strip()
    if not text or not canonical(text):
        raise InvalidInputError(f"{what} {name!r} has no letters or digits")
    if len(text) > MAX_NAME:
        raise InvalidInputError(f"{what} is {len(text)} characters long; at most {MAX_NAME}")
    if "\n" in text or "\r" in text:
        raise InvalidInputError(f"{what} {name!r} contains a line break")
    return text


def check_aliases(aliases: Iterable[str] | None, name: str) -> list[str]:
    """Return aliases stripped and deduplicated by canonical form, without the name itself."""
    if aliases is None:
        return []
    if isinstance(aliases, str):
        raise InvalidInputError("aliases must be a list of strings, not one string")
    seen = {canonical(name)}
    out = []
    for alias in aliases:
        text = check_name(alias, "alias")
        key = canonical(text)
        if key not in seen:
            seen.add(key)
            out.append(text)
    return out


def check_text(value: object, what: str) -> str:
    """Return value if it is a string."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}")
    return value


def check_label(value: object, what: str) -> str:
    """Return a one-line label (no tabs or line breaks: links pack their fields with tabs)."""
    text = check_text(value, what)
    if any(ch in text for ch in "\t\n\r"):
        raise InvalidInputError(f"{what} {value!r} must not contain tabs or line breaks")
    return text


def check_metadata(value: object) -> dict[str, Any]:
    """Return a JSON-serializable dict (a deep copy through JSON)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError(f"metadata must be a dict, got {type(value).__name__}")
    result: dict[str, Any] = orjson.loads(dumps(value))
    return result


def check_id(value: object, what: str) -> str:
    """Return a usable id: a non-empty string without whitespace."""
    if not isinstance(value, str) or not value or any(ch.isspace() for ch in value):
        raise InvalidInputError(f"{what} {value!r} must be a non-empty string without spaces")
    return value


def check_choice(value: str, choices: tuple[str, ...], what: str) -> str:
    """Return value if it is one of choices."""
    if value not in choices:
        raise InvalidInputError(f"{what} must be one of {', '.join(choices)}; got {value!r}")
    return value
