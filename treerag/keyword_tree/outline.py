"""Markdown outlines: nested ``-`` bullets and/or ``#`` headings, ``name: description``."""

from __future__ import annotations

import re
from typing import Any

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^([ \t]*)[-*+]\s+(.*?)\s*$")
_SPLIT = re.compile(r":\s+|：\s*")


def _spec(text: str) -> dict[str, Any]:
    """Split "name: description" (ASCII colon + space, or a full-width colon)."""
    parts = _SPLIT.split(text.strip(), maxsplit=1)
    name = parts[0].strip().strip("*_`").strip()
    description = parts[1].strip() if len(parts) > 1 else ""
    return {"name": name, "description": description, "children": []}


def _indent_width(prefix: str) -> int:
    return len(prefix.replace("\t", "    "))


def parse_outline(text: str) -> list[dict[str, Any]]:
    """Parse a markdown outline into nested specs ({name, description, children}).

    Headings nest by their level; bullets nest by indentation and sit below the last
    heading. Plain lines after an item extend its description. Fenced code is skipped.
    """
    roots: list[dict[str, Any]] = []
    stack: list[tuple[int, dict[str, Any]]] = []
    heading_level = 0
    last: dict[str, Any] | None = None
    in_fence = False
    for raw in text.splitlines():
        if raw.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or not raw.strip():
            continue
        heading, bullet = _HEADING.match(raw), _BULLET.match(raw)
        if heading:
            heading_level = len(heading.group(1))
            key, spec = heading_level * 1000, _spec(heading.group(2))
        elif bullet:
            key = heading_level * 1000 + 1 + _indent_width(bullet.group(1))
            spec = _spec(bullet.group(2))
        else:
            if last is not None:
                last["description"] = " ".join(filter(None, [last["description"], raw.strip()]))
            continue
        if not spec["name"]:
            continue
        while stack and stack[-1][0] >= key:
            stack.pop()
        (stack[-1][1]["children"] if stack else roots).append(spec)
        stack.append((key, spec))
        last = spec
    return roots


def render_outline(specs: list[dict[str, Any]], indent: int = 0) -> str:
    """Render nested specs as ``- name: description`` bullets, two spaces per level."""
    lines: list[str] = []
    for spec in specs:
        desc = " ".join(str(spec.get("description") or "").split())
        lines.append(f"{'  ' * indent}- {spec['name']}" + (f": {desc}" if desc else ""))
        children = spec.get("children") or []
        if children:
            lines.append(render_outline(children, indent + 1))
    return "\n".join(lines)
