"""Close what the process opened for its tenants, when the server shuts down."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger(__name__)


def close_stores() -> int:
    """Close every bounded table's entries, then stop serving Milvus Lite folders.

    The Milvus clients go first: closing one releases the folder it served, and what is
    still served after that (a folder opened without a cached client) is released last.
    Returns how many handles the tables closed.
    """
    from treerag.bounded import close_all

    closed = close_all()
    lite = sys.modules.get("treerag.retrievers.lite_share")  # not imported: nothing served
    if lite is not None:
        lite.release_all()
    log.info("closed %d open stores", closed)
    return closed
