"""Text helpers of the entity graph: name keys, whole-name matches, token counts and cells."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from treerag.text import CJK_WIDE, has_wide

# Han, kana, hangul and CJK punctuation/full-width forms: one token per character.
_WIDE_RUN = re.compile(f"[{CJK_WIDE}]+")
_QUOTES = re.compile(r"[\"'“”‘’「」『』《》〈〉()（）\[\]【】]")
_SPACES = re.compile(r"\s+")


def whole_match(text: str, start: int, end: int, key: str) -> bool:
    """CJK names match anywhere; a Latin name must not run into a letter, digit or '_'."""
    if has_wide(key):
        return True
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before == "_" or after.isalnum() or after == "_")


def longest_matches(automaton: Any, text: str) -> list[tuple[int, int, Any]]:
    """(start, end, payload) of an Aho-Corasick automaton's whole-word matches in `text`.

    The automaton maps each key to `(key, payload)`. Where matches overlap the longest wins
    ("Emberglass Guild" over "emberglass"); the list is longest first.
    """
    import ahocorasick

    if automaton.kind != ahocorasick.AHOCORASICK:
        return []  # no keys at all
    hits = [
        (last - len(key) + 1, last + 1, payload)
        for last, (key, payload) in automaton.iter(text)
        if whole_match(text, last - len(key) + 1, last + 1, key)
    ]
    taken: list[tuple[int, int]] = []
    out = []
    for start, end, payload in sorted(hits, key=lambda h: (h[0] - h[1], h[0])):
        if not any(a <= start and end <= b for a, b in taken):
            taken.append((start, end))
            out.append((start, end, payload))
    return out


def normalize_name(name: str) -> str:
    """Return the key under which entity names are merged.

    NFKC folds full-width forms, casefold ignores case, quotes and brackets around names
    ("“丧钟”手枪" vs "丧钟手枪") and repeated whitespace are dropped.
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _QUOTES.sub("", text)
    return _SPACES.sub(" ", text).strip(" .,;:·-")


def count_tokens(text: str) -> int:
    """Count tokens: each CJK character is one, other text counts whitespace-separated words."""
    cjk = 0
    for run in _WIDE_RUN.findall(text):
        cjk += len(run)
    rest = _WIDE_RUN.sub(" ", text)
    return cjk + len(rest.split())


def truncate_tokens(text: str, budget: int, ellipsis: str = "…") -> str:
    """Return the longest prefix of text within budget tokens (ellipsis added when cut)."""
    if budget <= 0:
        return ""
    if count_tokens(text) <= budget:
        return text
    # Walk pieces (single CJK chars, words, whitespace) keeping the count.
    out: list[str] = []
    used = 0
    for piece in re.findall(f"[{CJK_WIDE}]|[^\\s{CJK_WIDE}]+|\\s+", text):
        cost = 0 if piece.isspace() else 1
        if used + cost > budget - 1:
            break
        out.append(piece)
        used += cost
    return "".join(out).rstrip() + ellipsis


def clean_cell(value: object, delimiter: str = "|") -> str:
    """Return a table cell on one line without the column delimiter."""
    text = _SPACES.sub(" ", str(value)).strip()
    return text.replace(delimiter, "/")
