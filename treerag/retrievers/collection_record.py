"""What a chunk collection recorded about itself when it was created (embedder, analyzer …).

Read by `ChunkStore` and by `treerag.embedder_choice` (which embedder `auto` means for an
existing collection); kept apart from both so that neither imports the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from treerag.context import Context
from treerag.retrievers.milvus_client import milvus_lease
from treerag.server.tenants import tenant_collection

INFO_PROPERTY = "treerag.info"


def read_record(client: Any, name: str) -> dict[str, Any]:
    """The record of collection `name` ({} when it has none or it is unreadable)."""
    props = client.describe_collection(name).get("properties") or {}
    try:
        return json.loads(props.get(INFO_PROPERTY, "{}"))
    except json.JSONDecodeError:
        return {}


def no_lite_file(uri: str) -> bool:
    """Whether `uri` is a Milvus Lite file that does not exist yet (so it holds nothing).

    Opening such a URI would create the file and its folder: reads check this first, so a
    question asked, or a search run, before anything is ingested leaves no `./data` behind.
    """
    if "://" in uri:
        return False
    path = Path(uri).expanduser()
    # Under a file it can never be created: opening it fails and says so, not "empty".
    return not path.exists() and not any(parent.is_file() for parent in path.parents)


def recorded_settings(ctx: Context) -> dict[str, Any]:
    """The settings the context's collection recorded ({} while it does not exist)."""
    if no_lite_file(ctx.resolved_milvus_uri):
        return {}
    name = tenant_collection(ctx.collection, ctx.tenant)
    with milvus_lease(ctx.resolved_milvus_uri, ctx.milvus_token) as client:
        return read_record(client, name) if client.has_collection(name) else {}
