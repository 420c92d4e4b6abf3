"""What a question asks for (offline, both languages).

- slot: the kind of thing the question asks for, read from its question word: a person
  (who, 谁), a place (where, 哪里), a time (when, what year, 哪年, 何时), a number (how many,
  多少, 几), a yes/no answer (a question that opens with is/are/did ...), else a thing.
- proper: whether a name is a proper name or a run of common words.
- clauses, comparisons, questions asking two things.
- near-duplicate: two questions whose content-term sets overlap by Jaccard >= 0.6 (fitted on
  no data: it is the point where a question plus glued keywords stays a duplicate, "…based?
  Tidewrights 潮匠 行会 Kessavar" against its question is 0.67, while a real follow-up of a
  two-clause question shares at most half its terms).

The follow-up built on a bridge is `treerag.reasoning.bridging`; who a conversation's pronoun
stands for, `treerag.reasoning.coreference`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from treerag.reasoning.text import content_terms
from treerag.text import (
    EN_STOP,
    HAN,
    HAN_CHAR,
    READING,
    canonical,
    fold,
    fold_cased,
    han_count,
    is_zh_stop,
    proper_names,
    to_simplified,
    width_and_case,
)
from treerag.text.figures import CENTURY, MONTH_NAME, NUMERAL, STATED_DATE
from treerag.text.names import NAME_FLAGS, ZH_PLACE_SUFFIXES

NEAR_DUPLICATE_JACCARD = 0.6

_CLAUSE = re.compile(
    r",\s*(?:and|but|while)\s+|;\s*|\s+and\s+(?=(?:in\s+|from\s+|at\s+)?"
    r"(?:which|what|who|whom|whose|where|when|how)\b)|[，；]\s*|并且|而且|以及|同时",
    re.IGNORECASE,
)
_YES_NO = re.compile(
    r"^\s*(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I
)
PEOPLE_ASKED = re.compile(
    r"(成员|队员|乘组|乘员|航天员|宇航员|演员|主演|球员|选手|得主)(?:都|分别)?(?:有|是|包括)哪些"
    r"|\bwhat (?:are|were) the (members|crew|cast|players)\b"
)
"""People asked for by what they are ("飞船的成员有哪些", "What are the members of…"): a
person question, whose noun says the answer's kind (`reading._head`), not its relation."""
_SLOTS = (
    (
        "time",
        re.compile(
            r"\bwhen\b|\b(?:what|which) (?:year|date|day|month|time|century|decade)\b"
            r"|何时|什么时候|哪[一]?年|几月|几号|日期|时间|哪天|何年|哪[个一]?世纪|什么世纪"
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow (many|much|long|old|far|tall|high|large|big)\b"
            r"|多少|几[个名人家位座次岁年]|人数|数量|多大|多高|多长|多久"
        ),
    ),
    (
        "person",
        re.compile(
            r"\bwho\b|\bwhom\b|\bwhose\b|谁|哪一?位|何人"
            rf"|{PEOPLE_ASKED.pattern}"
        ),
    ),
    (
        "place",
        re.compile(
            # "what Australian city": a word may qualify the noun
            r"\bwhere\b|\b(?:what|which) (?:[a-z]+ )?"
            r"(?:city|town|country|state|place|county|region)\b"
            r"|哪里|哪儿|在哪(?!一?[年天月本部篇])|何地|何处|哪个(?:城市|国家|地方|省)|哪座城"
        ),
    ),
)
_THING = re.compile(r"\b(?:which|what)\b|哪(?!里|儿)|什么")
"""A question word asking for a thing; the specific kinds above win where they start too."""


@lru_cache(maxsize=4096)
def slot(question: str) -> str:
    """The kind of answer asked for: person, place, time, number, yesno or thing.

    The question word that comes first decides: "Which river flows through the village
    where X was born?" asks for a thing (a river), the "where" after it is a relative
    clause's. Read in the canonical script (Traditional folded to Simplified, width and case
    folded), so 哪裡 asks for a place as 哪里 does.
    """
    lowered = fold(question)
    found: list[tuple[bool, int, int, str]] = []
    for order, (name, pattern) in enumerate([*_SLOTS, ("thing", _THING)]):
        for match in pattern.finditer(lowered):
            found.append((_relative(lowered, match.start()), match.start(), order, name))
    if found:
        return min(found)[3]
    if _ZH_QUANTITY.search(lowered):
        return "number"
    return "yesno" if _YES_NO.match(question) else "thing"


QUANTITY_NOUN = re.compile(rf"[{HAN}](?:率|量|额|总数|人数|票房|规模|营收|收入|总值|增速|增幅)$")
"""A Chinese word that names a quantity: 交付量, 出生率, 总票房."""
_ZH_QUANTITY = re.compile(QUANTITY_NOUN.pattern[:-1] + r"[？?。\s]*$")
"""A Chinese question without a question word that names a quantity ("…交付量", "…人口出生率",
"…总票房"): it asks for the number, as "多少" would."""


_RELATIVE = re.compile(r"(?:who|whom|whose|which|where|when)\b")
_ASKING_BEFORE = frozenset(
    "in of at from to by for with on about into and but or is are was were be been".split()
)


def _relative(lowered: str, at: int) -> bool:
    """Whether the English wh-word at `at` opens a relative clause, not the question.

    "…a consultant who has worked with the mayor of what city?" asks for a city: the "who"
    right after a noun (or after a comma that follows one) describes it. After a
    preposition, a conjunction or "is" ("of which", "and where", "…is whom?") the word asks.
    A question whose every wh-word is relative keeps its first (the ordering puts relatives
    last, it does not drop them).
    """
    if not _RELATIVE.match(lowered, at):
        return False
    if re.search(r"[a-z0-9\"')],\s*$", lowered[:at]):
        return True  # "…was Chiang Kai-shek, who died on which date?": it describes him
    before = re.search(r"([a-z][a-z'\-]*)\s+$", lowered[:at])
    return before is not None and before.group(1) not in _ASKING_BEFORE


MEASURE_WORDS = "个名位座家次条架辆只所项届场件岁"
"""Chinese measure words a count is said with (多少个议席, 30个议席)."""
_COUNTED_ZH = re.compile(rf"(?:多少|几)\s*([{MEASURE_WORDS}]?)\s*([{HAN}]{{0,4}})")
_COUNTED_EN = re.compile(r"\bhow many\s+([a-z][a-z\-]+)", re.I)


@lru_cache(maxsize=1024)
def counted(question: str) -> str:
    """What a count question counts, canonical; "" when it names nothing.

    人 of 多少人, 议席 of 多少个议席, 次 of 几次, "people" of "how many people"; nothing
    for 多少钱 or "how much".
    """
    folded = fold(question)
    if match := _COUNTED_EN.search(folded):
        return "" if match.group(1) in EN_STOP else match.group(1)
    if not (match := _COUNTED_ZH.search(folded)):
        return ""
    from treerag.segment import jieba

    words = jieba().lcut(match.group(2)) if match.group(2) else []
    noun = words[0] if words and not is_zh_stop(words[0]) and words[0] != "钱" else ""
    return noun or match.group(1)


ZH_WH = re.compile("多少|什[么麼]|[谁誰]|哪|[几幾]|何")
"""A Chinese question word, in either script."""
_ZH_COPULA_WH = re.compile(r"[为為爲是]\s*(?:多少|什[么麼]|[谁誰]|哪)[^，,的]*$")


def chinese(clause: str) -> bool:
    """Whether a clause is written in Chinese, not English with a Chinese name in it.

    More Chinese characters than twice its Latin words: "Wordle游戏是什么类型的游戏" is;
    "…commanded by 奎尔 on behalf of Varunhal" is not.
    """
    return han_count(clause) > 2 * len(re.findall(r"[A-Za-z]+", clause))


def asked_noun_span(clause: str) -> tuple[int, int]:
    """Where a Chinese clause names the thing it asks for: (start, end), else (-1, -1).

    "…的营收为多少？", "…的主题是什么？": the noun after the last 的 before a copula and the
    question word is what is asked. "…发生的地点", "2022年苹果春季发布会的新手机" have no
    question word: the noun after the last 的 is asked (it is no entity of the question, and
    a bridge's description ends before it). In "李明远出生的小镇坐落在哪条江边？" a verb asks
    (坐落): none. English clauses and clauses without 的: none.
    """
    if not chinese(clause):
        return -1, -1
    tail = _ZH_COPULA_WH.search(clause)
    if tail is None and ZH_WH.search(clause):
        return -1, -1
    end = tail.start() if tail else len(clause.rstrip("？?。！! "))
    de = clause[:end].rfind("的")
    if de >= 0 and POINTED.match(clause, de + 1):
        # "…的那座湖面积有多大": the noun pointed at is the description's; its 面积 is asked.
        from treerag.reasoning.question_clauses import described_noun

        described = described_noun(clause, de)
        return (described, end) if end > described > de + 1 else (-1, -1)
    return (de + 1, end) if de >= 0 and end > de + 1 else (-1, -1)


POINTED = re.compile(r"[那这這][个個座所家位条條艘部本间間]")
"""A demonstrative and its measure word after 的: the noun after it is pointed at."""


def _head(question: str) -> str:
    """The noun a question word governs: "guild" in "Which guild built …"."""
    match = re.search(r"\b(?:which|what)\s+([a-z][a-z\-]+)", question, re.I)
    if match and match.group(1).lower() not in EN_STOP:
        return match.group(1).lower()
    match = re.search(rf"哪(?:个|家|座|所|条)?([{HAN}]{{2}})", question)
    return match.group(1) if match and not is_zh_stop(match.group(1)) else ""


def statement(kind: str, sentence: str, question: str) -> int:
    """How plainly a sentence states the asked-for thing: 0 not, 1 a candidate, 2 a named X.

    2 is a new name that itself contains the noun of "which X" ("Guild of Tidewrights" for
    "Which guild …"); 1 any candidate of the asked kind (a new name, a year, a number).
    """
    if kind == "time":
        return int(
            bool(
                STATED_DATE.search(sentence)
                or MONTH_NAME.search(sentence)
                or CENTURY.search(sentence)
            )
        )
    if kind == "number":
        return int(bool(NUMERAL.search(sentence)))
    if kind == "yesno":
        return 1
    asked = {t.lower() for t in content_terms(question)}
    head = _head(question) if kind == "thing" else ""
    if head and head not in sentence.lower():
        return 0
    fresh = [n for n in proper_names(sentence, READING) if not set(content_terms(n)) <= asked]
    if head and any(head in n.lower() for n in fresh):
        return 2
    return int(bool(fresh))


_PLACE_SUFFIX = re.compile(f"[{ZH_PLACE_SUFFIXES}寺庙廟桥橋]")
COMMON_WORD_FREQ = 100
"""A word jieba's dictionary counts at least this often is a common word ("城镇", "中国")."""


def proper(name: str) -> bool:
    """Whether a name found in a question is a proper name, not a run of common words.

    Latin capitalised runs are, but not a month alone ("July"). A Chinese one is when a word
    of it is rare or unknown to jieba's dictionary (潮声, 林秋雁, 伦尼), or jieba cut an
    unknown word into single characters (鹤/烟 of 鹤烟灯塔): "中国城镇", "小镇",
    "芯片首席设计师", all common words, are not, whatever part-of-speech jieba gives them.
    A rare word that is two common nouns run together ("电影票房": 电影 + 票房) makes a name
    only beside a word jieba tags as one ("中国新闻周刊", 中国; "奥斯卡最佳影片", 奥斯卡):
    "春节档电影票房冠军" names nothing.
    """
    if not HAN_CHAR.search(name):
        return MONTH_NAME.fullmatch(name) is None  # "31 July 2000": a date, no name
    from treerag.segment import jieba, word_tag
    from treerag.transliteration import is_foreign_name

    if is_foreign_name(to_simplified(name)):
        return True  # 马克 + 龙: a foreign name jieba cuts into common words
    if _surname_and_given(name):
        return True  # 许 + 明哲: a surname and a given name that is also a common word

    freq = jieba().dt.FREQ
    # Read in Simplified, as the dictionary is: "名機組人員" is cut "名機 / 組人員" as written.
    words = [w for w in jieba().lcut(to_simplified(name)) if HAN_CHAR.match(w)]
    if len(words) > 1 and _PLACE_SUFFIX.fullmatch(words[-1]):
        return True  # 青石 + 镇: a word and a place's suffix name one place
    singles = 0
    compound = named = False
    for word in words:
        singles = singles + 1 if len(word) == 1 else 0
        if singles >= 2:
            return True
        if len(word) > 1 and freq.get(word, 0) < COMMON_WORD_FREQ:
            if not _two_common_nouns(word, freq):
                return True
            compound = True
        named = named or word_tag(word) in NAME_FLAGS
    return compound and named


@lru_cache(maxsize=8192)
def _surname_and_given(name: str) -> bool:
    """Whether a Chinese name is one person jieba reads apart (`names.joined_persons`)."""
    if not 2 <= len(name) <= 3:
        return False  # before tagging: `proper` reads every name of every bridging sentence
    from treerag.segment import tag
    from treerag.text.names import joined_persons

    pairs = tag(name)
    return len(pairs) == 2 and joined_persons(pairs) == [(name, "nr")]


def _two_common_nouns(word: str, freq: Mapping[str, int]) -> bool:
    """Whether a word is two common words of the dictionary, neither tagged as a name."""
    from treerag.segment import word_tag

    def common(part: str) -> bool:
        return freq.get(part, 0) >= COMMON_WORD_FREQ and word_tag(part) not in NAME_FLAGS

    return any(common(word[:at]) and common(word[at:]) for at in range(2, len(word) - 1))


_COMPARES = re.compile(
    r"\b(?:or|both|same|either|neither|older|younger|earlier|later|first|more|less|larger|"
    r"smaller|longer|shorter|higher)\b|还是|都是|是否都|都|相同|同一|哪个更|谁更|更早|更晚|更大|更长",
    re.IGNORECASE,
)


def compares(question: str) -> bool:
    """Whether a question compares what it names ("Are X and Y both…?", "X还是Y更早？").

    A yes/no question about two names compares them; so does one with a comparing word.
    """
    low = fold_cased(question)
    return slot(question) == "yesno" or _COMPARES.search(low) is not None


def asks_several(question: str) -> bool:
    """Whether a question asks two things or more, each in a clause of its own.

    "Who ground the lens, and where was he born?" asks a person and a place; "陳慕言創辦的
    樂團，首任指揮是誰？" asks one thing (its first clause describes).
    """
    asking = 0
    for clause in _clauses(question):
        low = fold(clause)
        if _THING.search(low) or any(pattern.search(low) for _, pattern in _SLOTS):
            asking += 1
    return asking >= 2


def _clauses(question: str) -> list[str]:
    parts = [p.strip(" ,，?？") for p in _CLAUSE.split(question.strip())]
    return [p for p in parts if p]


def _key_terms(question: str) -> set[str]:
    return set(content_terms(question))


def near_duplicate(a: str, b: str) -> bool:
    """Whether two questions ask the same: Jaccard of content terms >= NEAR_DUPLICATE_JACCARD.

    Two Chinese questions of which the shorter names an entity the other does not, while the
    other names one (or opens with a word: its subject, where jieba tags no name) that the
    shorter lacks, ask about different entities however many words they share:
    "葛秋原创办的学校是哪一年搬进新校舍的？" is the follow-up of "陆听岚的老师创办的学校…",
    her teacher's name in place of the words that described him. (English follow-ups that
    swap one name for another in a long question stay near-duplicates.)
    """
    ta, tb = _key_terms(a), _key_terms(b)
    if not ta or not tb:
        return " ".join(a.lower().split()) == " ".join(b.lower().split())
    if len(ta) != len(tb) and chinese(a) and chinese(b):
        # One asks with a name where the other describes: the shorter holds the name.
        short, long = (a, tb) if len(ta) < len(tb) else (b, ta)
        other = b if short == a else a
        new = [n for n in _names(short) if not set(content_terms(n)) <= long]
        old = [n for n in _names(other) if not set(content_terms(n)) <= set(content_terms(short))]
        first = content_terms(short)[0]
        if (new and old) or (first not in long and content_terms(other)[0] not in ta & tb):
            return False  # "范靜宜出生的…" / "莫聽蘭的老師出生的…": another subject opens it
    return len(ta & tb) / len(ta | tb) >= NEAR_DUPLICATE_JACCARD


def _names(question: str) -> set[str]:
    """The proper names a question gives, canonical."""
    return {canonical(n) for n in proper_names(question, READING)}


def is_new(question: str, asked: list[str]) -> bool:
    """Whether `question` asks something none of `asked` did (same words or near-duplicate)."""

    def key(q: str) -> str:
        return " ".join(width_and_case(q).split()).rstrip("?？")

    return all(key(question) != key(q) and not near_duplicate(question, q) for q in asked)
