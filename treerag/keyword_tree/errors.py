"""Exceptions raised by the keyword knowledge tree."""

from __future__ import annotations


class KeywordTreeError(Exception):
    """Base class of every error the keyword tree raises on purpose."""


class InvalidInputError(KeywordTreeError, ValueError):
    """An argument is malformed (empty name, unknown relation, bad policy, ...)."""


class NotFoundError(KeywordTreeError, LookupError):
    """A keyword, info, link, operation or snapshot id does not exist (or was deleted)."""

    def __init__(self, kind: str, ident: str, hint: str = "") -> None:
        self.kind = kind
        self.ident = ident
        message = f"{kind} {ident!r} not found"
        super().__init__(f"{message}; {hint}" if hint else message)


class ConflictError(KeywordTreeError):
    """The stored state is not the one the caller based the write on."""


class VersionConflictError(ConflictError):
    """An optimistic-lock check failed: the record changed since the caller read it."""

    def __init__(self, kind: str, ident: str, expected: int, actual: int) -> None:
        self.kind = kind
        self.ident = ident
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{kind} {ident!r} is at version {actual}, but the write was based on version "
            f"{expected}; someone changed it since it was read: re-read it and retry"
        )


class UndoError(ConflictError):
    """An operation cannot be undone (a later write touched the same records, or its kind)."""


class CycleError(KeywordTreeError):
    """A move or merge would make a keyword its own ancestor."""


class DuplicateError(KeywordTreeError):
    """A keyword with the same normalized name already exists under the same parent."""

    def __init__(self, message: str, existing_id: str | None = None) -> None:
        self.existing_id = existing_id
        super().__init__(message)


class CorruptRecordError(KeywordTreeError):
    """A JSONL line could not be decoded."""

    def __init__(self, path: str, line: int, detail: str) -> None:
        self.path = path
        self.line = line
        self.detail = detail
        super().__init__(f"{path}:{line}: corrupt record: {detail}")


class StorageError(KeywordTreeError):
    """The files under the store directory cannot be read or written as expected."""
