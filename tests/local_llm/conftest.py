"""The real local model's tests need the `local` extra: they skip without it (CI installs it).

`make test` installs the `dev` extra only (no 1.1 GB of weights); `bash .ci/run` adds `local`,
and there (`CI=true`) a missing runtime or missing weights fail instead of skipping.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from treerag.local_llm.weights import DEFAULT, LocalModelError, assemble, cache_dir, chunk_files

LOCAL_EXTRA = 'pip install -e ".[local]"'


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def llama_runtime() -> None:
    """Skip unless llama.cpp's server (xllamacpp, from the `local` extra) is installed."""
    if importlib.util.find_spec("xllamacpp") is None:
        _unavailable(f"llama.cpp's runtime (xllamacpp) is not installed: {LOCAL_EXTRA}")


@pytest.fixture(scope="module")
def weights(llama_runtime) -> Path:
    """The bundled weights, assembled once per machine (a no-op when already there).

    Skips when neither the assembled file nor the weight packages of the `local` extra are
    there.
    """
    if not (cache_dir() / DEFAULT.file_name).is_file():
        try:
            chunk_files(DEFAULT)
        except LocalModelError:
            _unavailable(f"the local model's weights are not installed: {LOCAL_EXTRA}")
    return assemble(DEFAULT)
