"""Render a world as a Mermaid flowchart."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from treerag.knowledge_graph.world import World


def _quote(text: str) -> str:
    # Mermaid labels sit in double quotes; its entity code #quot; stands for one inside.
    return '"' + text.replace('"', "#quot;").replace("\n", " ") + '"'


def world_to_mermaid(world: World, max_entities: int | None = None) -> str:
    """Return a ``flowchart LR`` with one box per entity and one labelled arrow per edge."""
    names: dict[str, str] = {}
    lines = ["flowchart LR", "", "    %% Entities"]
    for n, entity in enumerate(world.entities()):
        if max_entities is not None and n >= max_entities:
            break
        # Positional node names: entity ids may hold characters Mermaid does not accept.
        names[entity.id] = f"E{n}"
        lines.append(f"    E{n}[{_quote(f'{entity.label} ({entity.type})')}]")
    lines += ["", "    %% Edges"]
    for edge in world.edges():
        if edge.source in names and edge.target in names:
            src, dst = names[edge.source], names[edge.target]
            lines.append(f"    {src} -- {_quote(edge.label)} --> {dst}")
    return "\n".join(lines)
