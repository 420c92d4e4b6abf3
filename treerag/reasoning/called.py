"""The name a sentence gives a thing a Chinese question asks the name of.

"北京冬奥会吉祥物叫什么" asks what the mascot is called. A news text gives the name right
after the noun, in apposition: bare ("吉祥物冰墩墩以熊猫为原型"), in brackets
("吉祥物（冰墩墩）") or in quotation marks ("吉祥物“冰墩墩”"). Segmentation cuts an unknown
name apart (冰墩 / 墩), and the sentence's other names (熊猫, of "以熊猫为原型") are not what
is asked: the apposition is read here, and where a sentence gives one, it is the sentence's
only candidate.

A bare apposition is the run of words after the noun that jieba's dictionary does not know
(冰墩), or single characters that are no function word (墩), up to the first word it knows
or one a function word opens (以, 极具, 一墩): "吉祥物极具深意" names nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from treerag.reasoning.text import content_terms
from treerag.text import HAN, HAN_CHAR

_ASKS_NAME = re.compile(
    rf"([{HAN}]+?)的?(?:名字|名称)?(?:叫做?|名叫|称为|称作)什么(?:名字)?"
    rf"|([{HAN}]+?)的?(?:名字|名称|写法)(?:是什么|为何)"
    rf"|([{HAN}]+?)(?:曾经|曾)?(?:使用|用)过?什么(?:名字|名称)"
)
"""A canonical Chinese question asking what something is called, the noun before it."""
_OPENING = {"（": "）", "(": ")", "“": "”", "「": "」", '"': '"', "《": "》"}
_DEMONSTRATIVE = frozenset("这那该此本")
_FUNCTION = frozenset("以和与及是为在的了将被从对把向于就也都而并或等之其这那一")
"""Characters that end a bare apposition: particles, prepositions, conjunctions."""
_LONGEST = 12
"""Characters a bare apposition is read in (a name is short)."""
_BARE_NAME = re.compile(rf"[^\W\d{''.join(sorted(_FUNCTION))}]{{1,{_LONGEST}}}")
"""A run of characters up to punctuation, a digit or a function word."""


@lru_cache(maxsize=1024)
def named_noun(folded: str) -> tuple[str, str]:
    """The noun a canonical Chinese question asks the name of, and the word before it.

    "北京冬奥会吉祥物叫什么" → ("冬奥会", "吉祥物"): the mascot of the Winter Olympics, not
    the Paralympics' ("冬残奥会吉祥物“雪容融”" names another). A demonstrative (这部) is no
    such word. ("", "") when the question asks no name.
    """
    found = _ASKS_NAME.search(folded)
    if found is None:
        return "", ""
    former = next((n for n in FORMER_NAMES if n in found.group()), "")
    if not former and PAST.search(found.group()):
        former = FORMER_NAMES[0]  # "嘉义市在旧时的名称为何", "浊水溪在过去又被叫做什么"
    if former:
        # "石渠村原名叫什么" (which jieba reads 村原 / 名叫): the former name is asked whole.
        return "", former
    words = content_terms(found.group(1) or found.group(2) or found.group(3))
    if not words or not HAN_CHAR.match(words[-1]):
        return "", ""
    before = words[-2] if len(words) > 1 and words[-2][0] not in _DEMONSTRATIVE else ""
    return before, words[-1]


_NAMING = "(?:的?(?:名字|名称)(?:是|为|叫做|叫作|叫)|名叫|名为|取名为?|命名为|被称为|称为)"
"""The words that give a name: "吉祥物的名字是“拉伊卜”", "它的名字叫作拉伊卜", "名为冰墩墩"."""
_NAMING_AFTER = re.compile(rf"{_NAMING}\s*")


FORMER_NAMES = ("旧称", "旧名", "原名", "原称", "古称", "曾名", "初名", "本名")
"""Nouns for a name a thing had before (canonical): a text says any of them for another
("原名叫什么" is answered by "该村旧称「下渠庄」")."""
PAST = re.compile(r"旧时候?|过去|以前|从前|早期|古时候?|古代|昔日|当初|最初|原先|原本")
"""Words that put the name asked in the past: the name asked is a former one."""
ATTRIBUTE = re.compile(
    r"面积|人口|长度|高度|海拔|深度|宽度|周长|重量|体积|容量|年龄|身高|距离|全长|总长|规模|价格"
    rf"|{'|'.join(FORMER_NAMES)}|别称|别名"
)
"""Nouns of an attribute, which jieba glues to the name before them: a measure (澄渊湖面积)
or another name (柳湾镇旧称)."""
TEACHER = frozenset({"老师", "导师", "师父", "恩师"})
"""Nouns for a teacher, whom a text names by "师从…" as often as by the noun."""
PROFESSION_END = "师師家员員匠商手人长長"
"""The last character of a profession's noun (建築師, 出版家, 琴匠, 船长)."""
PROFESSION = rf"(?:[{HAN}]{{1,4}}?[{PROFESSION_END}])?"
"""A profession before a name (建築師, 出版家, 老琴匠, 远洋船长), read lazily: the name follows."""
STUDIED_UNDER = re.compile(
    rf"(?:师从|師從|受业于|受業於)\s*{PROFESSION}([{HAN}]{{2,3}}?)"
    r"(?=[，。；、,;]|$|学|學|习|習|研习|研習|攻读|攻讀)"
)
"""Whom a sentence says someone studied under, in either script: "師從化學家藺思衡，…",
"师从刻书家柳知远学习版画" (what was learnt may follow the teacher)."""


def called(asked: tuple[str, str], folded: str, anchored: bool = False) -> list[str]:
    """The names a canonical sentence gives the asked noun (`named_noun`).

    In apposition ("吉祥物“拉伊卜”", "吉祥物冰墩墩"), or after the words that give a name,
    right after the noun or later in the sentence ("吉祥物揭晓，它的名字叫作拉伊卜"); only
    the first when `anchored`.
    """
    before, noun = asked
    nouns = FORMER_NAMES if noun in FORMER_NAMES else (noun, *_shortened(noun))
    said = "|".join(map(re.escape, nouns))
    # "最具代表性的学术著作" is said "代表著作为《…》": the quality by its stem, the noun by
    # its head word, a copula before the name.
    befores = "|".join(map(re.escape, dict.fromkeys((before, before.removesuffix("性")))))
    phrase = re.compile(f"(?:{befores})的?(?:{said})(?:为|是)?" if before else f"(?:{said})")
    out: list[str] = []
    if noun in TEACHER:
        # "她早年师从老琴匠乔慕唐": whom she studied under is her teacher.
        out += [m.group(1) for m in STUDIED_UNDER.finditer(folded)]
    naming = () if anchored else tuple(_NAMING_AFTER.finditer(folded))
    for match in (*phrase.finditer(folded), *naming):
        # After the words that give a name, the name follows whatever the dictionary
        # knows of its characters (拉伊 of 拉伊卜 is in it).
        named = match.re is _NAMING_AFTER
        name = _apposition(folded[match.end() :].lstrip(), named)
        if name and name not in out:
            out.append(name)
    return out


def _shortened(noun: str) -> tuple[str, ...]:
    """A Chinese compound noun's head word, its last two characters (学术著作 → 著作)."""
    return (noun[-2:],) if len(noun) >= 4 and HAN_CHAR.match(noun[-1]) else ()


def _apposition(after: str, named: bool = False) -> str:
    """The name at the start of `after`: bracketed or quoted whole, else a bare run.

    A bare run after the words that give a name (`named`) is read up to punctuation or a
    function word; else only over words the dictionary does not know.
    """
    if after[:1] in _OPENING:
        close = after.find(_OPENING[after[0]], 1)
        inner = after[1:close] if close > 0 else ""
        return inner.strip() if 2 <= len(inner.strip()) <= _LONGEST else ""
    if named:
        found = _BARE_NAME.match(after)
        return found.group() if found and len(found.group()) >= 2 else ""
    from treerag.segment import jieba

    freq = jieba().dt.FREQ
    run: list[str] = []
    unknown = False
    for word in jieba().lcut(after[:_LONGEST]):
        if not all(HAN_CHAR.match(c) for c in word) or word[0] in _FUNCTION:
            break  # punctuation, a digit, a particle, or a word one opens (一墩 of 一墩难求)
        if len(word) > 1 and freq.get(word):
            break  # a word the dictionary knows (极具, 受到)
        run.append(word)
        unknown = unknown or len(word) > 1
    name = "".join(run)
    return name if unknown and len(name) >= 2 else ""


def former_named(folded: str, relation: tuple[str, ...]) -> tuple[str, ...]:
    """The relation of a question asking a former name in other words than a text's.

    "嘉义市在旧时的名称为何" asks its former name (`named_noun`): a text says it by
    旧称 or one of its other words (`FORMER_NAMES`), not by the question's 旧时 / 名称 / 叫做.
    """
    former = named_noun(folded)[1]
    if former not in FORMER_NAMES or former in folded:
        return relation
    return (*(t for t in relation if not _FORMER_ASKED.search(t)), former)


_FORMER_ASKED = re.compile(
    rf"^(?:{PAST.pattern}|名称|名字|写法|叫做?|称为|称作|被叫做?|被称为|曾经|使用|用过)$"
)
"""The words a question asks a former name with, which no text need repeat."""
