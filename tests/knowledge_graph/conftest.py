"""Fixtures for the knowledge-graph tests."""

from __future__ import annotations

import pytest

from tests.knowledge_graph.graphs import seed01_world
from treerag.knowledge_graph import HashEmbedder, World


@pytest.fixture
def embed() -> HashEmbedder:
    """Return a deterministic lexical embedder (hashed bag of words)."""
    return HashEmbedder(dim=128)


@pytest.fixture
def lotm(embed) -> World:
    """Return the seed 01 example world embedded with the hash embedder."""
    return seed01_world(embed)
