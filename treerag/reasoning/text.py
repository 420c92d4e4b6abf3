"""Text helpers for the offline reasoner: sentences and content terms in Chinese and English."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from treerag.text import EN_STOP, HAN_CHAR, TOKEN, is_zh_stop, title_like, to_simplified
from treerag.text.names import NOT_AN_ABBREVIATION

# A sentence ends after . ! ? ; (not after an initial such as "J." or "St.") followed by
# space, or right after the CJK marks 。！？； (no space follows them in Chinese).
_SENTENCE = re.compile(
    rf"{NOT_AN_ABBREVIATION}(?<=[.!?;])\s+"
    # A closing quotation mark after 。 ends the sentence with it: "…接力开始。”韩正…".
    r"|(?<=[。！？；])(?![”’」』])\s*|(?<=[。！？；][”’」』])\s*"
    # A page's layout, not prose: a gap of three blanks or more, or a paragraph's ideographic
    # indent ("　　"), between a page's header, menu or table cells and its sentences.
    r"|\s*(?:[^\S\n]{3,}|\u3000{2,})\s*"
)
# A line that starts a block of its own: a heading, a list item, a table row, a quote.
_BLOCK_START = re.compile(r"^\s*(#|[-*+•]\s|\d+[.)]\s|\||>)")
_WHITESPACE = re.compile(r"\s+")


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
        fresh = line.startswith("#") or title_like(line)
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
        # Spans of the block, so that a piece joined to the one before keeps what stood
        # between them ("…更好嗎？"）。" has no space to add after its ？).
        joined: list[tuple[int, int]] = []
        for start, end in _pieces(block):
            before = block[joined[-1][0] : joined[-1][1]].strip() if joined else ""
            piece = block[start:end].strip()
            if joined and (_continues(before, piece) or _unclosed(before)):
                joined[-1] = (joined[-1][0], end)
            else:
                joined.append((start, end))
        out += [block[start:end].strip() for start, end in joined]
    return out


def _pieces(block: str) -> list[tuple[int, int]]:
    """The (start, end) of each non-blank piece of a block between sentence ends."""
    spans, at = [], 0
    for match in _SENTENCE.finditer(block):
        spans.append((at, match.start()))
        at = match.end()
    spans.append((at, len(block)))
    return [(start, end) for start, end in spans if block[start:end].strip()]


def _continues(before: str, piece: str) -> bool:
    """Whether `piece`, opening in lower case after English punctuation, goes on `before`.

    "Pick Me Up! is a British magazine" is one sentence; after 。！？ a sentence has ended,
    whatever follows ("…更新产品价格。 iPhone SE3成为焦点" is two).
    """
    return piece[:1].islower() and not before.endswith(("。", "！", "？", "；"))


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
    """The words jieba cuts a Chinese run into, a foreign name joined (`segment.tokens`).

    Read in Simplified and given back as written: a Traditional run cut as written falls
    apart ("以濁水溪作為" gives 水溪作, 以濁).
    """
    from treerag.segment import tokens as cut

    return tuple(word for word, _, _ in cut(segment))


def tokens(text: str) -> list[str]:
    """Split into words: jieba for Chinese runs, letters/digits otherwise (original case).

    A lone Latin letter written onto a Chinese character is one word with it (`_lettered`):
    C羅, A股, B站.
    """
    out: list[str] = []
    text = unicodedata.normalize("NFKC", text)
    for match in TOKEN.finditer(text):
        piece = match.group()
        if HAN_CHAR.match(piece) and out and _lettered(text, match.start(), out[-1], piece):
            out[-1] += piece[0]
            piece = piece[1:]
        if piece:
            out.extend(_cut(piece) if HAN_CHAR.match(piece) else [piece])
    return out


def _lettered(text: str, start: int, before: str, piece: str) -> bool:
    """Whether a Chinese run at `start` goes on a lone Latin letter written right before it.

    jieba reads "C羅在哪個球隊" as C / 羅在 / …, so no sentence holds the question's "羅在" and
    none names its C羅. Only where jieba reads the character alone or in a word its
    dictionary lacks (羅 / 加盟, 羅在); not where it is a function word (方案A和方案B) or
    opens a word of the dictionary (維生素C可以…), nor after a digit (3D打印).
    """
    if len(before) != 1 or not before.isascii() or not before.isalpha():
        return False
    if text[start - 1 : start] != before or text[start - 2 : start - 1].isdigit():
        return False
    from treerag.segment import word_tag

    first = _cut(piece)[0]
    # A word of jieba's dictionary has a tag there (its dictionary is Simplified).
    return not is_zh_stop(piece[0]) and (len(first) == 1 or not word_tag(to_simplified(first)))


def content_terms(text: str) -> list[str]:
    """Lower-cased content words in order of appearance, stop words and 1-letter words removed."""
    seen: dict[str, None] = {}
    for tok in tokens(text):
        low = tok.lower()
        if low in EN_STOP or is_zh_stop(low) or (len(low) < 2 and not low.isdigit()):
            continue
        seen.setdefault(low, None)
    return list(seen)


# jieba part-of-speech flags of nouns and names (n, nr person, ns place, nt organisation, nz other).
_NOUN_FLAGS = ("n", "nr", "ns", "nt", "nz", "nrt", "nrfg")


def salient_terms(text: str) -> list[str]:
    """Name-like content words: capitalised Latin words, Chinese nouns and names, years."""
    from treerag.segment import tag

    out: dict[str, None] = {}
    for match in TOKEN.finditer(unicodedata.normalize("NFKC", text)):
        piece = match.group()
        if HAN_CHAR.match(piece):
            for word, flag in tag(piece):  # read in Simplified, given back as written
                if len(word) >= 2 and flag in _NOUN_FLAGS and not is_zh_stop(word):
                    out.setdefault(word, None)
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


def unpossessed(term: str) -> str:
    """A lower-case Latin word without its possessive ending: "holt's" -> "holt".

    For a question's term: "Maren Holt's apprentice" names Maren Holt, whom a chunk calls
    "Maren Holt". A chunk's "ship's bell" is a bell, and says no "ship" the question asks of.
    """
    return _POSSESSIVE.sub("", term)


_POSSESSIVE = re.compile(r"(?<=[a-z])['’]s?$")


def stems(terms: list[str] | set[str]) -> set[str]:
    """The stems of terms (see `stem`)."""
    return {stem(t) for t in terms}
