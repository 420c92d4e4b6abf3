"""Canonical forms: one script (Traditional written as Simplified), one width, one case.

Three strengths, each used where it is today:

- `fold` (NFKC, OpenCC t2s, lower case) compares a question with a chunk;
  `fold_cased` is the same without the case folding (names are found by their capitals);
- `canonical` (`fold`, then punctuation and symbols to spaces) is the key exact matching
  uses: keyword-tree names, document titles, passage-graph names (seed 03 §4.1);
- `width_and_case` (NFKC, lower case) keeps the script: a key that must not merge a
  Traditional text with its Simplified twin.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from treerag.text.script import has_han

# "+" and "#" carry meaning in names such as C++, C# and F#; every other punctuation or
# symbol character separates words.
_KEPT_SYMBOLS = frozenset("+#")


@functools.cache
def _punctuation_table() -> dict[int, str]:
    """Map every BMP punctuation/symbol code point to a space (built on first use)."""
    table: dict[int, str] = {}
    for code in range(0x10000):
        char = chr(code)
        if char in _KEPT_SYMBOLS:
            continue
        if unicodedata.category(char)[0] in "PS":
            table[code] = " "
    return table


@functools.cache
def _converter(config: str) -> Any:
    """The OpenCC converter of a configuration ("t2s", "s2t"), loaded on first use."""
    from opencc import OpenCC

    return OpenCC(config)


def convert(text: str, config: str) -> str:
    """Write text through an OpenCC configuration: "t2s" to Simplified, "s2t" to Traditional."""
    return str(_converter(config).convert(text))


@functools.cache
def _traditional_chars() -> frozenset[str]:
    """Return every character that t2s conversion can change (keys of its dictionaries).

    Text without any of them converts to itself, so the slow converter is skipped for it,
    which is the usual case for queries typed in simplified Chinese.
    """
    from pathlib import Path

    import opencc

    chars: set[str] = set()
    folder = Path(opencc.__file__).parent / "dictionary"
    for name in ("TSCharacters.txt", "TSPhrases.txt"):
        with open(folder / name, encoding="utf-8") as fh:
            for line in fh:
                chars.update(line.split("\t", 1)[0])
    chars.discard("\n")
    return frozenset(chars)


def to_simplified(text: str) -> str:
    """Convert traditional Chinese characters in text to simplified ones."""
    try:
        table = _traditional_chars()
    except OSError:
        return convert(text, "t2s")
    if any(ch in table for ch in text):
        return convert(text, "t2s")
    return text


def width_and_case(text: str) -> str:
    """Unify full/half width (NFKC) and case; the script is kept."""
    return unicodedata.normalize("NFKC", text).lower()


def fold_cased(text: str) -> str:
    """NFKC and Traditional written as Simplified; the case is kept."""
    return to_simplified(unicodedata.normalize("NFKC", text))


def fold(text: str) -> str:
    """The form a question and a chunk are compared in: NFKC, Simplified script, lower case."""
    return fold_cased(text).lower()


def canonical(text: str) -> str:
    """Return the canonical form used for exact matching.

    Steps (seed 03 §4.1): NFKC (full-width letters, digits, spaces and punctuation become
    half-width), lowercase, traditional to simplified Chinese (OpenCC t2s), punctuation and
    symbols to spaces (except ``+`` and ``#``), runs of whitespace to one space, trimmed.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    if not text.isascii() and has_han(text):
        text = to_simplified(text)
    text = text.translate(_punctuation_table())
    return " ".join(text.split())


@functools.lru_cache(maxsize=65536)
def query_key(query: str) -> str:
    """Return the canonical form of a query (cached: queries repeat)."""
    return canonical(query)
