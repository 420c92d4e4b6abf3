"""What in a sentence fills the slot a question asks for (`candidates`).

A time question is filled by a year, a date or a month; a number question by a number outside
dates, times of day and codes; a kind question (什么类型的电影) by the kind a sentence gives the
noun (`reasoning.kinds`); a Chinese question for a film, book or song by a title in 《》; an
English "what X" whose noun the sentence lacks by the name after the asked verb ("developed
by Studio 33"); any other by a name the question does not give, a person's name first for
"who", a name that says the asked kind first for "which X"; a Chinese "where" by a name in
the asked verb's locative phrase, where the sentence has one, and never a Chinese "who" by a
name a locative leads (`place_slot`). A news text's
frame (a label before a colon, a dateline, a byline, 北京时间, a report's source) fills
nothing.
"""

from __future__ import annotations

import functools
import re

from treerag.reasoning.called import called, named_noun
from treerag.reasoning.chunk_reading import names_kind
from treerag.reasoning.date_slot import by_the_event
from treerag.reasoning.kinds import asked_kind, kinds
from treerag.reasoning.place_slot import located, not_where, place_spans, within
from treerag.reasoning.placing import asks_placing, placings
from treerag.reasoning.quantities import quantities
from treerag.reasoning.reading import WORK_TITLE, QuestionReading, fold
from treerag.reasoning.relation_held import equivalents, inflected
from treerag.reasoning.text import content_terms, stem
from treerag.text import HAN, HAN_CHAR, READING, canonical, fold_cased, proper_names
from treerag.text.figures import (
    CENTURY,
    DATE_WORD,
    MONTH,
    WHOLE_DATE,
)
from treerag.text.names import ZH_PLACE_SUFFIXES


def adds_a_name(name: str, asked_terms: set[str]) -> bool:
    """Whether a Chinese name found in a sentence is more than the question's words.

    The segmenter can join a question's word to the common word after it ("吉祥物极具" of
    "…的吉祥物极具深意", asked "…吉祥物是谁"): what is left once the question's words are taken
    out must be a name: a word the segmenter's dictionary lacks (雪容融) or tags as a name
    (北京, of "首都北京"), not a common word (极具).
    """
    rest = name
    for term in sorted(asked_terms, key=lambda t: (-len(t), t)):  # longest first, every run
        if HAN_CHAR.search(term):
            rest = rest.replace(term, "")
    if rest == name:
        return True
    from treerag.segment import jieba

    if not HAN_CHAR.search(rest):
        return False
    if not jieba().dt.FREQ.get(rest):
        return True
    from jieba import posseg  # the part-of-speech table: a dictionary word may be a name (北京)

    return str(posseg.dt.word_tag_tab.get(rest, "")).startswith(("nr", "ns", "nt", "nz"))


_PLACE_END = re.compile(f"[{ZH_PLACE_SUFFIXES}国國场場馆館园園院宫宮楼樓]$")
"""The last character of a Chinese place's name: 市, 县, 国, 球场, 体育馆."""


_GENERIC_PLACES = frozenset("城市 国家 地区 地方 省份 当地 本地 国内 国外 海外 全国 全球".split())
"""Common nouns for places that jieba's dictionary tags as place names (城市 is "ns")."""


def _place_like(name: str, folded: str) -> bool:
    """Whether a Chinese name found in a folded sentence is a place.

    By its words (a word jieba tags ns: 卡塔尔, 新奥尔良), its end (…市, …球场), or where it
    stands (right after a locative: `located`); not 挑战赛成绩新鲜出炉 or 全球计算机视觉领域.
    """
    from treerag.segment import tokens, word_tag

    if not HAN_CHAR.search(name):
        return True  # a Latin name is not read here
    if word_tag(name) in ("n", "vn") or name in _GENERIC_PLACES:
        return False  # a common noun (城市 of "举办城市花落成都") names no place
    if _PLACE_END.search(name) or located(name, folded):
        return True
    return any(word_tag(word).startswith("ns") for word, _, _ in tokens(name))


def common_word(reading: QuestionReading, sentence: str) -> str:
    """A thing asked with no noun: the first content word of the sentence the question lacks.

    None for a question asking what something is called: a name answers it (`called`).
    """
    if reading.kind != "thing" or reading.head or named_noun(reading.folded)[1]:
        return ""
    asked_terms = set(reading.terms)
    new = [t for t in content_terms(fold(sentence)) if t not in asked_terms and not t.isdigit()]
    return new[0] if new else ""


_YEAR_ASKED = re.compile(r"\b(?:what|which) year\b|哪一?年|年份|何年")
"""A time question asking the year: the year answers it, not the whole date."""


_NAME_RUN = re.compile(rf"[{HAN}\w·]{{0,12}}")
"""What may stand between an edition's year and the entity its name ends with."""


def _names_edition(reading: QuestionReading, folded: str, year: re.Match[str]) -> bool:
    """Whether a year of a Chinese sentence opens the name of the question's entity.

    "王纲介绍2022年世界互联网大会乌镇峰会举办情况" names the 2022 edition of 乌镇峰会; it does
    not say when the summit is held ("乌镇峰会举办时间"). The words between the year and the
    entity are part of the name, not a relation the question asks with ("2022年举办乌镇峰会"
    dates the holding).
    """
    if not HAN_CHAR.search(reading.folded) or not re.fullmatch(r"\d{4}\s*年?", year.group()):
        return False
    run = _NAME_RUN.match(folded, year.end())
    between = run.group() if run else ""
    for entity in reading.entities:
        at = between.find(entity)
        if at >= 0 and not any(t in between[:at] for t in reading.relation):
            return True
    return False


def candidates(reading: QuestionReading, sentence: str, subject: str = "") -> list[str]:
    """The candidates of the asked-for kind a sentence holds that the question lacks, best first.

    time: years, dates and months; number: numbers outside dates and times of day; person /
    place / thing: names the question does not give (`treerag.text.proper_names`,
    `READING`), or `subject` (a pronoun-led sentence's subject), those that say the asked-for
    kind first ("which X" needs X in the sentence).
    """
    folded = fold(sentence)
    asked = reading.folded
    if reading.kind == "yesno":
        return []
    if reading.kind == "time":
        # A date written whole is one value ("2022年2月4日"), its parts none of their own;
        # a question asking the year wants the year ("In what year was she born?").
        whole = [] if _YEAR_ASKED.search(asked) else list(WHOLE_DATE.finditer(folded))
        inside = {i for m in whole for i in range(m.start(), m.end())}
        dated = sorted(
            [*whole, *(m for m in DATE_WORD.finditer(folded) if m.start() not in inside)],
            key=lambda m: m.start(),
        )
        months = [m for m in MONTH.finditer(folded) if m.start() not in inside]
        dated = [m for m in dated if not _names_edition(reading, folded, m)]
        # "新华社北京4月3日电": the day of the report, not of what it reports; nor is the
        # day it repeats ("…电 外交部发言人毛宁3日在例行记者会上…": the briefing's day).
        lines = [m for m in dated if _DATELINE_END.match(folded, m.end())]
        days = {re.sub(r".*月", "", m.group()).strip() for m in lines}
        dated = [m for m in dated if m not in lines and m.group().strip() not in days]
        said = [*CENTURY.finditer(folded), *dated, *months]
        said = [m for m in said if m.group().strip() not in asked]  # the question's own year
        verbs = (reading.asked, *equivalents(reading.asked)) if reading.asked else ()
        order = by_the_event([m.span() for m in said], folded, asked, verbs)
        said = [said[i] for i in order]
        cased = fold_cased(sentence)  # "15 June 1824" as written, where the fold keeps length
        same = len(cased) == len(folded)
        dates = [(cased[m.start() : m.end()] if same else m.group()).strip() for m in said]
        return [d for d in dates if d.lower() not in asked]
    if reading.kind == "number":
        return quantities(reading, folded)
    if asks_placing(asked) and HAN_CHAR.search(folded):
        return placings(folded)  # "获得亚军", "止步8强" (`placing`)
    if noun := asked_kind(asked):
        # "什么类型的电影": the kind a sentence gives the noun ("…主演的喜剧电影"), if any.
        return [k for k in kinds(noun, folded) if k not in asked]
    if _WORK_ASKED.search(asked) and HAN_CHAR.search(folded):
        # A Chinese text writes the title of a work between 《》 (the 书名号 of GB/T 15834):
        # "大量观影群体" is no film.
        return [t for t in WORK_TITLE.findall(folded) if canonical(t) not in canonical(asked)]
    if reading.head and not HAN_CHAR.search(reading.head) and stem(reading.head) not in folded:
        found = _object_of(reading, sentence)
        return [found] if found else []
    asked_terms = set(reading.terms)
    names = [n for n in proper_names(fold_cased(sentence), READING) if adds_a_name(n, asked_terms)]
    if reading.kind == "thing":
        # A title in quotation marks names a work whole ("《长津湖之水门桥》", "the sitcom
        # "Mad About You""), where segmentation and capitals cut it up.
        # "吉祥物叫什么": only a name the sentence gives the noun (`called`); 卡塔尔 of
        # "2022年卡塔尔世界杯…第一个没有脚的吉祥物" is not what the mascot is called.
        asked_name = named_noun(reading.folded)
        quoted = [*titled(fold_cased(sentence)), *names]
        names = called(asked_name, folded) if asked_name[1] else quoted
    asked_after = _ASKED_AFTER.match(asked)
    if subject:
        # "1940年，他在渡口县创办了…": who did it is the pronoun's; a place is not a who. But
        # "Under whom did she train?" asks for another than the pronoun's subject.
        first = reading.kind == "person" and not asked_after
        names = [subject, *names] if first else [*names, subject]
    cased = fold_cased(sentence)
    fresh = [
        name
        for name in names
        if canonical(name) not in canonical(asked)
        and (HAN_CHAR.search(name) or not set(content_terms(fold(name))) <= asked_terms)
        and not _news_frame(name, cased)
    ]
    if reading.kind == "place" and HAN_CHAR.search(asked) and HAN_CHAR.search(folded):
        verbs = (reading.asked, *equivalents(reading.asked)) if reading.asked else ()
        spans = place_spans(verbs, folded)
        if spans is not None:
            # Where the asked event is, its locative phrase says (`place_slot`): none of
            # "于9月3日举行" (a date) and not 莫斯科 of "在莫斯科去世，葬礼将于9月3日举行".
            fresh = [n for n in fresh if within(fold(n), folded, spans)]
            if not fresh:
                from treerag.segment import word_tag

                # "出生于鹭屿": a short phrase after the verb's locative is the place, a name
                # jieba tags none (鹭屿 ends in no suffix a place name is known by).
                fresh = [
                    sentence[a:b]
                    for a, b in spans
                    if len(folded) == len(sentence)
                    and _BARE_PLACE.fullmatch(folded[a:b])
                    and not word_tag(folded[a:b])  # 现场, 线上, 当地: words, no names
                ]
        else:
            # With no locative phrase to read, a place is one by its words.
            fresh = [n for n in fresh if _place_like(fold(n), folded)]
        # Who holds it, or what is held, is not where: "由…IEEE CVPR举办的挑战赛".
        others = not_where(verbs, folded)
        fresh = [n for n in fresh if not within(fold(n), folded, others)]
    if reading.kind == "person":
        # "发生在日本奈良县奈良市的枪击": a place, not who did it.
        fresh = [n for n in fresh if not (HAN_CHAR.search(n) and located(fold(n), folded))]
        # "封面新闻记者获悉，…金牌得主申雪…": who is asked is a person before a newsroom.
        fresh.sort(key=lambda n: not personal(n))
    if reading.head:
        fresh.sort(key=lambda n: not names_kind(n, reading.head))
    if reading.asked and not HAN_CHAR.search(cased) and _asked_of_another(reading, cased):
        return []
    if not reading.head and not HAN_CHAR.search(cased):
        # "Who founded the shipworks that built…?": "Selkmouth Shipworks" is the shipworks
        # the question describes, not who founded it.
        described = {stem(t) for t in reading.relation if stem(t) != stem(reading.asked)}
        fresh = [n for n in fresh if stem(fold(n).split()[-1]) not in described]
    if asked_after:
        # "…under the master builder Aron Fisk": the name the asked preposition leads.
        led = re.compile(rf"\b{asked_after.group(1)}\s+(?:[a-z]+\s+){{0,3}}$", re.IGNORECASE)
        fresh.sort(key=lambda n: not led.search(cased[: max(cased.find(n), 0)]))
    return fresh


_BARE_PLACE = re.compile(rf"[{HAN}]{{2,4}}")
"""A locative phrase that is a short run of Chinese characters alone: a place's name."""
_ASIDE = re.compile(r"(?P<before>[^,;]*),\s+(?:which|who|whom)\s+(?P<aside>[^,;]*)")
"""A non-restrictive relative clause and what comes before it: "…for the Marrish Salt
Company, which Hesper Grane had founded in 1879"."""


def _antecedent(before: str) -> str:
    """The noun phrase an aside describes: the words before it from their last article."""
    articles = list(re.finditer(r"\b(?:the|a|an)\s+", before, re.IGNORECASE))
    return before[articles[-1].end() :] if articles else " ".join(before.split()[-3:])


def without_asides(sentence: str, about: str) -> str:
    """An English sentence without its asides about another thing than `about`.

    "It was built by the Selkmouth Shipworks for the Marrish Salt Company, which Hesper
    Grane had founded in 1879" says nothing of the shipworks' founding: what a follow-up
    about the shipworks asks is still open.
    """
    if HAN_CHAR.search(sentence):
        return sentence
    kept = sentence
    for match in _ASIDE.finditer(sentence):
        if fold(about) not in fold(_antecedent(match.group("before"))):
            kept = kept.replace(match.group(0), match.group("before"))
    return kept


def _asked_of_another(reading: QuestionReading, cased: str) -> bool:
    """Whether a sentence says what is asked only in an aside about another thing.

    "It was built by the Selkmouth Shipworks for the Marrish Salt Company, which Hesper
    Grane had founded": the founding is the company's, which the aside describes, not the
    shipworks' that "Who founded the shipworks that built…?" asks about: the noun before
    the aside holds none of the question's other relation terms. Neither Hesper Grane nor
    the company answers; the sentence names the bridge (the shipworks) for a follow-up.
    """
    asked = stem(reading.asked)
    others = {stem(t) for t in reading.relation if stem(t) != asked}
    words = [stem(t) for t in content_terms(fold(cased))]
    if not others or asked not in words:
        return False
    aside_said = 0
    for match in _ASIDE.finditer(cased):
        if asked not in {stem(t) for t in content_terms(fold(match.group("aside")))}:
            continue
        noun = _antecedent(match.group("before"))
        if {stem(t) for t in content_terms(fold(noun))} & others:
            return False
        aside_said += 1
    return aside_said > 0 and aside_said >= words.count(asked)


_ASKED_AFTER = re.compile(
    r"^\W*(under|with|to|for|from|by|against|beside|behind|after|before)\s+whom\b", re.IGNORECASE
)
"""A question asking for the object of a preposition: "Under whom…?", "With whom…?"."""
_LABEL_AFTER = re.compile(r"\s*[：:]")
"""What follows a label: "原标题：", "正文："."""
_DATELINE_END = re.compile(r"\s*电(?![视影话脑力池网商子动站梯器缆线厂费价量压流源车竞])")
"""The 电 that closes an agency's dateline after its date ("4月3日电"), not 电视 or 电影."""
_DATELINE_AFTER = re.compile(r"\s*\d{1,2}月\d{1,2}日" + _DATELINE_END.pattern)
"""What follows an agency's name in its dateline: "中新社多哈12月1日电"."""
_BYLINE = re.compile(r"(?:记者|编辑|摄影|通讯员)\s*$")
"""What comes before a byline's name: "（记者王茜）"."""
_SOURCE = re.compile(r"据[^,，。；;！？!?]{1,24}?(?:报道|报导|消息|披露|援引)")
"""A report's source: "据日本MBS新闻报道", "据外媒报道", "据新华社消息" (who reported it)."""


def _news_frame(name: str, cased: str) -> bool:
    """Whether a name frames a news text instead of saying something in it.

    A label before a colon ("原标题：…", "正文："; a person's name before one is a speaker:
    "王毅：…"), an agency's dateline ("中新社多哈12月1日
    电"), a reporter's byline ("记者王茜"), a clock's name ("北京时间1月30日", 当地时间): none
    is what a question asks for; nor is a report's source ("据日本MBS新闻报道": `_SOURCE`).
    """
    if name.endswith("时间"):
        return True
    at = cased.find(name)
    if at < 0:
        return False
    after = at + len(name)
    labelled = _LABEL_AFTER.match(cased, after) and not personal(name)
    sourced = any(m.start() < at < m.end() for m in _SOURCE.finditer(cased))
    return bool(
        labelled or sourced or _DATELINE_AFTER.match(cased, after) or _BYLINE.search(cased[:at])
    )


@functools.lru_cache(maxsize=4096)
def personal(name: str) -> bool:
    """Whether a Chinese name reads as a person's (jieba tags a word of it nr)."""
    from treerag.segment import posseg

    return bool(HAN_CHAR.search(name)) and any(p.flag.startswith("nr") for p in posseg().lcut(name))


_WORKS = (
    "电影|影片|电视剧|连续剧|剧集|书|小说|诗|歌|歌曲|专辑|作品|纪录片|动画片|动画|游戏|节目|综艺"
)
_NOT_A_WORK = "[手节公司厂院星迷店局展法记商界圈人家者业城馆奖评]"
"""What makes a work's word another noun: 歌手, 电影节, 游戏公司, 书店, 书记."""
_WORK_ASKED = re.compile(
    f"(?:哪一?[部本首篇个款档]?|什么)(?:{_WORKS})(?!{_NOT_A_WORK})"
    f"|(?:{_WORKS})(?:的名字)?(?:是|叫)(?:什么|哪一?[部本首个])(?:名字)?\\s*[？?]?\\s*$"
)
"""A Chinese question asking for a work by its title: 哪部电影, 哪本书, 电视剧是什么."""

TITLED = re.compile(r"[《“\"「]([^《》“”\"「」]{2,40})[》”\"」]")
_SPOKEN = re.compile(r"[，。！？；,!?;]")


def titled(text: str) -> list[str]:
    """The names a text gives in title marks or quotes (`TITLED`), as written.

    A quote holding a clause's punctuation is speech, not a name: "“任何项目都有危险，练一个
    项目就要练好！”" is what someone said; a work's title in 《》 is a name whatever it holds.
    """
    return [
        m.group(1)
        for m in TITLED.finditer(text)
        if m.group(0).startswith("《") or not _SPOKEN.search(m.group(1))
    ]


_OBJECT_GLUE = re.compile(r"\s+(?:by|in|at|to|from|for|with|as|on|into)\s+(?:[Tt]he\s+)?")
_PLACE_AFTER_OBJECT = re.compile(r"(?:\s+[a-z][\w'\-]*){1,6}?\s+(?:in|at|near)\s+(?:[Tt]he\s+)?")
"""The verb's object in lower-case words (no name, no comma), then a locative: "opened a
workshop of his own in …"."""


def _object_of(reading: QuestionReading, sentence: str) -> str:
    """The name right after the asked relation term and its preposition, or "".

    "…developed by Studio 33", "…located in Canberra": a document seldom repeats the noun
    of "what company" / "what city", but the name that follows the asked verb is what the
    question asks for. Latin text only (a Chinese verb's object is not marked this way).
    """
    if not reading.asked or HAN_CHAR.search(reading.asked):
        return ""
    cased = fold_cased(sentence)
    key, form = stem(reading.asked), inflected(reading.asked)
    verb = next(  # "developed" for "develop", "empties" for "empty"
        (
            w
            for w in re.finditer(r"\b\w+", cased)
            if w.group().lower().startswith(key) or inflected(w.group().lower()) == form
        ),
        None,
    )
    glue = _OBJECT_GLUE.match(cased, verb.end()) if verb else None
    if glue is None and verb and reading.kind == "place":
        # "…opened a workshop of his own in Lisvane" for "In which town did he open his
        # workshop?": the verb's own object first, then where it was done.
        glue = _PLACE_AFTER_OBJECT.match(cased, verb.end())
    if glue is None:
        return ""
    # Read in the whole sentence: cut off, the name would open a sentence, where a capital
    # says nothing ("Canberra, the capital of Australia." finds only Australia).
    first = next((n for n in proper_names(cased, READING) if cased.startswith(n, glue.end())), "")
    fresh = first and canonical(first) not in canonical(reading.folded)
    return first if fresh else ""
