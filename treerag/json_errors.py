"""Say where a JSON document is broken: the parser's message plus line and column."""

from __future__ import annotations

import json


def where_broken(exc: json.JSONDecodeError, line_offset: int = 0) -> str:
    """Return e.g. "Unterminated string starting at line 3, column 9".

    Args:
        exc: The error from `json.loads`.
        line_offset: Lines before the parsed text (for one line of a JSONL file, its number - 1).
    """
    # Some messages end in "at" already ("Unterminated string starting at").
    lead = exc.msg if exc.msg.endswith(" at") else f"{exc.msg} at"
    return f"{lead} line {exc.lineno + line_offset}, column {exc.colno}"
