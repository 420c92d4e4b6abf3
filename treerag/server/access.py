"""May this caller read or change this thread: one rule for the API's auth and our web routes.

A thread carries the `owner` and `tenant` the auth handlers stamped on it when it was created.
Changing it (update, state writes, new runs, cancelling or deleting runs, deleting the thread)
is for its owner alone. Reading it (get, state, history, search, joining or streaming its runs,
rebuilding its search trees) is for its owner too, unless the owner's tenant shares threads
(`tenants: {<tenant>: {share_threads: true}}` in the users file): then every user of that
tenant may read it, and users of any other tenant still find nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from treerag.server.identity import Identity

ThreadAction = Literal["read", "write"]


def thread_filter(identity: Identity, action: ThreadAction) -> dict[str, str] | None:
    """The metadata a thread must carry for `identity` to `action` it (None: no limit).

    The dict is what the LangGraph auth handlers return as their filter (exact matches on
    the thread's metadata), and what `may_access_thread` checks for the web routes.
    """
    if identity.local:
        return None
    if action == "read" and identity.shares_threads:
        return {"tenant": identity.tenant}
    return {"owner": identity.name, "tenant": identity.tenant}


def may_access_thread(
    identity: Identity, metadata: Mapping[str, Any] | None, action: ThreadAction = "read"
) -> bool:
    """Whether `identity` may `action` a thread with this metadata (None: an unknown thread)."""
    scope = thread_filter(identity, action)
    if scope is None:
        return True
    return metadata is not None and all(metadata.get(k) == v for k, v in scope.items())
