r"""Which characters are Chinese (and which are wide): the one definition of the CJK classes.

Ranges are strings for a regex character class (`f"[{HAN}]"`); the compiled helpers below
cover what the callers need. Blocks (Unicode 15):

- Han: CJK Unified Ideographs Extension A (3400-4DBF), CJK Unified Ideographs (4E00-9FFF)
  and CJK Compatibility Ideographs (F900-FAFF). The Yijing hexagram symbols between the
  first two (4DC0-4DFF) are symbols, not words, so they are left out.
- Kana (3040-30FF) and Hangul syllables (AC00-D7AF): Japanese and Korean, scored like Han
  where a metric counts characters.
- CJK symbols and punctuation (3000-303F) and the halfwidth/fullwidth forms (FF00-FFEF):
  they take two columns as Han does, so a token count that counts Han by characters counts
  them so too.
"""

from __future__ import annotations

import functools
import re
from typing import Literal

_EXT_A = "\u3400-\u4dbf"
_UNIFIED = "\u4e00-\u9fff"
_COMPAT = "\uf900-\ufaff"
_KANA = "\u3040-\u30ff"
_HANGUL = "\uac00-\ud7af"
_CJK_PUNCTUATION = "\u3000-\u303f"
_FULLWIDTH = "\uff00-\uffef"

HAN = _EXT_A + _UNIFIED + _COMPAT
"""Chinese characters: what says a text (or a word) is Chinese, and what jieba segments."""
HAN_KANA_HANGUL = HAN + _KANA + _HANGUL
"""Characters scored one by one in answer metrics: Chinese, Japanese and Korean have no spaces
between words, so SQuAD-style token overlap counts their characters."""
CJK_WIDE = _CJK_PUNCTUATION + _KANA + HAN + _HANGUL + _FULLWIDTH
"""Every double-width character: one token each when a prompt budget counts tokens, CJK
punctuation and fullwidth forms included (they cost an LLM tokenizer about as much)."""

WIDE_CHAR = re.compile(f"[{CJK_WIDE}]")
"""One double-width character (`CJK_WIDE`)."""
HAN_CHAR = re.compile(f"[{HAN}]")
"""One Chinese character (`search` to test for any, `match` for a word that starts with one)."""
HAN_RUN = re.compile(f"[{HAN}]+")
"""A run of Chinese characters: the pieces jieba segments."""
LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
"""Latin letters, accented ones included (Latin-1 and Latin Extended A/B and Additional, less
× and ÷): "Agüero", "São Paulo" and "Guðmundsdóttir" are words of one piece each."""
TOKEN = re.compile(f"[{HAN}]+|[{LATIN}][{LATIN}'\\-]*|\\d+")
"""A run of Chinese, a Latin word (apostrophes and hyphens inside), or a number."""


def has_han(text: str) -> bool:
    """Whether text holds a Chinese character."""
    return HAN_CHAR.search(text) is not None


def han_count(text: str) -> int:
    """How many Chinese characters text holds."""
    return len(HAN_CHAR.findall(text))


def has_wide(text: str) -> bool:
    """Whether text holds a double-width character (`CJK_WIDE`: Han, kana, hangul, CJK marks)."""
    return WIDE_CHAR.search(text) is not None


Script = Literal["en", "zh-hans", "zh-hant"]
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


@functools.cache
def _table_chars(name: str) -> frozenset[str]:
    """The characters an OpenCC dictionary always changes, read once.

    A key whose first conversion is itself (出 → 出 齣) is written the same in both scripts
    and tells nothing.
    """
    from pathlib import Path

    import opencc

    chars: set[str] = set()
    with open(Path(opencc.__file__).parent / "dictionary" / name, encoding="utf-8") as fh:
        for line in fh:
            key, _, values = line.rstrip("\n").partition("\t")
            if len(key) == 1 and values.split(" ")[0] != key:
                chars.add(key)
    return frozenset(chars)


def script_of_text(text: str) -> Script:
    """The script a text is written in: "en", "zh-hans" or "zh-hant".

    A text is Chinese when it holds at least as many Chinese characters as Latin words; its
    script is the one more of its characters belong to only (OpenCC's character tables).
    """
    cjk = HAN_CHAR.findall(text)
    if not cjk or len(cjk) < len(_LATIN_WORD.findall(text)):
        return "en"
    traditional, simplified = _script_counts(cjk)
    return "zh-hant" if traditional > simplified else "zh-hans"


def _script_counts(chars: list[str]) -> tuple[int, int]:
    """How many of `chars` are written only in Traditional, and only in Simplified."""
    traditional = sum(ch in _table_chars("TSCharacters.txt") for ch in chars)
    simplified = sum(ch in _table_chars("STCharacters.txt") for ch in chars)
    return traditional, simplified


def script_neutral(text: str) -> bool:
    """Whether a Chinese text is written the same in both scripts ("上海2021年的GDP是多少")."""
    return _script_counts(HAN_CHAR.findall(text)) == (0, 0)
