"""The two LangGraph names treerag needs that LangGraph's public API does not export.

A node is handed its run's checkpointer and runtime (whose `context` holds the run's
`Context`) in its config under keys LangGraph keeps in `langgraph._internal._constants`:

- `CONFIG_KEY_CHECKPOINTER`: a sub-run (`nodes/relay.py`) is checkpointed by the caller's
  checkpointer under its own thread_id, so it needs the checkpointer itself;
- `CONFIG_KEY_RUNTIME`: the server's checkpointer mirror (`history.py`) reads the run's
  settings from a checkpoint write's config, where no node is running to ask `get_runtime`.

They are imported here and nowhere else; `tests/foundation/test_langgraph_keys.py` runs a tiny
graph under the installed langgraph (the range in pyproject.toml) and fails, naming this
module, when a release moves or renames them.
"""

from __future__ import annotations

try:
    from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_RUNTIME
except ImportError as exc:  # a langgraph release outside the range treerag is tested with
    raise ImportError(
        "this langgraph release moved CONFIG_KEY_CHECKPOINTER / CONFIG_KEY_RUNTIME "
        "(treerag.langgraph_keys): install the langgraph range pyproject.toml declares"
    ) from exc

__all__ = ["CONFIG_KEY_CHECKPOINTER", "CONFIG_KEY_RUNTIME"]
