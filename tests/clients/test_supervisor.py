"""examples/supervisor.py routes questions to treerag as a subgraph and as a tool."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from treerag.context import Context

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "supervisor.py"


def load_example():
    spec = importlib.util.spec_from_file_location("treerag_example_supervisor", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    # Registered first, so that pydantic can resolve the module's annotations.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_supervisor_routes_to_treerag_as_subgraph_and_as_tool(data_copy, capsys):
    example = load_example()
    via_subgraph, via_tool = await example.run_demo(Context(data_dir=str(data_copy), max_depth=1))

    assert via_subgraph["route"] == "treerag"
    assert via_subgraph["answer"].startswith("[offline extractive answer]")
    assert via_subgraph["treerag"]["tree_thread_id"] == "supervisor-demo-t1"
    assert via_subgraph["tree_runs"] >= 2  # rebuilt from the supervisor's checkpointer
    # With subgraphs=True the tree events arrive under the subgraph node's namespace.
    assert via_subgraph["events"]["treerag run_started"] >= 2
    assert via_subgraph["events"]["treerag chunk_judged"] >= 5
    assert not any(name.startswith("supervisor") for name in via_subgraph["events"])

    assert via_tool["route"] == "agent"
    [call] = via_tool["tool_calls"]
    assert call["name"] == "search_documents"
    assert call["args"] == {"question": "Which guild built the ship captained by Aldous Brennick?"}
    assert "Sources: [1]" in via_tool["answer"] and "Tidewrights" in via_tool["answer"]
    assert via_tool["events"]["agent run_started"] >= 1
    assert via_tool["events"]["agent answer_finished"] >= 1

    printed = capsys.readouterr().out
    assert "routed to: treerag" in printed and "tool call: search_documents" in printed
