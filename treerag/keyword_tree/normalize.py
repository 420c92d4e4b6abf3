"""Name and query normalization of seed 03 §4.1: case, width, punctuation, script, pinyin."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from typing import Any

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
def _t2s() -> Any:
    """Return the OpenCC traditional-to-simplified converter (loaded on first use)."""
    from opencc import OpenCC

    return OpenCC("t2s")


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
        return str(_t2s().convert(text))
    if any(ch in table for ch in text):
        return str(_t2s().convert(text))
    return text


def has_cjk(text: str) -> bool:
    """Return whether text holds a CJK ideograph."""
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


def canonical(text: str) -> str:
    """Return the canonical form used for exact matching.

    Steps (seed 03 §4.1): NFKC (full-width letters, digits, spaces and punctuation become
    half-width), lowercase, traditional to simplified Chinese (OpenCC t2s), punctuation and
    symbols to spaces (except ``+`` and ``#``), runs of whitespace to one space, trimmed.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    if not text.isascii() and has_cjk(text):
        text = to_simplified(text)
    text = text.translate(_punctuation_table())
    return " ".join(text.split())


@functools.lru_cache(maxsize=65536)
def query_key(query: str) -> str:
    """Return the canonical form of a query (cached: queries repeat)."""
    return canonical(query)


def pinyin_forms(text: str) -> list[str]:
    """Return the toneless pinyin of canonical text, joined without and with spaces."""
    if not has_cjk(text):
        return []
    from pypinyin import lazy_pinyin

    parts = [part.strip() for part in lazy_pinyin(text)]
    words = [word for part in parts for word in part.split()]
    if not words:
        return []
    return ["".join(words), " ".join(words)]


def forms_of(text: str) -> list[str]:
    """Return every normalized form of one name or alias, canonical form first."""
    base = canonical(text)
    if not base:
        return []
    forms = [base]
    if " " in base:
        forms.append(base.replace(" ", ""))
    forms.extend(pinyin_forms(base))
    return _unique(forms)


def normalized_forms(name: str, aliases: Iterable[str] = ()) -> list[str]:
    """Return the ``normalized[]`` list of a keyword: the forms of its name and aliases."""
    forms: list[str] = []
    for text in (name, *aliases):
        forms.extend(forms_of(text))
    return _unique(forms)


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))
