"""Citation marks numbered 1, 2, 3… in the order the answer first uses them, as it streams.

The evidence is numbered before the answer is written, so an answer that cites items 3 and 1
of five would read "[3] … [1]" and list [1], [3]. Readers expect [1] first and no gaps: the
marks are renumbered in order of first use, each evidence item keeping one number. Reasoners
stream the renumbered text (`MarkNumbers.feed` works on pieces that may cut a mark in two)
and return the answer with the evidence's own numbers; `answer_question` renumbers that text
with `renumber` and lists the citations in the same order, so the streamed text is the final
text. A bracketed number that names no evidence item is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_MARK = re.compile(r"\[(\d+)\]")
_OPEN = re.compile(r"\[\d{0,6}$")
"""The start of a mark at the end of a piece: held back until the next piece completes it."""


class MarkNumbers:
    """Renumber the marks of a text that arrives in pieces."""

    def __init__(self, numbers: Iterable[int]):
        """Start with the evidence numbers a mark may name."""
        self._known = set(numbers)
        self.order: list[int] = []
        """The evidence numbers cited, in order of first use: new number i+1 is order[i]."""
        self._held = ""

    def _new(self, match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n not in self._known:
            return match.group(0)
        if n not in self.order:
            self.order.append(n)
        return f"[{self.order.index(n) + 1}]"

    def feed(self, piece: str) -> str:
        """Return what can be shown of the text so far, its marks renumbered."""
        text = self._held + piece
        cut = _OPEN.search(text)
        self._held = cut.group(0) if cut else ""
        return _MARK.sub(self._new, text[: cut.start()] if cut else text)

    def flush(self) -> str:
        """Return the text still held back (an unfinished mark, as written)."""
        held, self._held = self._held, ""
        return held


def renumber(text: str, numbers: Iterable[int]) -> tuple[str, list[int]]:
    """Renumber a whole answer; return it and the evidence numbers in their new order."""
    marks = MarkNumbers(numbers)
    out = marks.feed(text) + marks.flush()
    return out, marks.order
