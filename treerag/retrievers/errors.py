"""Errors of the chunk store, each with a message that says what to do."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The chunk store cannot be used as asked; the message says what to do."""


class EmptyStoreError(StoreError):
    """Nothing has been ingested into the collection yet."""
