"""The names a sentence gives a thing by the kind word the question describes it with.

`named_by_kind` reads them for `bridging`: a Chinese name ending in the kind word
(就讀於滄瀾工學院 for 學院), the person a sentence says a role is (她的老師是建築師范靜宜,
平民工匠畢昇於…), the place of the question's verb (出生於霧溪鎮), and a dynasty (北宋) for
朝代.
"""

from __future__ import annotations

import re
from functools import lru_cache

from treerag.reasoning.called import PROFESSION, STUDIED_UNDER, TEACHER
from treerag.reasoning.name_kinds import NAMED_BY_KIND, feature_of_kind
from treerag.reasoning.relation_held import agent_verb
from treerag.reasoning.text import content_terms
from treerag.text import HAN, HAN_CHAR, fold
from treerag.text.names import ZH_PLACE_SUFFIXES


@lru_cache(maxsize=4096)
def named_by_kind(question: str, sentence: str, kind: str) -> tuple[str, ...]:
    """The names a sentence gives the bridge by its type word.

    A name ending in it, the person it is said to be, the place of the asked verb; read once
    for `typed_first` and `bridge`.
    """
    return (
        *_typed_names(sentence, kind),
        *_person_after(sentence, kind),
        *_place_of(question, sentence, kind),
        *_dynasties(sentence, kind),
    )


def _dynasties(sentence: str, kind: str) -> list[str]:
    """The dynasties a Chinese sentence names, for a question asking one (朝代).

    jieba tags 北宋, 元朝, 清代 words of time, not names; one of two characters or more that
    ends as a dynasty's name does (`FEATURE_KINDS`) is one, 年間 or 中葉 is not.
    """
    if fold(kind) != "朝代":
        return []
    from treerag.segment import tag

    return [w for w, flag in tag(sentence) if flag == "t" and feature_of_kind(w, kind)]


def _person_after(sentence: str, kind: str) -> list[str]:
    """The person a Chinese sentence says its type word is: "她的老師是建築師范靜宜".

    A profession may stand before the name (建築師), which jieba reads into the name as
    "师范"; the name is the two or three characters after it, to the clause's end.
    """
    if not kind or not HAN_CHAR.search(kind) or kind[-1] not in PERSON_KIND_END:
        return []
    folded = fold(sentence)
    at = folded.find(kind)
    found = _IS_PERSON.match(sentence, at + len(kind)) if at >= 0 else None
    if found is None and at >= 0:
        found = _APPOSED.match(sentence, at + len(kind))  # "平民工匠畢昇於慶曆年間…"
    if found is None and kind in TEACHER:
        found = STUDIED_UNDER.search(sentence)  # "師從化學家藺思衡"
    verb = agent_verb(kind)
    if found is None and verb and verb in folded:
        # "由出版家鍾遠鏞在蘅州創辦" names the 创办人: whom 由 leads, before the verb.
        found = _BY_WHOM.search(sentence)
    return [found.group(1)] if found else []


_BY_WHOM = re.compile(
    rf"由\s*{PROFESSION}([{HAN}]{{2,3}}?)(?=\s*(?:[于於在以从從]|出资|出資|主持|亲自|親自))"
)
"""Who a passive sentence says did it: "由出版家鍾遠鏞在蘅州創辦", "由船运商人邵闻舟出资"."""
PERSON_KIND_END = "师師人者家长長生手匠"
"""Last characters of Chinese nouns for a person's role: 老师, 创办人, 设计者, 作曲家, 工匠."""
_APPOSED = re.compile(rf"([{HAN}]{{2,3}}?)(?=[于於在从從曾则則将將与與和及，,。；;（(])")
"""A name right after its role, up to a preposition or a clause's end: "工匠畢昇於…"."""
_IS_PERSON = re.compile(
    rf"(?:是|为|為)\s*(?:[{HAN}]{{1,3}}?[师師家员員匠商手])?([{HAN}]{{2,3}})(?=[，。；、,;]|$)"
)
"""What follows the type word that says who: 是 (a profession) and a name."""


_TYPED_LONGEST = 6
"""Characters a name may have before its type word (a name is short)."""


def _opened(part: str, at: int) -> int | None:
    """Where a name starts after the last opener of a word starting at `at`, None if none."""
    opener = max((j for j, c in enumerate(part) if c in _NAME_OPENS_AFTER), default=-1)
    return at + opener + 1 if opener >= 0 else None


_NAME_OPENS_AFTER = frozenset("于於在到至自从從了为為是的与與和及以")
"""Characters after which a Chinese name begins: prepositions, 了, 是, 的, conjunctions."""
_POINTING_OR_COUNTING = re.compile(
    r"[这這那该該此每几幾一二两兩三四五六七八九十\d][个個座所家位条條艘部本间間]"
)
"""A demonstrative or a number, then a measure word: 这所 (学校), 一座 (小镇)."""


def pointed_or_counted(sentence: str, start: int) -> bool:
    """Whether the words at `start` are a measure word's after a demonstrative or a number.

    这所学校, 一座小镇, 這條鐵路舊稱: a noun pointed at or counted, no name.
    """
    return start > 0 and _POINTING_OR_COUNTING.match(sentence, start - 1) is not None


_NOT_NAME_FLAGS = frozenset({"r", "p", "c", "u", "uj", "ul", "uz", "d", "m"})
"""jieba's tags of words no name is made of, even a single character's: pronouns (她),
prepositions (以), conjunctions, particles, adverbs and numerals."""
_NOT_IN_NAME = frozenset("这這那其一也都就被把将將对對向很")
"""Single characters that stand before a name, not in it."""
_NAME_WORD_FLAGS = ("n", "j", "i", "a", "b")
"""jieba's tags of the words of two characters or more a name is made of: nouns (any n*),
and what an unknown name falls into (滄瀾 is an idiom to it, "i")."""


def _typed_names(sentence: str, kind: str) -> list[str]:
    """Chinese names ending in the type word, as the sentence writes them.

    "就讀於滄瀾工學院" holds 滄瀾工學院 for 學院, "创办了望舒美术学校" 望舒美术学校 for 学校,
    "生于砚湾镇" 砚湾镇 for 镇: from the type word back over the words a name is made of, to
    a preposition, 了 or a verb; a demonstrative (这所学校) or the word alone is no name.
    """
    if not kind or not HAN_CHAR.search(kind) or kind[-1] not in NAMED_BY_KIND:
        return []
    from treerag.segment import tag, word_tag

    words = tag(sentence)
    ends = [0]
    for word, _ in words:
        ends.append(ends[-1] + len(word))
    folded = fold(sentence)
    if len(folded) != len(sentence):
        return []
    out: list[str] = []
    if kind not in folded:
        # "织布合作社" for "青梭织造合作社": the noun's head, its last word, names the kind.
        head = [w for w, _ in tag(kind)][-1:]
        kind = head[0] if head and len(head[0]) > 1 else kind
    for found in re.finditer(re.escape(kind), folded):
        end = found.end()
        at = next(i for i in range(len(words)) if ends[i + 1] > found.start())
        # The characters of the type word's own first word before it belong to the name
        # (工 of 工學院), up to an opener inside it (於 of 就讀於滄瀾).
        start = _opened(words[at][0][: found.start() - ends[at]], ends[at])
        start = ends[at] if start is None else start
        while start == ends[at] and at > 0 and end - ends[at - 1] <= _TYPED_LONGEST + len(kind):
            at -= 1
            word, flag = words[at]
            opened = _opened(word, ends[at])
            if opened is not None:
                start = opened
                break
            # An unknown name falls apart into single characters of any tag (砚 / 湾 / 镇);
            # a verb is in a name after a proper noun ("青梭" + 织造 + 合作社), not after a
            # common one ("父亲迁居砚湾镇").
            proper_before = at > 0 and words[at - 1][1].startswith(("nr", "ns", "nt", "nz"))
            if (
                not HAN_CHAR.fullmatch(word[-1])
                or (len(word) > 1 and not flag.startswith(_NAME_WORD_FLAGS) and not proper_before)
                or word in _NOT_IN_NAME
                or flag in _NOT_NAME_FLAGS
            ):
                break
            start = ends[at]
        name = sentence[start:end]
        counted = bool(name) and pointed_or_counted(sentence, start)
        # "这所学校", "一座小镇": a noun pointed at or counted, and a word of the dictionary
        # (小镇, 工学院) is a kind, not a name.
        common = word_tag(fold(name)) in ("n", "nr", "vn") or counted
        if len(name) > len(kind) and not common and name not in out:
            out.append(name)
    return out


def _place_of(question: str, sentence: str, kind: str) -> list[str]:
    """The place a Chinese sentence's locative phrase gives the question's verb.

    For a bridge described as a place: "出生于鹭屿" for "…出生的那座岛" (鹭屿 ends in no 岛,
    and jieba tags it no name).
    """
    if not kind or kind[-1] not in ZH_PLACE_SUFFIXES or not HAN_CHAR.search(sentence):
        return []
    from treerag.reasoning.place_slot import place_spans
    from treerag.reasoning.relation_held import equivalents
    from treerag.segment import word_tag

    said = [t for t in content_terms(fold(question)) if word_tag(t).startswith("v")]
    verbs = [v for t in said for v in (t, *equivalents(t))]
    folded = fold(sentence)
    if len(folded) != len(sentence):
        return []
    spans = place_spans([v for v in verbs if HAN_CHAR.search(v)], folded) or []
    found = [sentence[a:b].strip() for a, b in spans]
    return [p for p in found if 2 <= len(p) <= 5 and HAN_CHAR.fullmatch(p[-1])]
