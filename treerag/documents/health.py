"""Check each store of a data directory for real: open it, read it, write a probe.

`treerag doctor` runs these; each returns a one-line detail or raises `StoreProblem`, whose
message says what is wrong and what to do ("move checkpoints.sqlite aside: the history of
runs is lost, the documents are not"). Nothing is left behind: probes are written to
temporary files or inside a transaction that is rolled back.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import tempfile
from pathlib import Path

from treerag.context import Context
from treerag.data_layout import judge_cache_file

PROBE_BYTES = 1 << 20
"""A probe written to the data folder: a disk with less room than this is as good as full."""


class StoreProblem(Exception):
    """A store cannot be used; the message says what to do."""


def data_folder(ctx: Context) -> str:
    """The data folder exists, and a megabyte can be written and synced there."""
    path = ctx.data_path
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-") as probe:
            probe.write(b"\0" * PROBE_BYTES)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise StoreProblem(f"{path}: the disk is full; free some space") from exc
        if exc.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
            raise StoreProblem(
                f"{path}: not writable ({exc.strerror}); choose another TREERAG_DATA_DIR"
            ) from exc
        raise StoreProblem(f"{path}: {exc.strerror or exc}") from exc
    free = _free_bytes(path)
    return f"{path.resolve()} is writable, {free / 2**30:.1f} GiB free"


def _free_bytes(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def sqlite_file(path: Path, what: str, consequence: str, remedy: str = "") -> str:
    """An SQLite file opens, passes its quick check and takes a write (rolled back).

    A damaged file's problem says to move it aside and what that costs (`consequence`), or,
    for a file a command makes again itself, that command (`remedy`).
    """
    if not path.exists():
        return f"{path.name}: none yet"
    try:
        db = sqlite3.connect(str(path), timeout=10)
        try:
            (verdict,) = db.execute("PRAGMA quick_check").fetchone()
            if verdict != "ok":
                raise sqlite3.DatabaseError(verdict)
            db.execute("BEGIN IMMEDIATE")  # takes the write lock, as a writer would
            db.execute("ROLLBACK")
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        advice = remedy or f"move it aside: {consequence}"
        raise StoreProblem(f"{path}: the {what} is damaged ({exc}); {advice}") from exc
    return f"{path.name}: ok, {path.stat().st_size / 2**20:.1f} MiB"


def checkpoints(ctx: Context) -> str:
    """The run history's SQLite checkpointer (a Postgres one is checked by connecting)."""
    uri = ctx.resolved_checkpointer_uri
    if uri.startswith(("postgres://", "postgresql://")):
        return "Postgres: checked when a run starts"
    return sqlite_file(
        Path(uri).expanduser(),
        "run history",
        "the history of past runs is lost, the documents are not",
    )


def judge_cache(ctx: Context) -> str:
    """The judge's verdict cache."""
    return sqlite_file(
        judge_cache_file(ctx.tenant_path),
        "verdict cache",
        "",
        remedy="the next question sets it aside and starts a new one (verdicts are judged "
        "again, nothing else is lost)",
    )


def passage_graph(ctx: Context) -> str:
    """The passage-entity graph."""
    from treerag.retrievers.sources import passage_graph_file

    return sqlite_file(
        passage_graph_file(ctx),
        "passage graph",
        "",
        remedy="`treerag docs rebuild` (or the next ingest) sets it aside and makes it again "
        "from the chunks",
    )


def manifest(ctx: Context) -> str:
    """The documents manifest (when each file went in, what was skipped)."""
    from treerag.documents.manifest import manifest_path

    path = manifest_path(ctx)
    if not path.exists():
        return f"{path.name}: none yet"
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreProblem(
            f"{path}: unreadable ({exc}); move it aside: the ingest times are lost, the "
            "documents are not"
        ) from exc
    return f"{path.name}: ok"


def derived_stores(ctx: Context) -> str:
    """The keyword tree and the graph hold the chunks the collection holds."""
    from treerag.documents import derived

    live = derived.live_chunks(ctx)
    total = sum(len(ids) for ids in live.values())
    if not total:
        return "no chunks yet"
    problems = []
    marks = derived.stale(ctx)
    for store, lag in derived.lag(ctx, live).items():
        name = store.replace("_", " ")
        if lag.missing:
            problems.append(f"the {name} misses {lag.missing:,} of {total:,} chunks")
        if lag.extra:
            problems.append(f"the {name} holds {lag.extra:,} deleted chunks")
        if lag.old_rules:
            problems.append(f"the {name} was built by an older release's rules")
        if lag.unreadable:
            problems.append(f"the {name} cannot be read ({lag.unreadable})")
        if marks.get(store) and not lag.behind:
            problems.append(f"the {name} could not follow the last change")
    if problems:
        raise StoreProblem(f"{'; '.join(problems)}: run `treerag docs rebuild`")
    return f"keyword tree and graph hold all {total:,} chunks"
