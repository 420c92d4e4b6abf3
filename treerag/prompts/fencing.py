"""Untrusted document text inside a prompt: fenced, so no document can close its own fence.

Every prompt puts document text between `<<<` and `>>>` markers and tells the model never to
follow instructions inside them. A document that itself contains a marker could end the fence
early and speak as the prompt; these helpers turn marker runs inside document text into
look-alike guillemets, so the only markers in a prompt are the prompt's own.
"""

from __future__ import annotations

import re

_MARKERS = re.compile(r"<{3,}|>{3,}")


def untrusted(text: str) -> str:
    """Document text ready to sit between the prompt's markers (marker runs neutralized)."""
    return _MARKERS.sub(lambda m: ("‹" if m.group()[0] == "<" else "›") * len(m.group()), text)


def untrusted_title(title: str) -> str:
    """A document title for a one-line, quoted slot: no marker, no quote, no line break."""
    return " ".join(untrusted(title).replace('"', "'").split())
