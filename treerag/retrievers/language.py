"""Language of a query and the script variants (Traditional/Simplified, full/half width) of it."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Literal

from treerag.text import convert, han_count, has_han

Language = Literal["zh", "en", "other", "none"]

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def language_of(text: str) -> Language:
    """Say which language a text (query or chunk) is mostly in, counting ideographs and words.

    One Chinese character carries about as much as one English word (a common rule of thumb
    for CJK token counts), so "RCEP具体包括哪些国家" (1 word, 8 ideographs) is Chinese and
    "What is 长城 called in English?" (5 words, 2 ideographs) is English.
    """
    text = unicodedata.normalize("NFKC", text)
    cjk = han_count(text)
    latin = len(_LATIN_WORD.findall(text))
    if cjk == 0 and latin == 0:
        return "other" if any(ch.isalnum() for ch in text) else "none"
    return "zh" if cjk >= latin else "en"


@functools.lru_cache(maxsize=4096)  # keyed by query text: unbounded, it grew with each question
def _search_words(text: str) -> tuple[str, ...]:
    from treerag.segment import jieba

    return tuple(w for w in jieba().lcut_for_search(text) if w.strip())


def script_variants(query: str) -> list[str]:
    """Return the query's other forms: half-width (NFKC), Simplified (t2s), Traditional (s2t).

    Only forms that differ from the query are returned. Full-width Latin letters and digits
    ("１２人") become half-width; Chinese is converted with OpenCC's phrase-aware tables.
    """
    forms: list[str] = []
    half = unicodedata.normalize("NFKC", query)
    if half != query:
        forms.append(half)
    if has_han(half):
        for config in ("t2s", "s2t"):
            converted = convert(half, config)
            if converted != query and converted not in forms:
                forms.append(converted)
    return forms


def expand_for_bm25(query: str) -> str:
    """Append the words of the query's other script forms that the query itself lacks.

    Documents are indexed as written, and jieba (the Chinese BM25 analyzer) segments each
    script on its own, so a Traditional query scores Traditional documents exactly as before
    and reaches Simplified ones through the added words, and the reverse. Folding documents
    and queries to one script instead lost BM25 recall on a Traditional multi-hop set
    (R@5 0.779 -> 0.750, LANDMINES.md); this keeps the unfolded scores and only adds matches.
    Each added word appears once, only when absent from the query and only when it holds a
    converted character, since Milvus weights query terms by their count (milvus_lite
    analyzer/sparse.py `compute_tf`).
    """
    variants = script_variants(query)
    if not variants:
        return query
    seen = set(_search_words(query))
    extra: list[str] = []
    for form in variants:
        changed = set(form) - set(query)
        for word in _search_words(form):
            # A word made only of characters the query already has is a re-segmentation of
            # the query, not a new form: adding it only adds noise (measured in BENCHMARKS.md).
            if word not in seen and changed.intersection(word):
                seen.add(word)
                extra.append(word)
    return f"{query} {' '.join(extra)}" if extra else query
