"""Shared fixtures: isolated settings and quiet third-party loggers."""

from __future__ import annotations

import logging
import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """Keep tests away from the user's TREERAG_* settings, .env and ./data."""
    for key in list(os.environ):
        if key.startswith("TREERAG_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TREERAG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    import jieba

    jieba.setLogLevel(logging.WARNING)
