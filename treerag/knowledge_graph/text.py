"""Text helpers: name normalization, token counting and sentence splitting for CJK and Latin."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# Han, kana, hangul and CJK punctuation/full-width forms: one token per character.
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_RUN = re.compile(f"[{_CJK}]+")
_QUOTES = re.compile(r"[\"'“”‘’「」『』《》〈〉()（）\[\]【】]")
_SPACES = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])|\n+")


def has_cjk(text: str) -> bool:
    """Return whether the text contains any CJK character."""
    return CJK_CHAR.search(text) is not None


def whole_match(text: str, start: int, end: int, key: str) -> bool:
    """CJK names match anywhere; a Latin name must not run into a letter, digit or '_'."""
    if has_cjk(key):
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
    for run in _CJK_RUN.findall(text):
        cjk += len(run)
    rest = _CJK_RUN.sub(" ", text)
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
    for piece in re.findall(f"[{_CJK}]|[^\\s{_CJK}]+|\\s+", text):
        cost = 0 if piece.isspace() else 1
        if used + cost > budget - 1:
            break
        out.append(piece)
        used += cost
    return "".join(out).rstrip() + ellipsis


def split_sentences(text: str) -> list[str]:
    """Split text into sentences on Latin and CJK sentence ends and on newlines."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def clean_cell(value: object, delimiter: str = "|") -> str:
    """Return a table cell on one line without the column delimiter."""
    text = _SPACES.sub(" ", str(value)).strip()
    return text.replace(delimiter, "/")
