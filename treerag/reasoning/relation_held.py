"""How much of a question's relation a text holds: terms, their other words, rates, ordinals.

- **A term is present** in a text when its canonical form is: a Chinese term as a substring
  (segmentation-free: 开始 and 动工 are in 开始动工兴建), a Latin word by its first six
  letters (`text.stem`: founder / founded) or its Snowball stem in a verb form (open /
  opened).
- **Each relation term counts one**; a Chinese term is credited with the share of it that
  the text holds as one run of characters (segmentation-free: 出生 in 出生于; half of 动工 in
  动身; only half of 出生 from 出身 and 学生 apart; 起点 holds two thirds of 起跑点), whole
  by one of its other words (`EQUIVALENT_WORDS`: 生于 for 出生), a rate (增长率) by its verb
  and a percentage, and a journey by a short name (访华) by its verb and the name in full
  (访问中国).
- **An ordinal the question gives** (第31任, the first) must be in the text.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from treerag.reasoning.called import FORMER_NAMES
from treerag.reasoning.reading import QuestionReading
from treerag.reasoning.text import content_terms, stem, unpossessed
from treerag.text import HAN_CHAR

RELATION_SHARE = 0.75
"""Share of the relation a sentence must hold to answer: all of up to three Latin terms,
three of four. Not fitted on a data set: it is the share at which one paraphrased word is
forgiven in a question of four relation words or more, and none in a shorter one."""


def present(term: str, folded: str, stems: set[str]) -> bool:
    """Whether a canonical term is in a canonical text (Chinese as a substring; rules above).

    A Latin term is there when a word of the text has its stem (`stem`: the first letters,
    director / directed), or is a verb's inflected form of it (`inflected`: open / opened).
    """
    if HAN_CHAR.search(term):
        return term in folded
    # As written ("merchants'" of "the Merchants' Hall"), or a name without its possessive.
    return any(
        stem(t) in stems or inflected(t) in stems or not verb_lemmas(t).isdisjoint(stems)
        for t in {term, unpossessed(term)}
    )


def text_stems(folded: str) -> set[str]:
    """The stems of a canonical text's content terms (what `present` looks Latin words up in)."""
    terms = content_terms(folded)
    return (
        {stem(t) for t in terms}
        | {inflected(t) for t in terms if _VERB_FORM.search(t)}
        | {key for t in terms if not _VERB_FORM.search(t) for key in verb_lemmas(t)}
    )


_REGULAR_FORM = re.compile(r"s$|[a-z]{3}ed$|ing$")
"""Endings of regular forms, which `inflected` reads or which say no verb: a plural ("United
States" says no "state"), a regular past or an -ing form."""


@lru_cache(maxsize=65536)
def verb_lemmas(term: str) -> frozenset[str]:
    """`inflected` keys of the verbs an irregular form is of: "sank" and "sunk" are "sink".

    Snowball stems regular forms only ("opened"); an irregular past is looked up in
    LemmInflect's English tables (from the Automatically Generated Inflection Database,
    https://github.com/bjascob/LemmInflect), where a word of a form it lists has its verb.
    """
    if not (term.isascii() and term.isalpha()) or _REGULAR_FORM.search(term):
        return frozenset()
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(term, upos="VERB").get("VERB", ())
    return frozenset(inflected(lemma) for lemma in lemmas if lemma != term)


_VERB_FORM = re.compile(r"[a-z]{3}(?:ed|ing)$|[a-z]{2}[^aeiou]ies$")
"""A text word in a verb's past, -ing or -ies form: "opened", "opening", "empties" (for
"empty", which the prefix misses; a plural in -ies, "cities", is its noun's too). Not a
plural in -s: "demons" is no "demon" a question relates by, and "United States" says no
"state"."""


@lru_cache(maxsize=65536)
def inflected(term: str) -> str:
    """A Latin word's Snowball stem, marked apart from `stem`'s keys: "~open" for "opened".

    The first six letters (`stem`) miss a short verb's past and -ing forms ("open" is not the
    "opened" of "opened"); the Snowball English stemmer (Porter, "Snowball: A language for
    stemming algorithms", 2001) removes them. Kept beside the prefix, not instead of it, so
    that every match the prefix made stands ("founder" / "founded"); a text word gets this key
    only in a verb form (`_VERB_FORM`), since plurals matched relation words inside names.
    """
    if not (term.isascii() and term.isalpha()):
        return term
    return "~" + _english_stemmer().stemWord(term)


_STEMMERS = threading.local()
"""One Snowball stemmer per thread: a stemmer keeps the word it works on in its own fields,
so two threads sharing one (the offline judges run in worker threads) corrupt each other's
word ("IndexError: string index out of range" from `stemWord`)."""


def _english_stemmer() -> Any:
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return stemmer


def relation_share(reading: QuestionReading, folded: str) -> float:
    """The share of the question's relation a canonical text holds (1.0 when there is none).

    Two words of the question that say one relation (`EQUIVALENT_WORDS`: "留學時進入") are
    one part of it: a sentence saying 進入 holds it once, not twice.
    """
    credits: dict[frozenset[str], float] = {}
    stems = text_stems(folded)
    for term in reading.relation:
        others = equivalents(term)
        if HAN_CHAR.search(term):
            kept = "".join(ch for ch in term if ch != reading.head)
            if not kept:
                continue
            credit = _longest_part(kept, folded) / len(kept)
            said = [
                *(float(w in folded) for w in others),
                float(said_by_verb(term, folded)),
                float(said_in_full(term, folded)),
            ]
            credit = max([credit, *said])
        else:
            hit = present(term, folded, stems) or any(present(w, folded, stems) for w in others)
            credit = float(hit)
        part = frozenset((term, *others))
        credits[part] = max(credit, credits.get(part, 0.0))
    return sum(credits.values()) / len(credits) if credits else 1.0


SHORT_NAMES = {
    "华": ("中国",),
    "美": ("美国",),
    "日": ("日本",),
    "俄": ("俄罗斯",),
    "法": ("法国",),
    "英": ("英国",),
    "德": ("德国",),
    "韩": ("韩国",),
    "朝": ("朝鲜",),
    "欧": ("欧洲",),
    "港": ("香港",),
    "澳": ("澳门", "澳大利亚"),
    "台": ("台湾",),
}
"""One-character short names of countries and places, as news writes them after a verb of
going (访华, 赴美, 抵港), with the names a report spells out."""
_GOING = "访来赴抵返离"
"""Verbs of going that take a short name: visit, come to, go to, arrive in, return to, leave."""


def said_in_full(term: str, folded: str) -> bool:
    """Whether a text says a journey the question names by a short name (访华) in full.

    "马克龙将于4月5日至7日对中国进行国事访问" says the 访华 it is: the verb's character and the
    country named in full (`SHORT_NAMES`).
    """
    if len(term) != 2 or term[0] not in _GOING or term[1] not in SHORT_NAMES:
        return False
    return term[0] in folded and any(name in folded for name in SHORT_NAMES[term[1]])


def said_by_verb(term: str, folded: str) -> bool:
    """Whether a text says an agent, a rate or an amount the question names by its verb.

    An agent (X人, X者) as X: "由唐伯谦于1897年创办" says who the 创办人 is.

    A rate (X率) as X and a percentage: "同比增长4.5%" says the 增长率 it is. An amount (X量)
    as X and a number in the same clause: "共发送旅客3473.6万人次" says the 发送量. A text
    that holds the term itself ("出生率为6.77‰") holds it whole anyway.
    """
    if len(term) < 3:
        return False
    if (verb := agent_verb(term)) and verb in folded:
        return True  # "由商人唐伯謙…創辦" says who the 创办人 is
    if term[-1] not in _VALUES:
        return False
    return re.search(re.escape(term[:-1]) + _VALUES[term[-1]], folded) is not None


def agent_verb(term: str) -> str:
    """The verb of a Chinese agent noun (创办人 → 创办, 设计者 → 设计), "" for any other word.

    The verb says the agent: "由唐伯谦…创办" names the 创办人.
    """
    return term[:-1] if len(term) > 2 and term[-1] in "人者" and HAN_CHAR.match(term) else ""


@lru_cache(maxsize=1024)
def agent_forms(noun: str) -> tuple[str, ...]:
    """The past forms of the verb an English agent noun is made from: "maker" → made.

    The verb is the noun without its -er / -r ("builder" → build, "maker" → make), where
    LemmInflect's lexicon knows it as a verb; () for any other noun.
    """
    from lemminflect import getAllInflections

    for base in (noun[:-2], noun[:-1]) if noun.endswith(("er", "or")) else ():
        forms = getAllInflections(base, upos="VERB")
        if forms:
            # The past forms only: "found" of "founder" is also find's past.
            past = [f for tag in ("VBD", "VBN") for f in forms.get(tag, ())]
            return tuple(dict.fromkeys(past))
    return ()


_VALUES = {
    "率": r"[了约达为至到]{0,2}\s*-?\d[\d.]*\s*[%‰]",
    "量": r"[^,，。;；!！?？]{0,6}?\d",
}
"""What follows the verb of a rate (a percentage or per mille: "增长4.5%", "下降了0.3%") and of
an amount (a number within a few characters, in the clause: "发送旅客3473.6万人次")."""


EQUIVALENT_WORDS = (
    ("出生", "生于", "诞生", "生在"),
    ("我国", "中国", "全国"),
    ("位于", "坐落", "地处", "位在"),
    ("创办", "创立", "创建", "建立", "成立", "开办", "创设", "创始"),
    ("举办", "举行"),
    ("born", "birth", "birthplace", "native"),
    ("die", "died", "death"),
    ("founded", "founder", "established", "establish"),
    ("premiered", "premiere", "aired", "air", "debuted", "debut", "broadcast"),
    ("married", "spouse", "wife", "husband"),
    ("lived", "people", "inhabitants", "residents", "population"),
    ("首播", "开播", "播出"),
    ("搬进", "搬入", "迁入", "迁进", "搬到", "迁到", "迁往"),
    ("建成", "建于", "建造", "修建", "兴建", "落成", "竣工", "始建"),
    ("动工", "开工", "施工", "动土"),
    ("老师", "师从", "师承", "拜师"),
    ("就读", "入读", "入学", "考入", "进入", "就学", "求学"),
    ("去世", "逝世", "辞世", "病逝", "过世", "离世"),
    ("提议", "倡议", "建议", "倡导"),
    ("改建", "改筑", "改造"),
    ("提高", "上升", "升高"),
    (*FORMER_NAMES, "从前"),
    ("originally", "formerly", "former", "previously"),
)
"""Words a question and a document use for the same relation (出生 / 生于, born /
birthplace, a native of): the commonest paraphrases of the relations questions ask most
(birth, death, place, founding, an event held, a premiere, a marriage, a population ("how
many people lived in…": "4,210 inhabitants"), a move, a building,
the start of its works, a teacher, entering a school, a former name, who proposed a change
and by how much a level rose),
and 我国 for 中国 (news written in China says "our country"). A short list, not a thesaurus:
a relation it lacks is matched by its own words."""


_ORDINAL = re.compile(
    r"第[一二三四五六七八九十\d]+"
    r"|\b(?:first|second|third|fourth|fifth|last|final|\d+(?:st|nd|rd|th))\b"
    r"(?!\s+(?:name|names|half|halves|score|time|round|person))"
)
"""An ordinal of a canonical question: 第一棒, 第31任, the first, the 2nd (not "last name",
"second half": a phrase, not a rank)."""
_FIRST = re.compile(r"第一|第1(?!\d)|(?<![一两几每这那])首(?=[位任个棒批届枚座家部款场次架艘颗])")
"""How a Chinese text says "the first" besides 第一: 首位, 首任, 首次 (not 一首名为)."""
_EN_ORDINALS = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th"}
_ZH_DIGITS = "零一二三四五六七八九"


def _ordinal_number(word: str) -> str:
    """An ordinal's number as digits where it has one: 第十一 -> 第11, second -> 2nd."""
    if word in _EN_ORDINALS:
        return _EN_ORDINALS[word]
    han = word[1:] if word.startswith("第") else ""
    if not han or not all(ch in _ZH_DIGITS or ch == "十" for ch in han):
        return word
    tens, _, ones = han.rpartition("十")
    if "十" not in han:
        return f"第{''.join(str(_ZH_DIGITS.index(ch)) for ch in han)}"
    value = (_ZH_DIGITS.index(tens) if tens else 1) * 10 + (_ZH_DIGITS.index(ones) if ones else 0)
    return f"第{value}"


def has_ordinal(folded: str) -> bool:
    """Whether a canonical text says an ordinal (`ordinals_held`)."""
    return bool(_ORDINAL.search(folded) or _FIRST.search(folded))


def ordinals_held(question: str, folded: str) -> bool:
    """Whether a canonical text holds every ordinal of the canonical question.

    An ordinal picks one of many ("第一棒火炬手" is one torch bearer, not any of them; "the
    first president"): unlike the other relation words, whose one paraphrase `RELATION_SHARE`
    forgives, a sentence without it answers another question. Digits and words are one
    ordinal (第十一 / 第11, second / 2nd); 第一 is also said 首 before a measure word (首任,
    首次). The caller leaves the question's names out ("First Republic Bank", 第一次世界大战
    as a document's title).
    """
    said = {_ordinal_number(m.group()) for m in _ORDINAL.finditer(folded)}
    for m in _ORDINAL.finditer(question):
        number = _ordinal_number(m.group())
        if number in ("第1", "1st") and (_FIRST.search(folded) or "第1" in said or "1st" in said):
            continue
        if number not in said:
            return False
    return True


def equivalents(term: str) -> tuple[str, ...]:
    """The other words for a relation term (举行 for 举办, `EQUIVALENT_WORDS`), by its stem."""
    for words in EQUIVALENT_WORDS:
        if any(stem(term) == stem(w) for w in words):
            return tuple(w for w in words if stem(w) != stem(term))
    return ()


def with_equivalents(stems: set[str]) -> set[str]:
    """Stems and the stems of their other words (`EQUIVALENT_WORDS`): born covers birthplace."""
    return stems | {stem(w) for t in stems for w in equivalents(t)}


def _longest_part(term: str, text: str) -> int:
    """The length of the longest run of a term's characters that the text holds, in order.

    A word of three characters or more is also held short of one inner character, as Chinese
    shortens a word by its outer morphemes (起点 for 起跑点, 终站 for 终点站): it is held but
    for that character.
    """
    if len(term) >= 3 and term not in text:
        if any(term[:i] + term[i + 1 :] in text for i in range(1, len(term) - 1)):
            return len(term) - 1
    for size in range(len(term), 0, -1):
        if any(term[i : i + size] in text for i in range(len(term) - size + 1)):
            return size
    return 0
