"""A short hash of some of treerag's own source and of the packages it reads text with.

What is computed from text by rules (a judge's verdicts, the names the passage graph links,
the forms a keyword is found by) is kept in the data folder; a release that changes those
rules must not keep reading what the old ones made. The rules are the code, so the code is
hashed: a hand-kept version number is forgotten the day a rule changes.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DIGEST_CHARS = 12


def source_files(module: str) -> list[tuple[str, Path]]:
    """(name, file) of a module's source: the module's file, or every .py under a package."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no module named {module!r}")
    origin = Path(spec.origin)
    if not spec.submodule_search_locations:
        return [(module, origin)]
    folder = origin.parent
    return [
        (f"{module}/{p.relative_to(folder).as_posix()}", p) for p in sorted(folder.rglob("*.py"))
    ]


def source_digest(modules: Iterable[str], packages: Iterable[str] = ()) -> str:
    """Hash the source of `modules` (packages whole) and the installed versions of `packages`.

    Args:
        modules: Dotted names of treerag modules or packages whose code makes the data.
        packages: Distribution names whose version changes the data too (jieba's dictionary).
    """
    digest = hashlib.sha256()
    for module in modules:
        for name, path in source_files(module):
            digest.update(name.encode())
            digest.update(path.read_bytes())
    for package in packages:
        try:
            digest.update(f"{package}=={version(package)}".encode())
        except PackageNotFoundError:
            digest.update(f"{package} absent".encode())
    return digest.hexdigest()[:DIGEST_CHARS]
