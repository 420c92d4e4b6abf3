"""The README's picture of a run and its list of stream events follow the code."""

from __future__ import annotations

import re
from pathlib import Path

from treerag.graphs.rag import builder

ROOT = Path(__file__).resolve().parents[2]


def _section(title: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(f"## {title}")
    return readme[start : readme.index("\n## ", start + 1)]


def test_the_flow_names_every_node_of_the_graph():
    flow = _section("How a question is answered").split("```")[1]
    nodes = set(builder.compile().get_graph().nodes) - {"__start__", "__end__"}
    missing = sorted(n for n in nodes if n not in flow)
    assert not missing, f"the README's flow leaves out {missing}"


def test_the_event_list_names_every_event_the_nodes_emit():
    emitted: set[str] = set()
    for path in (ROOT / "treerag").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        emitted |= set(re.findall(r"\bemit\(\s*\"([a-z_]+)\"", text))
    assert {"run_started", "chunk_judged", "answer_finished"} <= emitted  # the scan works
    listed = set(re.findall(r"`([a-z_]+)`", _section("How a question is answered")))
    missing = sorted(emitted - listed)
    assert not missing, f"the README's event list leaves out {missing}"
