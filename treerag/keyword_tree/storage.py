"""File layout and the commit protocol of seed 03 §三: append-only JSONL, change log, fsync."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from treerag.keyword_tree.errors import StorageError
from treerag.keyword_tree.jsonl import LoadIssue, dumps, last_lines, read_range, write_all
from treerag.keyword_tree.locking import FileLock

DATA_FILES = {
    "nodes": "keywords/nodes.jsonl",
    "infos": "infos/infos.jsonl",
    "links": "links/links.jsonl",
}
"""Logical name → path under the store root of the three record files."""

LOG_FILE = "logs/change_log.jsonl"
AGENT_LOG_FILE = "logs/agent_log.jsonl"
DIRS = ("keywords", "infos", "links", "indexes", "logs", "cache", "snapshots")


@dataclass(slots=True)
class Commit:
    """A committed position: what every reader may load, read from the last log marker.

    Each operation appends its records to the data files, then one change-log entry plus a
    small commit marker naming the end offset of every data file. Bytes past those offsets
    belong to a writer that died before committing, and are discarded.
    """

    gen: int = 0
    """Generation: bumped when compaction, restore or recovery rewrite the data files."""
    ends: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DATA_FILES, 0))
    """Committed size of each data file."""
    log_end: int = 0
    """Offset just past the marker in the change log."""
    op_id: str | None = None
    """The last committed operation."""
    pending: dict[str, Any] | None = None
    """Set while a file replacement (compaction, restore) is half done."""

    @property
    def data_bytes(self) -> int:
        """Committed size of all data files together."""
        return sum(self.ends.values())


class Storage:
    """Owns the files of one store directory: paths, descriptors, lock, commit protocol."""

    def __init__(self, root: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.root = Path(root)
        self.fsync_enabled = fsync
        for name in DIRS:
            (self.root / name).mkdir(parents=True, exist_ok=True)
        self.lock = FileLock(str(self.root / "LOCK"))
        self._fds: dict[str, int] = {}
        self._read_fds: dict[str, int] = {}
        self._log_fd = -1
        self._open_files()

    # -- descriptors ------------------------------------------------------------------

    def path(self, name: str) -> str:
        """Return the absolute path of a data file ("nodes", "infos", "links") or log."""
        rel = DATA_FILES.get(name) or {"log": LOG_FILE, "agent_log": AGENT_LOG_FILE}[name]
        return str(self.root / rel)

    def reopen(self) -> None:
        """Open the data files and log again (after another process replaced them)."""
        self._open_files()

    def _open_files(self) -> None:
        self._close_files()
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        for name in DATA_FILES:
            self._fds[name] = os.open(self.path(name), flags, 0o644)
            self._read_fds[name] = os.open(self.path(name), os.O_RDONLY)
        self._log_fd = os.open(self.path("log"), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)

    def _close_files(self) -> None:
        for fd in (*self._fds.values(), *self._read_fds.values()):
            os.close(fd)
        self._fds.clear()
        self._read_fds.clear()
        if self._log_fd >= 0:
            os.close(self._log_fd)
            self._log_fd = -1

    def close(self) -> None:
        """Close every descriptor."""
        self._close_files()
        self.lock.close()

    def read_fd(self, name: str) -> int:
        """Return a read-only descriptor of a data file (for lazily loaded records)."""
        return self._read_fds[name]

    def size(self, name: str) -> int:
        """Return the current size of a data file or the log."""
        return os.stat(self.path(name)).st_size

    def _sync(self, fd: int) -> None:
        # fdatasync also flushes the file size, which is all an append changes.
        if self.fsync_enabled:
            os.fdatasync(fd)

    def _sync_dir(self, path: str) -> None:
        if not self.fsync_enabled:
            return
        fd = os.open(os.path.dirname(path), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    # -- reading the commit point -------------------------------------------------------

    def last_commit(self) -> Commit:
        """Return the last committed position, read from the change log's final marker."""
        size = os.fstat(self._log_fd).st_size
        for offset, line in last_lines(self._log_fd, size, 2):
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise StorageError(f"{self.path('log')}: unreadable line at {offset}") from exc
            if rec.get("t") == "commit":
                return Commit(
                    gen=rec["gen"],
                    ends=dict(rec["ends"]),
                    log_end=offset + len(line) + 1,
                    op_id=rec.get("op_id"),
                    pending=rec.get("pending"),
                )
        return Commit()

    def log_size(self) -> int:
        """Return the size of the change log (cheap: one fstat)."""
        return os.fstat(self._log_fd).st_size

    # -- recovery -------------------------------------------------------------------------

    def recover(self) -> tuple[Commit, list[LoadIssue], list[str]]:
        """Repair what a killed writer left behind; call with the write lock held.

        Returns:
            The committed position, the issues found, and the names of data files that are
            shorter than committed (their records must be rebuilt from the change log).
        """
        issues: list[LoadIssue] = []
        commit = self.last_commit()
        if self.log_size() > commit.log_end:
            issues.append(LoadIssue(self.path("log"), 0, "uncommitted tail discarded"))
            os.ftruncate(self._log_fd, commit.log_end)
            self._sync(self._log_fd)
        if commit.pending is not None:
            commit = self._finish_replace(commit)
        self._drop_stale_tmp()
        short: list[str] = []
        for name, end in commit.ends.items():
            size = self.size(name)
            if size < end:
                short.append(name)
            elif size > end:
                issues.append(self._trim_tail(name, end, commit.op_id))
        return commit, issues, short

    def _trim_tail(self, name: str, end: int, last_op: str | None) -> LoadIssue:
        """Drop bytes past the committed end if they look like one crashed writer's output."""
        path = self.path(name)
        tail = read_range(path, max(0, end - 1), self.size(name))
        at_boundary = end == 0 or tail[:1] == b"\n"
        body = tail[1:] if end > 0 else tail
        ops: set[str | None] = set()
        for line in body.split(b"\n")[:-1]:
            try:
                ops.add(orjson.loads(line).get("op"))
            except (orjson.JSONDecodeError, AttributeError):
                ops.add("<corrupt>")
        if at_boundary and len(ops) <= 1 and last_op not in ops and "<corrupt>" not in ops:
            os.truncate(path, end)
            return LoadIssue(path, 0, f"{len(body)} bytes of an uncommitted write discarded")
        return LoadIssue(
            path, 0, f"file is {len(body)} bytes longer than the change log says; kept as is"
        )

    def _drop_stale_tmp(self) -> None:
        for name in DATA_FILES:
            tmp = self.path(name) + ".tmp"
            if os.path.exists(tmp):
                os.unlink(tmp)

    # -- writing --------------------------------------------------------------------------

    def append(self, entry: dict[str, Any], blobs: dict[str, bytes], base: Commit) -> Commit:
        """Append records and commit them: data, fsync, log entry + marker, fsync.

        Args:
            entry: The change-log entry (``op_id`` required).
            blobs: Encoded JSONL per data file.
            base: The committed position the writer synced to under the lock.
        """
        ends = dict(base.ends)
        try:
            for name, blob in blobs.items():
                if blob:
                    write_all(self._fds[name], blob)
                    ends[name] += len(blob)
            for name, blob in blobs.items():
                if blob:
                    self._sync(self._fds[name])
            marker = {"t": "commit", "op_id": entry["op_id"], "gen": base.gen, "ends": ends}
            line = dumps(entry) + b"\n" + dumps(marker) + b"\n"
            write_all(self._log_fd, line)
            self._sync(self._log_fd)
        except OSError as exc:
            self._undo_append(base)
            raise StorageError(f"write to {self.root} failed: {exc}") from exc
        return Commit(base.gen, ends, base.log_end + len(line), entry["op_id"])

    def _undo_append(self, base: Commit) -> None:
        for name, end in base.ends.items():
            try:
                os.ftruncate(self._fds[name], end)
            except OSError:
                pass
        try:
            os.ftruncate(self._log_fd, base.log_end)
        except OSError:
            pass

    def replace(
        self,
        entry: dict[str, Any],
        blobs: dict[str, bytes],
        base: Commit,
        *,
        before_rename: Any = None,
    ) -> Commit:
        """Swap in new data files atomically enough to survive a crash at any point.

        New files are written as ``*.tmp`` and synced, a marker with ``pending`` is logged,
        the files are renamed, and a final marker closes the replacement. Recovery rolls a
        logged-but-unfinished replacement forward.
        """
        for name in DATA_FILES:
            tmp = self.path(name) + ".tmp"
            with open(tmp, "wb") as fh:
                fh.write(blobs[name])
                fh.flush()
                self._sync(fh.fileno())
        ends = {name: len(blobs[name]) for name in DATA_FILES}
        pending = {"gen": base.gen + 1, "ends": ends}
        marker = {"t": "commit", "op_id": entry["op_id"], "gen": base.gen, "ends": base.ends}
        marker["pending"] = pending
        line = dumps(entry) + b"\n" + dumps(marker) + b"\n"
        write_all(self._log_fd, line)
        self._sync(self._log_fd)
        if before_rename is not None:
            before_rename()
        half = Commit(base.gen, base.ends, base.log_end + len(line), entry["op_id"], pending)
        return self._finish_replace(half)

    def _finish_replace(self, commit: Commit) -> Commit:
        assert commit.pending is not None
        gen, ends = commit.pending["gen"], commit.pending["ends"]
        for name in DATA_FILES:
            tmp = self.path(name) + ".tmp"
            if os.path.exists(tmp):
                os.replace(tmp, self.path(name))
                self._sync_dir(self.path(name))
            if self.size(name) != ends[name]:
                raise StorageError(
                    f"{self.path(name)} has {self.size(name)} bytes after a file replacement "
                    f"that logged {ends[name]}; restore a snapshot"
                )
        self._open_files()
        marker = {"t": "commit", "op_id": commit.op_id, "gen": gen, "ends": ends}
        line = dumps(marker) + b"\n"
        write_all(self._log_fd, line)
        self._sync(self._log_fd)
        return Commit(gen, dict(ends), commit.log_end + len(line), commit.op_id)
