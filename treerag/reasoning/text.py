"""Text helpers for the offline reasoner: sentences and content terms in Chinese and English."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z][A-Za-z'\-]*|\d+")
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s+|(?<=[。！？；])|\n+")

# Function words and question words carry no content; short lists, both languages.
EN_STOP = frozenset(
    """
a an and are as at be been being but by can could did do does doing for from had has have
having he her hers him his how i if in into is it its itself just me more most my no nor not
of off on once only or other our out over own same she should so some such than that the
their them then there these they this those through to too under until up very was we were
what when where which while who whom whose why will with would you your yours also about
after again against all any because before below between both down during each few further
here many much one first two name named called known
""".split()
)
ZH_STOP = frozenset(
    """
的 了 是 在 和 与 及 或 也 都 而 被 把 将 对 从 向 于 为 以 之 其 这 那
哪 哪个 哪座 哪条 哪里 哪年 什么
谁 何 几 多少 吗 呢 吧 啊 呀 着 过 个 位 座 条 年 一 有 没有 由 所 最
曾 该 此 些 并 又 还 就 如何 怎样 为何
是否 一个 一座 一条 他 她 它 他们 她们 我 你 我们 所在 位于 出生 请问
""".split()
)


def normalize(text: str) -> str:
    """Unify full/half width and case."""
    return unicodedata.normalize("NFKC", text).lower()


def sentences(text: str) -> list[str]:
    """Split text into sentences at sentence punctuation of both scripts and line breaks.

    Markdown heading lines are dropped: they title a section, they do not state anything.
    """
    return [
        s.strip()
        for s in _SENTENCE.split(text)
        if s and s.strip() and not s.lstrip().startswith("#")
    ]


@lru_cache(maxsize=4096)
def _cut(segment: str) -> tuple[str, ...]:
    import jieba

    return tuple(jieba.lcut(segment))


def tokens(text: str) -> list[str]:
    """Split into words: jieba for Chinese runs, letters/digits otherwise (original case)."""
    out: list[str] = []
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        piece = match.group()
        out.extend(_cut(piece) if _CJK.match(piece) else [piece])
    return out


def content_terms(text: str) -> list[str]:
    """Lower-cased content words in order of appearance, stop words and 1-letter words removed."""
    seen: dict[str, None] = {}
    for tok in tokens(text):
        low = tok.lower()
        if low in EN_STOP or low in ZH_STOP or (len(low) < 2 and not low.isdigit()):
            continue
        seen.setdefault(low, None)
    return list(seen)


# jieba part-of-speech flags of nouns and names (n, nr person, ns place, nt organisation, nz other).
_NOUN_FLAGS = ("n", "nr", "ns", "nt", "nz", "nrt", "nrfg")


def salient_terms(text: str) -> list[str]:
    """Name-like content words: capitalised Latin words, Chinese nouns and names, years."""
    import jieba.posseg

    out: dict[str, None] = {}
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        piece = match.group()
        if _CJK.match(piece):
            for pair in jieba.posseg.lcut(piece):
                if len(pair.word) >= 2 and pair.flag in _NOUN_FLAGS and pair.word not in ZH_STOP:
                    out.setdefault(pair.word, None)
        elif piece.lower() not in EN_STOP and (
            (piece[:1].isupper() and len(piece) > 1) or (piece.isdigit() and len(piece) >= 3)
        ):
            out.setdefault(piece, None)
    return list(out)
