"""Cold start and tail replay: JSONL records (plus a checkpoint when usable) into a TreeIndex."""

from __future__ import annotations

from typing import Any

import orjson

from treerag.keyword_tree.cache import Touched
from treerag.keyword_tree.checkpoint import read_checkpoint
from treerag.keyword_tree.errors import CorruptRecordError
from treerag.keyword_tree.indexes import TreeIndex
from treerag.keyword_tree.jsonl import (
    LoadIssue,
    gc_paused,
    line_number_at,
    parse_bulk,
    parse_lines,
    read_line_at,
    read_range,
)
from treerag.keyword_tree.models import Record
from treerag.keyword_tree.storage import Commit, Storage

REQUIRED = {
    "nodes": ("id", "name", "aliases", "normalized", "parent_id", "version", "created_at"),
    "infos": ("id", "content", "version"),
    "links": ("info_id", "keyword_id", "relation", "created_by", "created_at"),
}


def _fix_lines(issues: list[LoadIssue], path: str, start: int) -> list[LoadIssue]:
    """Turn line numbers relative to a block into line numbers of the file."""
    if not issues or start == 0:
        return issues
    base = line_number_at(path, start) - 1
    return [LoadIssue(i.path, i.line + base, i.message) for i in issues]


def read_records(
    storage: Storage, name: str, start: int, end: int, issues: list[LoadIssue]
) -> list[tuple[int, Record]]:
    """Parse [start, end) of a data file line by line: (offset, record), issues appended."""
    path = storage.path(name)
    pairs, found = parse_lines(read_range(path, start, end), path, REQUIRED[name], start)
    issues.extend(_fix_lines(found, path, start))
    return pairs


def _bulk_records(storage: Storage, name: str, end: int, issues: list[LoadIssue]) -> list[Record]:
    """Parse [0, end) of a data file in one go; fall back to line by line on bad input."""
    bulk = parse_bulk(read_range(storage.path(name), 0, end))
    required = REQUIRED[name]
    if bulk is not None and all(type(rec) is dict for rec in bulk):
        if not bulk or all(key in bulk[-1] for key in required):
            try:
                return _check_keys(bulk, required)
            except KeyError:
                pass
    return [rec for _, rec in read_records(storage, name, 0, end, issues)]


def _check_keys(records: list[Any], required: tuple[str, ...]) -> list[Record]:
    """Raise KeyError if any record lacks the first required key (cheap structural check)."""
    first = required[0]
    for rec in records:
        rec[first]  # noqa: B018 - the lookup is the check
    return records


def load_index(storage: Storage, commit: Commit, issues: list[LoadIssue]) -> TreeIndex:
    """Build the in-memory indexes at commit: checkpoint + tail, or everything from JSONL."""
    with gc_paused():
        return _load_index(storage, commit, issues)


def _load_index(storage: Storage, commit: Commit, issues: list[LoadIssue]) -> TreeIndex:
    index = TreeIndex()
    found = read_checkpoint(storage.root, commit)
    if found is None:
        index.build_nodes(_bulk_records(storage, "nodes", commit.ends["nodes"], issues))
        index.info_offsets = _info_offsets(storage, commit.ends["infos"], issues)
        index.build_links(_bulk_records(storage, "links", commit.ends["links"], issues))
    else:
        start, parts = found
        for name, value in parts.items():
            setattr(index, name, value)
        apply_tail(storage, index, start, commit.ends, issues)
    _attach_reader(storage, index)
    return index


def _info_offsets(storage: Storage, end: int, issues: list[LoadIssue]) -> dict[str, int]:
    """Return live info id → offset of its latest line, parsing [0, end) in bulk."""
    data = read_range(storage.path("infos"), 0, end)
    starts, lines, pos = [], [], 0
    for line in data.split(b"\n")[:-1]:
        if line.strip():
            starts.append(pos)
            lines.append(line)
        pos += len(line) + 1
    try:
        records = orjson.loads(b"[" + b",".join(lines) + b"]")
        offsets = {rec["id"]: start for rec, start in zip(records, starts, strict=True)}
    except (orjson.JSONDecodeError, TypeError, KeyError):
        pairs = read_records(storage, "infos", 0, end, issues)  # reports the bad lines
        records, offsets = [rec for _, rec in pairs], {rec["id"]: o for o, rec in pairs}
    if b'"deleted":true' in data:  # only in stores not compacted since a deletion
        last_live = {rec["id"]: not rec.get("deleted") for rec in records}
        offsets = {key: off for key, off in offsets.items() if last_live[key]}
    return offsets


def _attach_reader(storage: Storage, index: TreeIndex) -> None:
    path = storage.path("infos")

    def read_info(offset: int) -> Record:
        line = read_line_at(storage.read_fd("infos"), offset)
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise CorruptRecordError(path, line_number_at(path, offset), str(exc)) from exc
        return rec

    index.read_info = read_info


def apply_tail(
    storage: Storage,
    index: TreeIndex,
    start: dict[str, int],
    end: dict[str, int],
    issues: list[LoadIssue],
) -> Touched:
    """Apply records appended between two positions; return what they make stale."""
    touched = Touched()
    for _, rec in read_records(storage, "nodes", start["nodes"], end["nodes"], issues):
        touched.node(index.put_node(rec), rec)
    for offset, rec in read_records(storage, "infos", start["infos"], end["infos"], issues):
        touched.pages.update(index.kw_by_info.get(rec["id"], {}))
        index.put_info(rec, offset)
    for _, rec in read_records(storage, "links", start["links"], end["links"], issues):
        index.put_link(rec)
        touched.pages.add(rec["keyword_id"])
    return touched


def touched_between(storage: Storage, start: dict[str, int], end: dict[str, int]) -> Touched:
    """Return what records appended between two positions make stale, without applying them."""
    touched = Touched()
    ignored: list[LoadIssue] = []
    for _, rec in read_records(storage, "nodes", start["nodes"], end["nodes"], ignored):
        touched.node(None, rec)
    for _, rec in read_records(storage, "links", start["links"], end["links"], ignored):
        touched.pages.add(rec["keyword_id"])
    return touched
