"""Errors raised by the knowledge-graph engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class KnowledgeGraphError(Exception):
    """Base class of every error this package raises on purpose."""


class DuplicateIdError(KnowledgeGraphError, ValueError):
    """An entity or edge id is already taken."""


class MissingEntityError(KnowledgeGraphError, LookupError):
    """An edge or a query names an entity that does not exist."""

    def __str__(self) -> str:
        # LookupError would quote the message like a dict key; show it plainly.
        return str(self.args[0]) if self.args else ""


class EmbeddingError(KnowledgeGraphError, ValueError):
    """The injected embed function returned something unusable, or none was given."""


class GraphFormatError(KnowledgeGraphError, ValueError):
    """A saved graph directory is unreadable or of an unknown format."""


@dataclass(frozen=True)
class RecordProblem:
    """One bad record in an input file."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ImportRecordError(KnowledgeGraphError, ValueError):
    """One or more input records are invalid; nothing was imported."""

    def __init__(self, problems: Sequence[RecordProblem], *, more: int = 0) -> None:
        self.problems = list(problems)
        self.more = more
        lines = [str(p) for p in self.problems]
        if more:
            lines.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(lines))
