"""Text helpers for the offline reasoner: sentences and content terms in Chinese and English."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z][A-Za-z'\-]*|\d+")
# A sentence ends after . ! ? ; (not after an initial such as "J." or "St.") followed by
# space, or right after the CJK marks 。！？； (no space follows them in Chinese).
_SENTENCE = re.compile(
    r"(?<!\b[A-Z]\.)(?<!\bSt\.)(?<!\bMr\.)(?<!\bDr\.)(?<!\bMt\.)(?<=[.!?;])\s+"
    r"|(?<=[。！？；])\s*"
)
# A line that starts a block of its own: a heading, a list item, a table row, a quote.
_BLOCK_START = re.compile(r"^\s*(#|[-*+•]\s|\d+[.)]\s|\||>)")
_WHITESPACE = re.compile(r"\s+")

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
哪 哪个 哪座 哪条 哪里 哪年 什么 哪些 哪支 哪家 哪位 哪种 哪国 哪部 哪所 哪项 哪次 哪天 哪儿
谁 何 几 多少 吗 呢 吧 啊 呀 着 过 个 位 座 条 年 一 有 没有 由 所 最
曾 该 此 些 并 又 还 就 如何 怎样 为何
是否 一个 一座 一条 他 她 它 他们 她们 我 你 我们 请问
""".split()
)


def normalize(text: str) -> str:
    """Unify full/half width and case."""
    return unicodedata.normalize("NFKC", text).lower()


SHORT_LINE = 40
"""A line narrower than this (CJK characters count 2) without closing punctuation is a title."""
_CLOSING = ".!?;:。！？；：”\"'"


def _width(line: str) -> int:
    return len(line) + len(_CJK.findall(line))


def blocks(text: str) -> list[str]:
    """Join hard-wrapped lines into the blocks they belong to.

    A line break inside a paragraph is not a sentence end: lines are joined with a space.
    Blank lines end a paragraph; a heading, a list item, a table row or a quote starts a
    block of its own, and so does the line after a title-like one (a short line without
    closing punctuation, like a record's title above its text): wrapped lines are long.
    """
    out: list[list[str]] = []
    fresh = True
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            fresh = True
            continue
        if fresh or _BLOCK_START.match(line):
            out.append([])
        out[-1].append(line)
        titled = _width(line) < SHORT_LINE and not line.endswith(tuple(_CLOSING))
        fresh = line.startswith("#") or titled
    return [" ".join(parts) for parts in out]


def sentences(text: str) -> list[str]:
    """Split text into sentences at sentence punctuation of both scripts, after `blocks`.

    Markdown heading lines are dropped: they title a section, they do not state anything.
    A piece that opens with a lower-case letter ("Pick Me Up! is a British magazine") or
    that follows an unclosed bracket ("Giuliani (; born 1944) is…") continues the sentence
    before it: punctuation inside a name or a parenthesis does not end a sentence.
    """
    out: list[str] = []
    for block in blocks(text):
        if block.startswith("#"):
            continue
        joined: list[str] = []
        for piece in (p.strip() for p in _SENTENCE.split(block) if p and p.strip()):
            if joined and (piece[:1].islower() or _unclosed(joined[-1])):
                joined[-1] = f"{joined[-1]} {piece}"
            else:
                joined.append(piece)
        out += joined
    return out


def _unclosed(sentence: str) -> bool:
    """Whether a sentence leaves a bracket open (its end is inside a parenthesis)."""
    return sentence.count("(") + sentence.count("（") > sentence.count(")") + sentence.count("）")


_FOOTNOTE = re.compile(r"\s*\[\d{1,4}\]")


def unfootnoted(text: str) -> str:
    """Drop a document's own footnote marks ("…17公里[11]。", "shipyard.[3]").

    Quoted in an answer they would read as its citations, and point at the wrong chunk.
    """
    return _FOOTNOTE.sub("", text)


def squash(text: str) -> str:
    """Collapse whitespace runs to one space (to compare quoted sentences with their source)."""
    return _WHITESPACE.sub(" ", text).strip()


@lru_cache(maxsize=4096)
def _cut(segment: str) -> tuple[str, ...]:
    from treerag.segment import jieba

    return tuple(jieba().lcut(segment))


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
        if low in EN_STOP or is_zh_stop(low) or (len(low) < 2 and not low.isdigit()):
            continue
        seen.setdefault(low, None)
    return list(seen)


def is_zh_stop(word: str) -> bool:
    """Whether a word is a Chinese stop word, in either script (什麼 is 什么)."""
    if word in ZH_STOP:
        return True
    if not _CJK.match(word):
        return False
    from treerag.keyword_tree.normalize import to_simplified

    return to_simplified(word) in ZH_STOP


# jieba part-of-speech flags of nouns and names (n, nr person, ns place, nt organisation, nz other).
_NOUN_FLAGS = ("n", "nr", "ns", "nt", "nz", "nrt", "nrfg")


def salient_terms(text: str) -> list[str]:
    """Name-like content words: capitalised Latin words, Chinese nouns and names, years."""
    from treerag.segment import posseg

    out: dict[str, None] = {}
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        piece = match.group()
        if _CJK.match(piece):
            for pair in posseg().lcut(piece):
                if len(pair.word) >= 2 and pair.flag in _NOUN_FLAGS and not is_zh_stop(pair.word):
                    out.setdefault(pair.word, None)
        elif piece.lower() not in EN_STOP and (
            (piece[:1].isupper() and len(piece) > 1) or (piece.isdigit() and len(piece) >= 3)
        ):
            out.setdefault(piece, None)
    return list(out)


STEM_LENGTH = 6
"""Latin words are compared by their first six letters: director/directed, captain/captained."""


def stem(term: str) -> str:
    """A crude stem for matching question terms in a chunk: the first `STEM_LENGTH` letters."""
    return term[:STEM_LENGTH] if term.isascii() and term.isalpha() else term


def stems(terms: list[str] | set[str]) -> set[str]:
    """The stems of terms (see `stem`)."""
    return {stem(t) for t in terms}
