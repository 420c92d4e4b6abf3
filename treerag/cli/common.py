"""Helpers shared by CLI commands: settings from options, consoles, error exits."""

from __future__ import annotations

import errno
import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True, soft_wrap=True)

DataDirOption = typer.Option(
    None, "--data-dir", help="Data directory (default: TREERAG_DATA_DIR or ./data)."
)
CollectionOption = typer.Option(
    None, "--collection", help="Milvus collection (default: TREERAG_COLLECTION or treerag_chunks)."
)
TopKOption = typer.Option(
    None, "-k", "--top-k", help="Chunks per retrieval (default: TREERAG_TOP_K, else 5)."
)
MaxDepthOption = typer.Option(
    None, "--max-depth", help="Maximum recursion depth (default: TREERAG_MAX_DEPTH, else 2)."
)


FLAGS = {
    "top_k": "-k/--top-k",
    "max_depth": "--max-depth",
    "search_mode": "--mode",
    "ranker": "--ranker",
    "chunk_size": "--chunk-size",
    "chunk_overlap": "--chunk-overlap",
}
"""The command-line option of each setting that has one, for error messages."""


def as_given(message: str, explicit: Iterable[str]) -> str:
    """Name the option instead of the setting where the value came from the command line.

    `-k 0` is reported as "-k/--top-k 0 must be at least 1", not as TREERAG_TOP_K=0, which
    the user never set.
    """
    for name in explicit:
        if name in FLAGS:
            said = rf"(?:\bTREERAG_{name.upper()}|\bsetting {name})="
            message = re.sub(said, f"{FLAGS[name]} ", message)
    return message


def counted(n: int, word: str) -> str:
    """`n` and the word, plural when `n` is not one: "1 chunk", "3,000 chunks"."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def make_context(**overrides: Any):
    """Build the run settings; options given on the command line win over the environment."""
    from treerag.context import Context, SettingsError

    explicit = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Context(**explicit)
    except SettingsError as exc:
        fail(as_given(str(exc), explicit), code=2)


def make_run_context(*, models: bool = True, **overrides: Any):
    """Build the settings of a run and check them (treerag.preflight) before anything draws.

    Args:
        models: Check the chat and embedding model settings too (`treerag search` needs no
            chat model, so it checks the bounds only).
        **overrides: Settings given on the command line (None: not given).
    """
    from treerag.context import SettingsError
    from treerag.preflight import check_bounds

    ctx = make_context(**overrides)
    try:
        check_bounds(ctx, models=models)
    except SettingsError as exc:
        fail(as_given(str(exc), [k for k, v in overrides.items() if v is not None]), code=2)
    return ctx


def folder_or_fail(path: Path, what: str) -> Path:
    """Return the path of a store folder, or exit 2 naming it when it (or a parent) is a file."""
    for place in (path, *path.parents):
        if place.exists():
            if not place.is_dir():
                where = "is a file" if place == path else f"lies under the file {place}"
                fail(
                    f"{what} {path} {where}, not a folder: point {what} "
                    "(or TREERAG_DATA_DIR) at a folder, or move the file away",
                    code=2,
                )
            break
    return path


def fail(message: str, code: int = 1) -> NoReturn:
    """Print an error to stderr and exit with a non-zero code."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def quiet_libraries() -> None:
    """Silence chatty third-party loggers (jieba's dictionary banner, pymilvus notices)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    # Milvus Lite logs a failed write with its traceback before it raises; the command says
    # what failed in one line (`user_errors`), so the log would only repeat it at length.
    logging.getLogger("milvus_lite").setLevel(logging.CRITICAL)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the project's expected errors into a clean message and exit code."""
    from treerag.context import SettingsError
    from treerag.preflight import QuestionError
    from treerag.retrievers.chunk_store import StoreError
    from treerag.retrievers.hybrid import RetrieverArgumentError

    try:
        yield
    except (SettingsError, RetrieverArgumentError, QuestionError) as exc:
        fail(str(exc), code=2)
    except (StoreError, FileNotFoundError, ValueError) as exc:
        fail(str(exc), code=1)
    except sqlite3.DatabaseError as exc:
        fail(
            f"a store of the data dir is damaged ({exc}): `treerag doctor` says which, and what "
            "to move aside",
            code=1,
        )
    except OSError as exc:
        fail(storage_error(exc), code=1)
    except Exception as exc:
        # Milvus Lite reports a failed write of its own files as a MilvusException carrying
        # the OSError's text ("[Errno 28] No space left on device").
        said = library_storage_error(exc)
        if said is None:
            raise
        fail(said, code=1)


def library_storage_error(exc: Exception) -> str | None:
    """One sentence for a storage failure a library reports in its own exception, or None.

    Milvus Lite reports a failed write of its own files as a MilvusException carrying the
    OSError's text ("[Errno 28] No space left on device"); any other MilvusException that
    reaches a command means its files are damaged, or another Milvus Lite version wrote them
    ("both manifest.json and manifest.json.prev failed to load").
    """
    errno_said = _errno_in(str(exc))
    if errno_said is not None:
        return storage_error(errno_said)
    if type(exc).__name__ != "MilvusException":
        return None
    why = " ".join(str(getattr(exc, "message", exc)).split())
    if "Fail connecting to server" in why:
        # Another process served milvus.db and stopped while this one read through it.
        return (
            f"the process serving the chunk store stopped while this one used it ({why}): "
            "run the command again"
        )
    return (
        f"the chunk store could not be read ({why}): if milvus.db is damaged or another "
        "Milvus Lite version wrote it, move it aside and run `treerag ingest` again"
    )


def _errno_in(message: str) -> OSError | None:
    """The OSError a library's message reports ("[Errno 28] No space left …"), if any."""
    found = re.search(r"\[Errno (\d+)\] ([^'\")>]*)", message)
    if not found:
        return None
    code = int(found.group(1))
    return OSError(code, os.strerror(code)) if code in STORAGE_ERRNOS else None


STORAGE_ERRNOS = {errno.ENOSPC, errno.EACCES, errno.EPERM, errno.EROFS, errno.EDQUOT, errno.EIO}
"""The errors of a data dir that cannot be written: the disk, its rights, its quota."""


def storage_error(exc: OSError) -> str:
    """One sentence for a storage failure: what failed, and what to do."""
    where = f"{exc.filename}: " if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{where}the disk is full: free some space and run the command again"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{where}not writable ({exc.strerror}): choose another TREERAG_DATA_DIR"
    return f"{where}{exc.strerror or exc}"


@contextmanager
def staged_progress(labels: dict[str, str]) -> Iterator[Callable[[str, int, int], None]]:
    """Yield a `progress(stage, done, total)` callback drawing one bar per stage on stderr.

    Args:
        labels: The bar's label for each stage name, e.g. {"load": "reading files"}.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(labels.get(stage, stage), total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield progress
