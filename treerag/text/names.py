"""Proper names a text gives, in English and Chinese, without a model: one finder, two rules.

`proper_names(text, rule)` finds capitalised Latin word runs and Chinese proper nouns (jieba's
part-of-speech tags). The two rules differ where their users measured different needs:

- `READING` (the offline judge reads questions and sentences): a single capitalised word is
  a name unless it opens a sentence ("Brennick", but not "Among …"); inner "of"/"the"/"de"
  glue words; Chinese runs of adjacent nouns with a proper noun among them or of two nouns
  or more ("潮匠" + "行会"), cut to start at a person's name, and a Chinese place after a
  preposition (在渡口县). The judge's follow-ups and bridges are built from these, so a
  name missed is a hop missed.
- `LINKING` (the passage graph's shared names, the question names the judge looks up in a
  chunk, the heuristic extractor): only runs of two capitalised words or more, and Chinese
  runs of jieba's person/place/organisation tags ("·" joins them). A name shared between
  passages links them, so a loose name (a lone capitalised word, a common noun) links
  passages that have nothing in common.

The rules stay two because the judge's tests and the graph's figures depend on each.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Literal

from treerag.text.canonical import to_simplified
from treerag.text.script import HAN, HAN_CHAR, LATIN, has_wide
from treerag.text.stopwords import EN_STOP, is_zh_stop

NameRule = Literal["reading", "linking"]
READING: NameRule = "reading"
LINKING: NameRule = "linking"


def proper_names(text: str, rule: NameRule = LINKING) -> list[str]:
    """Name-like spans of a text in order of appearance, under `rule` (see the module)."""
    return _reading_names(text) if rule == READING else _linking_names(text)


# --- READING ---------------------------------------------------------------------------------

WORD = re.compile(f"[{HAN}]+|[{LATIN}][{LATIN}'\\-]*(?:(?<=-)[{LATIN}\\d\\-]+)?|\\d+")
"""A run of Chinese, a Latin word (a code such as ZEBRA-ACME-4471 whole), or a number."""
NAME_FLAGS = ("nr", "ns", "nt", "nz", "nrt", "nrfg")
"""jieba's tags of proper nouns: people, places, organisations, other names."""
ZH_PLACE_SUFFIXES = "镇鎮村县縣市省州区區乡鄉岛島城港湾灣湖江河山"
"""The last character of a Chinese place name: 青石镇, 渡口县, 沧江."""
_ZH_PLACE = re.compile(f"(?:在|于|於|到|至|自|从|從)([{HAN}]{{1,5}}?[{ZH_PLACE_SUFFIXES}])")
"""A Chinese place after a preposition: 出生在渡口县, 位于沧江下游 (jieba tags few as names)."""
NAME_GLUE = frozenset({"of", "the", "de", "da", "van", "von", "del", "la", "le", "and"})
"""Lower-case words inside a capitalised name: "Guild of Tidewrights", "Ludwig van Beethoven"."""


SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾萧肖田董袁潘蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛"
    "郝龚邵万钱严武戴莫孔向汤洪柯庄翁游詹施赖简"
)
"""Common one-character Chinese surnames (Simplified), the most frequent in mainland China's
and Taiwan's household registers."""
_SURNAME_TAGS = ("nr", "ng", "m")
"""What jieba tags a surname it reads alone: a person (nr), a noun morpheme (林 ng), a number
(许 m)."""
_GIVEN_TAGS = ("nr", "t", "ng", "nz")
"""What jieba tags a given name it reads apart from its surname: a person (明哲 nr), a time
word (秋月 t), a noun morpheme, another name."""


def joined_persons(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A surname jieba reads alone joined to the given name after it, as one person (nr).

    jieba knows common given names (王小明) but reads a rarer one apart: 林 / 秋月 (a time
    word), 许 / 明哲, so "画家林秋月应邀…" named no one; its text gives 林秋月 back.
    """
    out: list[tuple[str, str]] = []
    at = 0
    while at < len(pairs):
        word, flag = pairs[at]
        if at + 1 < len(pairs) and len(word) == 1 and flag.startswith(_SURNAME_TAGS):
            given, given_flag = pairs[at + 1]
            if (
                to_simplified(word) in SURNAMES
                and 1 <= len(given) <= 2
                and HAN_CHAR.match(given)
                and given_flag.startswith(_GIVEN_TAGS)
            ):
                out.append((word + given, "nr"))
                at += 2
                continue
        out.append((word, flag))
        at += 1
    return out


@lru_cache(maxsize=8192)
def _zh_names(run: str) -> tuple[str, ...]:
    """Runs of adjacent nouns with a proper noun among them, or of two nouns or more.

    "香港立法会" (an organisation), "潮匠" + "行会" -> "潮匠行会" (a compound name).
    """
    from treerag.segment import tag

    out: list[str] = []
    group: list[tuple[str, str]] = []
    pairs = [*joined_persons(tag(run)), None]  # read in Simplified, given back as written
    for at, pair in enumerate(pairs):
        if pair is not None and (pair[1].startswith("n") or pair[1] == "eng"):
            after = pairs[at + 1]
            after_organisation = bool(group) and group[-1][1] == "nt" and pair[1] in ("n", "vn")
            if after_organisation or (pair[1] == "nt" and any(f in NAME_FLAGS for _, f in group)):
                # An organisation after a name is a name of its own: "女篮世界杯" +
                # "中国女篮" (nt), "卡塔尔世界杯" + "韩国队"; a common noun after one is
                # not of its name ("中国男足" + 同组, "中国女篮" + 主教练).
                _flush_name(group, out)
                group = [pair]
                continue
            # "唐若梅毕业于…": a common noun before a preposition is the verb of the clause
            # (jieba tags 毕业 a noun), not a word of the name before it.
            if not (group and pair[1] == "n" and after is not None and after[1] == "p"):
                group.append(pair)
                continue
        _flush_name(group, out)
        group = []
    return tuple(out)


_FEATURE_ENDS = "溪河江湖潭峰岛島"
"""The last character of a river's, a lake's, a peak's or an island's name."""


def _feature(group: list[tuple[str, str]]) -> bool:
    """Whether one noun of three characters or more names a river, lake, peak or island.

    jieba's dictionary tags some such names common nouns (浊水溪 n); its kind ends the name.
    """
    return len(group) == 1 and len(group[0][0]) >= 3 and group[0][0][-1] in _FEATURE_ENDS


def _flush_name(group: list[tuple[str, str]], out: list[str]) -> None:
    """Add the name a run of nouns makes, if it makes one (`_zh_names`)."""
    # A person's name starts at the name: "工程师佩林" (engineer Perrin), "师从沈疑微".
    first_person = next((i for i, (_, f) in enumerate(group) if f == "nr"), 0)
    group = group[first_person:]
    word = "".join(w for w, _ in group)
    proper = any(f in NAME_FLAGS for _, f in group) or len(group) >= 2 or _feature(group)
    if len(word) >= 2 and proper and not is_zh_stop(word):
        out.append(word)


def _reading_names(text: str) -> list[str]:
    """Capitalised word runs (single words too) and Chinese proper nouns (`READING`).

    An initial is part of a name ("M. Ward", "Jon L. Luther", "D.P. Varma"): its full stop
    does not end the run, and the name is given as the text writes it.
    """
    text = unicodedata.normalize("NFKC", text)
    out: dict[str, None] = {}
    run: list[str] = []
    spans: list[tuple[int, int]] = []
    opening: set[int] = set()  # a run that opens a sentence ("Among the vessels …")

    def flush() -> None:
        while run and (
            run[-1].lower() in NAME_GLUE
            # "… in Group A.": an initial after a word closes the sentence, not a name
            or (len(run) > 1 and _INITIAL.fullmatch(run[-1]) and not _INITIAL.fullmatch(run[-2]))
        ):
            run.pop()
            spans.pop()
        single_opening = len(run) == 1 and len(out) in opening
        if run and not single_opening and run[0].lower() not in EN_STOP:
            if not (len(run) == 1 and _INITIAL.fullmatch(run[0])):
                out.setdefault(" ".join(text[spans[0][0] : spans[-1][1]].split()), None)
        opening.discard(len(out))
        run.clear()
        spans.clear()

    last_end = 0
    for match in WORD.finditer(text):
        piece = match.group()
        gap = text[last_end : match.start()]
        last_end = match.end()
        after_initial = bool(run) and _INITIAL.fullmatch(run[-1]) is not None
        if run and gap.strip() and not (after_initial and gap.strip() == "."):
            flush()  # punctuation ends a name (the full stop of an initial does not)
        elif after_initial and piece.lower() in EN_STOP:
            flush()  # "… the U.S. Then …": a sentence ends after the initial
        if HAN_CHAR.match(piece):
            flush()
            for word in _zh_names(piece):
                out.setdefault(word, None)
            for place in _ZH_PLACE.finditer(piece):
                out.setdefault(place.group(1), None)
        elif piece.isupper() and len(piece) == 1 and text[match.end() : match.end() + 1] == ".":
            run.append(piece + ".")
            spans.append((match.start(), match.end() + 1))
            last_end = match.end() + 1
            if len(run) == 1 and _opens_sentence(text, match.start()):
                opening.add(len(out))
        elif piece[:1].isupper() and len(piece) > 1:
            if not run and piece.lower() in EN_STOP:
                continue  # "The", "In" opening a sentence
            run.append(piece)
            spans.append(match.span())
            if len(run) == 1 and _opens_sentence(text, match.start()):
                opening.add(len(out))
        elif run and piece.lower() in NAME_GLUE:
            run.append(piece)
            spans.append(match.span())
        else:
            flush()
    flush()
    return list(out)


_INITIAL = re.compile(r"[A-Z]\.")
"""An initial of a name: one capital and its full stop."""
_SENTENCE_OPENING = re.compile(r"(^|[.!?:]\s*[\"“(]?)$")
"""What stands before a sentence's first word: nothing, or a sentence end (a quote mark)."""


def _opens_sentence(text: str, at: int) -> bool:
    """Whether the word at `at` is a sentence's first ("Among the vessels …")."""
    return _SENTENCE_OPENING.search(text[:at]) is not None


# --- LINKING ---------------------------------------------------------------------------------

# Capitalised words that start sentences or stand alone without naming anything.
_STOP = frozenset(
    """a an the this that these those it its he she they we you i his her their our my your
    in on at of for to from by with as and or but if when while after before since during
    however although though despite because also there here then thus so yet not no yes
    what which who whom whose where why how all some any each every many most more one two
    is are was were be been has have had do does did may might can could will would shall
    should must mr mrs ms dr st about above across against along among around behind below
    beneath beside besides between beyond into near onto over per through throughout toward
    towards under until unlike upon via within without""".split()
)
_CONNECTORS = frozenset("of de la le du di da von van der den del y and the".split())
_TOKEN = re.compile(r"[^\W\d_][\w'’\-]*|\S")
_ZH_FLAGS = {"nr": "person", "ns": "location", "nt": "organization", "nz": "entity"}
_ZH_JOIN = frozenset("·•・")
NOT_AN_ABBREVIATION = r"(?<!\b[A-Z]\.)(?<!\bSt\.)(?<!\bMr\.)(?<!\bDr\.)(?<!\bMt\.)"
"""Before a full stop that ends no sentence: an initial ("M. Ward") or a title ("St. Paul")."""
_SENTENCE_END = re.compile(rf"{NOT_AN_ABBREVIATION}(?<=[.!?;。！？；])\s+|(?<=[。！？；])|\n+")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences on Latin and CJK sentence ends and on newlines."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _name_follows(tokens: list[str], i: int) -> bool:
    """Return whether a capitalised word follows, past connectors ("Church of the Goddess")."""
    while i < len(tokens) and tokens[i].lower() in _CONNECTORS:
        i += 1
    return i < len(tokens) and tokens[i][0].isupper() and tokens[i][0].isalpha()


def _is_initial(tokens: list[str], i: int) -> bool:
    """Whether a token is an initial of a name: one capital, its full stop, then a capital."""
    return (
        len(tokens[i]) == 1
        and tokens[i].isupper()
        and i + 2 < len(tokens)
        and tokens[i + 1] == "."
        and tokens[i + 2][:1].isupper()
        and tokens[i + 2].lower() not in _STOP  # "… the U.S. It rained": a sentence's end
    )


def latin_spans(sentence: str) -> list[str]:
    """Runs of capitalised words of one sentence, 'of', 'de', … allowed between them.

    Single words are kept: the extractor weighs them; `LINKING` names leave them out.
    """
    spans: list[str] = []
    current: list[str] = []
    tokens = _TOKEN.findall(sentence)
    initial = False  # the token is the full stop of an initial: "M" "." "Ward" is "M. Ward"
    for i, tok in enumerate(tokens):
        if initial:
            initial = False
            continue
        if _is_initial(tokens, i):
            current.append(tok + ".")
            initial = True
        elif tok[0].isupper() and tok[0].isalpha():
            current.append(tok)
        elif current and tok.lower() in _CONNECTORS and _name_follows(tokens, i + 1):
            current.append(tok)
        else:
            spans.append(" ".join(current))
            current = []
    spans.append(" ".join(current))
    out = []
    for span in spans:
        words = span.split()
        while words and words[0].lower() in _STOP:
            words = words[1:]
        if words and not (len(words) == 1 and words[0].lower() in _STOP):
            out.append(" ".join(words))
    return out


def chinese_nouns(sentence: str) -> list[tuple[str, str, bool]]:
    """(word, type, proper) for the jieba nouns of one sentence; adjacent proper nouns joined.

    Proper nouns (nr / ns / nt / nz tags) are typed person / location / organization /
    entity; plain nouns ("n") of two characters or more are concepts, not proper.
    """
    from treerag.segment import tag

    out: list[tuple[str, str, bool]] = []
    run: list[str] = []
    run_type = ""
    for word, flag in tag(sentence):  # read in Simplified, given back as written
        kind = next((t for f, t in _ZH_FLAGS.items() if flag.startswith(f)), None)
        if kind is not None or (run and word in _ZH_JOIN):
            run.append(word)
            run_type = run_type or kind or "entity"
            continue
        if run:
            out.append(("".join(run).strip("".join(_ZH_JOIN)), run_type, True))
            run, run_type = [], ""
        if flag == "n" and len(word) >= 2:
            out.append((word, "concept", False))
    if run:
        out.append(("".join(run).strip("".join(_ZH_JOIN)), run_type, True))
    return [(w, t, p) for w, t, p in out if len(w) >= 2]


def _linking_names(text: str) -> list[str]:
    """Capitalised runs of two or more words, jieba person/place/org tags (`LINKING`).

    Single capitalised words are left out (sentence starts, common nouns in titles); a CJK
    proper noun needs jieba's nr / ns / nt tag (nz, "other proper noun", is too loose).
    """
    names: list[str] = []
    for sentence in split_sentences(text):
        names += [s for s in latin_spans(sentence) if " " in s]
        if has_wide(sentence):
            names += [
                w for w, kind, proper in chinese_nouns(sentence) if proper and kind != "entity"
            ]
    return names
