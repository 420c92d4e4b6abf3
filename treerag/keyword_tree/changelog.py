"""Reading the change log (operations for undo, history, replay) and the agent audit log."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import orjson

from treerag.keyword_tree.jsonl import dumps, read_range, write_all
from treerag.keyword_tree.storage import Storage


def iter_log(
    storage: Storage, start: int = 0, end: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (offset, entry) for every operation entry in [start, end) of the change log."""
    stop = storage.log_size() if end is None else end
    data = read_range(storage.path("log"), start, stop)
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        if data.startswith(b'{"t":"op"', pos):  # commit markers start with {"t":"commit"
            yield start + pos, orjson.loads(data[pos:nl])
        pos = nl + 1


def find_op(storage: Storage, op_id: str) -> dict[str, Any] | None:
    """Return the change-log entry of an operation, or None."""
    needle = b'{"t":"op","op_id":' + dumps(op_id)
    data = read_range(storage.path("log"), 0, storage.log_size())
    at = data.find(needle)
    if at < 0:
        return None
    entry: dict[str, Any] = orjson.loads(data[at : data.find(b"\n", at)])
    return entry


def append_audit(storage: Storage, record: dict[str, Any]) -> None:
    """Append an agent decision taken outside a write to logs/agent_log.jsonl (no fsync).

    One write() on an O_APPEND descriptor, so lines from several processes do not mix.
    """
    fd = os.open(storage.path("agent_log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        write_all(fd, dumps(record) + b"\n")
    finally:
        os.close(fd)
