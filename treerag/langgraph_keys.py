"""The one LangGraph name treerag needs that LangGraph's public API does not export.

A node is handed its run's checkpointer in its config under `CONFIG_KEY_CHECKPOINTER`, a key
LangGraph keeps in `langgraph._internal._constants`: a sub-run (`nodes/relay.py`) is
checkpointed by the caller's checkpointer under its own thread_id, so it needs the
checkpointer itself.

It is imported here and nowhere else; `tests/foundation/test_langgraph_keys.py` runs a tiny
graph under the installed langgraph (the range in pyproject.toml) and fails, naming this
module, when a release moves or renames it.
"""

from __future__ import annotations

try:
    from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER
except ImportError as exc:  # a langgraph release outside the range treerag is tested with
    raise ImportError(
        "this langgraph release moved CONFIG_KEY_CHECKPOINTER "
        "(treerag.langgraph_keys): install the langgraph range pyproject.toml declares"
    ) from exc

__all__ = ["CONFIG_KEY_CHECKPOINTER"]
