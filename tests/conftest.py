"""Shared fixtures: isolated settings, a working folder outside the checkout, quiet loggers.

No test may read or write the folder pytest was started from (its `./data`, `.env`) or the
user's `TREERAG_*` settings. Session- and module-scoped fixtures run before any
function-scoped one, so the session fixture below makes the process safe before anything
builds a `Context`, and checks at the end that the checkout's `./data` was left as it was.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_USER_SETTINGS = ("TREERAG_", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def _clear_settings(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    for key in list(os.environ):
        if key.startswith(_USER_SETTINGS):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TREERAG_DATA_DIR", str(data_dir))
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")


def snapshot(folder: Path) -> dict[str, tuple[int, int]] | None:
    """Return {relative path: (size, mtime_ns)} of every file under a folder (None: no folder)."""
    if not folder.exists():
        return None
    found = {}
    for path in folder.rglob("*"):
        try:
            stat = path.lstat()
        except FileNotFoundError:  # removed while walking
            continue
        found[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns)
    return found


def changes(before: dict | None, after: dict | None) -> list[str]:
    """Describe how a folder's snapshot changed (empty when it did not)."""
    if before == after:
        return []
    if before is None:
        return ["created"]
    if after is None:
        return ["removed"]
    return [
        f"{name}: {'added' if name not in before else 'removed' if name not in after else 'changed'}"
        for name in sorted(set(before) | set(after))
        if before.get(name) != after.get(name)
    ]


@pytest.fixture(scope="session", autouse=True)
def _hermetic_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Run the session in a temporary folder with a temporary data dir and no user settings.

    At the end, fail if the `./data` of the checkout or of the folder pytest started in was
    created or changed: a test or fixture then used the default data dir instead of its own.
    """
    watched = {(REPO / "data").resolve(), (Path.cwd() / "data").resolve()}
    before = {folder: snapshot(folder) for folder in watched}
    root = tmp_path_factory.mktemp("session")
    (root / "cwd").mkdir()
    with pytest.MonkeyPatch.context() as mp:
        _clear_settings(mp, root / "data")
        mp.chdir(root / "cwd")
        yield
    problems = [
        f"{folder}: {change}"
        for folder in sorted(watched)
        for change in changes(before[folder], snapshot(folder))
    ]
    assert not problems, "the tests wrote into a default ./data:\n" + "\n".join(problems[:20])


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Give each test its own data dir and no TREERAG_* settings of an earlier test."""
    _clear_settings(monkeypatch, tmp_path / "data")
    import jieba

    jieba.setLogLevel(logging.WARNING)
