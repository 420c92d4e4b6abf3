"""Which sentence of a chunk answers a question, read as a reader does (`reasoning.reading`).

A sentence answers the question when it is about an entity the question names (any
sentence, when the question names none), holds at least `RELATION_SHARE` of the relation
and the relation term the question asks with ("directed" in "Who directed the film in
which X made his debut?": `QuestionReading.asked`), and holds a candidate of the
asked-for kind that the question lacks (`candidates`). A name
that says its kind ("the Salt River" for "which river") carries the relation itself. A yes/no
question is never answered by one sentence: it compares; nor is a question that asks two
things ("Who ground the lens, and where was he born?"): its clauses are answered in turn.
A sentence that does not name the entity answers with a bridge: a sentence of the chunk
naming it that adds to the relation, or, in a chunk with no subject of its own (no title,
no title line), the sentence right before it, whose topic a sentence not led by a pronoun
goes on with ("2021年，上海经济总量实现突破。地区生产总值43214.85亿元…"). A sentence about
the entity may also take the rest of the relation from the sentence before it (`_continued`).

An ordinal the question gives (第一棒, the first) must be in the sentence
(`relation_held.ordinals_held`). A news text's frame (a label before a colon, a dateline, a
byline, 北京时间) is no candidate; a Chinese question for a film, book or song is answered
by a title in 《》.

When several sentences answer, `answerings` yields them all with the candidates each holds
(`candidates`), for the answer to choose among (`compose.corroborated`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from treerag.reasoning.called import called, named_noun
from treerag.reasoning.chunk_reading import (
    about_a_relative,
    described,
    labelled,
    names_kind,
    names_subject,
    pronoun_led,
    statements,
    subjects,
)
from treerag.reasoning.contrast import only_followed, other_place, other_sibling, other_side
from treerag.reasoning.fillers import candidates, common_word, titled
from treerag.reasoning.kinds import asked_kind, without_kind_words
from treerag.reasoning.lifespan import spelled
from treerag.reasoning.named import abbreviated, names_in
from treerag.reasoning.placing import asks_placing
from treerag.reasoning.reading import QuestionReading, fold, read_question
from treerag.reasoning.relation_held import (
    RELATION_SHARE,
    agent_verb,
    equivalents,
    has_ordinal,
    ordinals_held,
    relation_share,
)
from treerag.reasoning.span_bound import bounded
from treerag.text import HAN, HAN_CHAR, READING, canonical, fold_cased, proper_names
from treerag.text.figures import DATING_YEAR, NUMERAL

_OWN_COUNTRY = (*equivalents("中国"), "国内")
"""What news written in China calls it: its other words (`EQUIVALENT_WORDS`: 我国, 全国) and
国内."""
_POSSESSIVE_LEAD = re.compile(
    r"^\W*(?:(?:in|on|at|by|after|before|during|later|then)\b[^,]{0,30}?,?\s*)?"
    r"(?:his|her|its|their)\b|^[^。！？]{0,12}?[他她它]的",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Answering:
    """A sentence of a chunk that answers a question."""

    sentence: str
    """As the document writes it."""
    filler: str
    """The candidate of the asked-for kind it holds: "Brennholt", "1902" (the first of
    `candidates`; failing one, a thing asked with no noun ("What was built in 1788?") may be
    a common word the question lacks: "water mill")."""
    bridge: str = ""
    """The chunk's sentence that ties the chunk's subject to the question's entity, when the
    answering sentence is about the subject only (a chain inside one chunk), or the sentence
    before it that opened the relation it goes on with (`_continued`)."""
    subject: str = ""
    """The document's subject when the answer is the sentence's pronoun ("he founded…")."""
    candidates: tuple[str, ...] = ()
    """Every candidate of the asked-for kind the sentence holds (`candidates`), `filler` among
    them where it is one."""
    scoped: bool = False
    """A quantity whose sentence holds most of the relation and its chunk the rest (the last
    pass of `answerings`): weaker than a sentence that says the whole relation."""

    @property
    def hedged(self) -> bool:
        """Whether the sentence gives its value as a forecast or an estimate, not as a fact.

        "分析师曾对英特尔作出…全年营收743.4亿美元的预测", "revenue is expected to reach…":
        weaker than a sentence that states what was.
        """
        return bool(_HEDGED.search(_MEASURED_AGAINST.sub(" ", fold(self.sentence))))


_MEASURED_AGAINST = re.compile(
    r"(?:超出|超过|好于|高于|低于|不及|符合|优于|逊于)[^，。,]{0,8}?(?:预期|预估|预测|预计)"
)
"""A result measured against a forecast ("好于分析师预期", "超出市场预估"): a fact."""
_HEDGED = re.compile(
    r"(?:预测|预计|预估)|有望"
    r"|\bforecast|\bexpected to\b|\bis projected\b|\bpredict(?:s|ed)?\b(?! by)"
)
"""A value given as a forecast: 预计, 有望, "expected to" (not "好于预期", "beating estimates",
"life expectancy": those state what was)."""


def answering(question: str, title: str, text: str) -> Answering | None:
    """The sentence of a chunk that answers the question (rules at the top), or None.

    A sentence that answers alone comes first. A chunk can also hold a short chain: a
    sentence naming the question's entity that describes the chunk's subject the way the
    question does ("潮聲樂團…由陳慕言創辦" for "陳慕言創辦的樂團"), and another about that
    subject with the rest of the relation and the answer ("樂團的首任指揮是許若蘭"). The
    pair answers when together they hold the relation and the naming sentence adds some of
    it; the naming sentence is the bridge. A number the question gives (a year) must be in
    the chunk: "今年春节档" of another year does not answer "2022年春节档…".

    A quantity needs the whole relation in its sentence, the question's numbers aside (the
    chunk holds them). Failing that, a last pass takes a sentence holding most of it when the
    chunk holds the rest: "全年城镇新增就业1269万人" in a chunk about 2021年中国经济数据
    answers "2021年中国城镇新增就业了多少人".
    """
    return next(answerings(question, title, text), None)


def answerings(question: str, title: str, text: str) -> Iterator[Answering]:
    """Every sentence of a chunk that answers the question, in `answering`'s order (lazily).

    Sentences answering alone first, then those with a bridge, then those that lean on
    their chunk: a quantity with the chunk's scope, any other with the relation the sentence
    before it opened (`_continued`); each sentence once.
    """
    reading = read_question(question)
    if reading.kind == "yesno" or reading.several:
        return
    view = _ChunkView.read(reading, question, title, text)
    if view is None or not _numbers_held(reading, fold(f"{title} {text}")):
        return
    passes = [(False, False), (True, False), (False, True)]
    common: list[Answering] = []
    seen: set[str] = set()
    for chained, scoped in passes:
        for sentence in view.said:
            found = None if sentence in seen else _answers(view, sentence, chained, scoped)
            if found is None:
                continue
            seen.add(sentence)
            if scoped and not found.bridge:  # the chunk's scope, not the sentence before
                found = replace(found, scoped=True)
            if reading.kind != "thing" or reading.head or _named(found):
                yield found
            else:
                # A thing asked with no noun is a name where one answers ("…票房冠军" is a
                # film, not "14.75亿元" of "首日票房达到…"); a common word only failing that.
                common.append(found)
    yield from common


def _describes(folded: str) -> bool:
    """Whether a Chinese question describes what a chain's bridge names (`_DESCRIBING`).

    "霧溪主流全長是多少" describes nothing: a tributary's document naming 霧溪主流 ("匯入霧溪
    主流") and its own length is no chain to 霧溪's length. A question in another language is
    read as describing (its relative clauses are not told here).
    """
    return not HAN_CHAR.search(folded) or _DESCRIBING.search(folded) is not None


_DESCRIBING = re.compile(rf"[的之](?=[{HAN}])|有[一两几]?[个家座所位条间部本艘只件项]")
"""How a Chinese question describes what a chain's bridge names: a clause before 的 ("…創辦的
樂團"), or a thing it says there is ("蘆汀鎮上曾有一家紡織廠，它…")."""


def _named(found: Answering) -> bool:
    """Whether an answer's filler is a name or a quoted title of its sentence."""
    cased = fold_cased(found.sentence)
    return found.filler in (*titled(cased), *proper_names(cased, READING))


def answering_across(
    question: str, title: str, text: str, bridges: Sequence[str]
) -> Answering | None:
    """A sentence of a chunk the question does not name that answers it through a bridge.

    The last hop of a chain held in two chunks: the question names X; a sentence of another
    chunk (a bridge) ties X to this chunk's subject ("Irvine appears on the cover of Formula
    One Arcade"); a sentence of this chunk, about its subject as every sentence of a
    document is, holds what is asked and the asked-for thing ("Formula One Arcade is a
    racing video game developed by Studio 33"). As in a chain inside one chunk, the pair
    must hold the relation; unlike there, the bridge need not add to it: naming both the
    question's entity and this chunk's subject is its part ("Aldous Brennick … was the first
    Speaker of the Federal Assembly" for "Where was the first Speaker … born?", whose answer
    "Brennick was born … in Marrowgate" says the whole relation). `Answering.bridge` is the
    bridge sentence used. None when the question names this chunk's subject (then
    `answering` reads it) or asks yes/no or two things.
    """
    reading = read_question(question)
    if reading.kind == "yesno" or reading.several or not bridges:
        return None
    own = next(iter(subjects(title, text)), "")
    if not own or names_subject(question, title, text):
        return None
    view = _ChunkView(
        # The bridge names the question's entities: their words are not relation here.
        reading=reading.relation_in([*reading.entities, fold(own)]),
        subject="",
        own=own,
        said=statements(text),
        naming=list(bridges),
        again=[],
        whole=fold(f"{title} {text}"),
    )
    for sentence in view.said:
        found = _answers(view, sentence, chained=True, across=True)
        if found is not None:
            return found
    return None


def _numbers_held(reading: QuestionReading, folded: str) -> bool:
    """Whether a text holds every number the question gives (a year, a count)."""
    return all(t in folded for t in reading.terms if t.isdigit())


@dataclass(frozen=True)
class _ChunkView:
    """A chunk as `answering` reads it against one question."""

    reading: QuestionReading
    """The question's reading, its relation without the names this chunk gives."""
    subject: str
    """The chunk's subject when the question names it, else ""."""
    own: str
    """The chunk's subject (its title or title line), named or not."""
    said: list[str]
    naming: list[str]
    """The sentences that name an entity of the question."""
    again: list[str]
    """The last words of the entities the chunk names ("lighthouse", 灯塔)."""
    whole: str
    """The chunk's title and text, canonical."""

    @classmethod
    def read(
        cls, reading: QuestionReading, question: str, title: str, text: str
    ) -> _ChunkView | None:
        """Read the chunk; None when the question names someone and the chunk names none."""
        subject = names_subject(question, title, text)
        said = statements(text)
        keys = [canonical(s) for s in said]
        naming = [s for s, key in zip(said, keys, strict=True) if _names_any(reading, key)]
        # "…是為竹塹城的開端；1827年，由地方士紳鄭用錫等人倡議改築為磚石城": a statement after
        # a semicolon goes on with what the one before it names.
        naming += [
            s
            for before, s in pairwise(said)
            if before in naming and before.rstrip().endswith(("；", ";")) and s not in naming
        ]
        # "the lighthouse" after "Heyan Lighthouse", "Varga" after "Ilse Varga": the chunk
        # names the entity, then refers to it by its last word.
        named = [e for e in reading.entities if any(names_in(e, key) for key in keys)]
        # "Bishop Alric Dunmore" in Alric Dunmore's document: the entity is its subject with
        # a title before it, whose words are the name's, not relation the sentence must hold.
        named += [e for e in reading.entities if subject and e not in named and _holds(e, subject)]
        if reading.entities and not (named or subject):
            return None
        if reading.topic and reading.topic not in fold(f"{title} {text}"):
            return None  # "台糖是在什么时候成立的" in a chunk that never names 台糖
        return cls(
            reading=reading.relation_in([*named, *([fold(subject)] if subject else [])]),
            subject=subject,
            own=next(iter(subjects(title, text)), ""),
            said=said,
            naming=naming,
            again=[w for e in named if (w := _last_word(e))],
            whole=fold(f"{title} {text}"),
        )

    @functools.cached_property
    def ranks(self) -> str:
        """The canonical question without its names, where its ordinals are read.

        "First Republic Bank", 第一次世界大战 as the chunk's title: a name, not a rank.
        """
        question = self.reading.folded
        names = sorted({fold(n) for n in (*self.reading.entities, self.own) if n}, key=len)
        for name in reversed(names):  # the longest first: "first republic bank" whole
            # A name's capitalised ordinal is read off as a question word ("First Republic
            # Bank" -> entity "republic bank"): it goes with the name.
            question = re.sub(
                rf"(?:\b(?:first|second|third|last)\s+)?{re.escape(name)}", " ", question
            )
        return question

    def about(self, sentence: str) -> bool:
        """Whether a sentence is about what the question names (rules at the top)."""
        if self.subject and about_a_relative(sentence, self.reading.folded):
            return False
        return (
            not self.reading.entities
            or bool(self.subject)
            or sentence in self.naming
            or any(names_in(w, canonical(sentence)) for w in self.again)
        )


def _names_any(reading: QuestionReading, key: str) -> bool:
    return any(names_in(e, key) for e in reading.entities)


def _answers(
    view: _ChunkView, sentence: str, chained: bool, scoped: bool = False, across: bool = False
) -> Answering | None:
    """Whether one sentence answers.

    Alone, or with a bridge when `chained`; a quantity with the chunk's scope when `scoped`;
    with a bridge from another chunk when `across` (`answering_across`).
    """
    reading = view.reading
    about = view.about(sentence)
    if about == chained and not across:
        return None  # a sentence about the entity answers alone; one about the subject, chained
    pronoun = pronoun_led(sentence)
    by_pronoun = pronoun or described(sentence, reading.head, view.own)
    led = view.own if by_pronoun and not view.subject else ""
    if reading.kind not in ("person", "thing") or _POSSESSIVE_LEAD.search(sentence):
        led = ""  # "Its water mill…": the subject owns the answer, it is not it
    # "Ezer Weizman (15 June 1924 – 24 April 2005) was…" says when he was born (`lifespan`).
    said = spelled(sentence, reading.folded) if reading.kind == "time" else sentence
    folded = fold(said)
    han = bool(HAN_CHAR.search(reading.folded))
    if han and other_side((*reading.candidates, *reading.entities), folded):
        return None  # "…女单冠军" for "…男单冠军": another event (`contrast`)
    own = _OWN_COUNTRY if "中国" in reading.folded else ()
    if han and other_place(reading.folded, folded, own):
        return None  # "越南GDP增长率" for "中国GDP增长率": another place's figure
    if han and other_sibling(reading.folded, folded):
        return None  # "…夺得2023年澳网男单冠军" for "2023年温网男单冠军": another tournament
    if han and only_followed(reading.entities, folded):
        return None  # "…成为继马克龙之后访华的…": another's visit
    if han and _said_of_the_other(reading, folded):
        return None  # "她早年师从闵叔衡，后者生于雁川": her teacher's birth, not hers
    if han and reading.kind == "number" and not view.subject and _only_placing(reading, folded):
        return None  # "嘉义市是位于嘉南平原北端的…，面积约60.03平方公里": the city's area
    options = tuple(candidates(reading, said, led))
    if han and (rank := _ASKED_RANK.search(reading.folded)):
        # "…被认定为台湾原住民族的第几族": the answer is a rank of that word (第十族), and a
        # sentence that says none does not answer, whatever names it holds.
        ranks = re.findall(rf"第(?:{NUMERAL.pattern})+{re.escape(rank.group(1))}", folded)
        if not ranks:
            return None
        options = (*dict.fromkeys(ranks), *options)
    # The question's year ("2022年", the edition's "2023春节档") is checked in the chunk
    # (`_numbers_held`) and dates the sentence (`_other_year`): no relation it must repeat.
    scoped_year = han and bool(DATING_YEAR.search(reading.folded))
    dated = scoped_year and reading.kind != "time"
    if dated:
        # A sentence that names no year goes on in the year of the one before it.
        at = view.said.index(sentence) if sentence in view.said else 0
        year_of = folded if at == 0 or DATING_YEAR.search(folded) else fold(view.said[at - 1])
        options = tuple(o for o in options if not _other_year(reading.folded, year_of, o))
    # A kind or a placing is said in its own form (`kinds`, `placing`) or not at all.
    kind_asked = bool(asked_kind(reading.folded)) or asks_placing(reading.folded)
    if kind_asked and not options:
        return None  # "这一类型的电影"; "…激战正酣" of a team asked how it placed
    found = options[0] if options else common_word(reading, sentence)
    # The candidates are dated above; a common word is dated here.
    if not found or (dated and not options and _other_year(reading.folded, year_of, found)):
        return None
    if han and _said_of_the_subject(reading, folded, found):
        return None  # "他籍贯栖州，早年师从柳知远" for "…的老师是哪里人": his own place
    # A name of the asked-for kind ("the Salt River" for "which river", 盐河 for 哪条河)
    # says the relation itself: "Port Veyra lies on the Salt River" answers which river
    # flows through it.
    kind_named = (
        bool(reading.head)
        and (names_kind(found, reading.head) or _placed_in_kind(reading, found, folded))
    ) or _named_as_asked(reading, found, folded)
    # A kind said before its noun ("喜剧电影") says what is asked (`kinds`); the rest of
    # the relation but the kind word (类型, never said by a definition) is still needed.
    if not kind_named and not kind_asked and not _asks(reading, folded):
        return None  # it must say what is asked ("directed", not only "made his debut")
    number = reading.kind == "number"
    asked_words = reading.relation if number and not reading.asked else (reading.asked,)
    if any(bounded(word, reading.folded, folded) for word in asked_words):
        # "首日票房冠军" for the season's champion, "发布两周内", "单位面积产量" (`span_bound`)
        return None
    # A quantity is the easiest thing to find in the wrong sentence: it needs the whole
    # relation ("销量同比增长" is not "营业收入同比增长").
    needed = 0.0 if kind_named else 1.0 if reading.kind == "number" else RELATION_SHARE
    quantity = reading.kind == "number" and not kind_named
    weighed = _without_numbers(reading) if quantity or scoped_year else reading
    share = relation_share(without_kind_words(weighed) if kind_asked else weighed, folded)
    if quantity and scoped:  # most of it here, the rest in the chunk
        held = share >= RELATION_SHARE and relation_share(reading, view.whole) >= 1.0
        share = 1.0 if held else 0.0
    subject = led if found == led else ""
    if not chained:
        found_here = Answering(sentence, found, "", subject, options)
        if scoped and not quantity:
            return _continued(view, found_here, share, needed)
        ranked = ordinals_held(view.ranks, folded)
        return found_here if share >= needed and ranked else None
    # The sentence right before continues into this one: "2021年，上海经济总量实现突破。地区
    # 生产总值43214.85亿元…" is Shanghai's figure, though the bridge adds no relation (the
    # topic an utterance opens carries into the next: centering, Grosz, Joshi and Weinstein,
    # 1995, Computational Linguistics 21(2)).
    # In a document with a subject of its own, or after a pronoun ("He was born…" after a
    # sentence naming Marta Lind, in Tomas Brandt's document), the topic is the subject's.
    at = view.said.index(sentence)
    goes_on = at and not across and not view.own and not pronoun
    before = view.said[at - 1] if goes_on else ""
    # A list's field labelled with what is asked ("年度体育人物：…隋文静韩聪") is the list's:
    # its heading, the last sentence before it naming the question's entity, is the bridge
    # ("附：《中国新闻周刊》2022“年度影响力人物”榜单").
    heading = (
        next((b for b in reversed(view.said[:at]) if b in view.naming), "")
        if labelled(sentence, reading.folded)
        else ""
    )
    describes = _describes(reading.folded)
    for bridge in (b for b in view.naming if b != sentence):
        if not (describes or across or bridge in (before, heading)):
            continue  # a question that describes nothing has no bridge to describe
        said = f"{fold(bridge)} {folded}"
        joint = relation_share(reading, said)
        if joint >= needed and (joint > share or bridge in (before, heading) or across):
            # The bridge may give the rank ("the first king…" names him), but the sentence
            # must not give another ("…crowned as its last king").
            if ordinals_held(view.ranks, said) and (
                ordinals_held(view.ranks, folded) or not has_ordinal(folded)
            ):
                return Answering(sentence, found, bridge, subject, options)
    return None


def _continued(view: _ChunkView, found: Answering, share: float, needed: float) -> Answering | None:
    """A sentence that answers with the relation its previous sentence opened, or None.

    "北京2022年冬奥会火炬接力开始。韩正…交给第一棒火炬手--罗致焕" answers "谁是北京冬奥会
    第一棒火炬手": the topic an utterance opens carries into the next (centering, as in
    `_answers`), so the pair holds the relation. The sentence itself must hold half of it,
    and its ordinals ("最后一棒" after "第一棒…" is another bearer), and neither open with a
    pronoun nor sit in a document with a subject of its own (then the topic is the
    subject's). The previous sentence is quoted as the bridge.
    """
    at = view.said.index(found.sentence)
    if not at or view.own or pronoun_led(found.sentence) or share < 0.5:
        return None
    before = view.said[at - 1]
    said = f"{fold(before)} {fold(found.sentence)}"
    own_ordinals = ordinals_held(view.ranks, fold(found.sentence))
    if relation_share(view.reading, said) >= needed and own_ordinals:
        return replace(found, bridge=before)
    return None


def _other_year(question: str, folded: str, value: str) -> bool:
    """Whether a value of a sentence is dated by a year the question does not give.

    A year scopes the values after it, up to the next year: "2020年…出生率为8.52‰" does not
    answer "2021年…出生率"; in "2024年春节档…总票房破62.81亿元,已超越2022年档期总票房60.39亿元"
    62.81 is 2024's and 60.39 is 2022's; "地区生产总值43214.85亿元…自2017年突破3万亿元以来"
    dates no value before 2017. An edition's year dates alike: "2021“中国旅游文化周”…在宁夏"
    is not the 2022 edition. A value the sentence does not spell as folded (a name) is
    dated by the sentence's first year.
    """
    given = {m.group().rstrip("年 ") for m in DATING_YEAR.finditer(question)}
    at = folded.find(fold(value))
    said = [
        m.group().rstrip("年 ") for m in DATING_YEAR.finditer(folded[:at] if at >= 0 else folded)
    ]
    if at < 0:
        said = said[:1]
    return bool(said) and said[-1] not in given


def _without_numbers(reading: QuestionReading) -> QuestionReading:
    """The reading without the numbers the question gives (`_numbers_held` checks them)."""
    return replace(reading, relation=tuple(t for t in reading.relation if not t.isdigit()))


_THE_OTHER = re.compile(r"[，,；;]\s*(?:后者|前者)")
"""A clause whose subject is "the latter" or "the former": another person than the one the
sentence opened with."""


def _said_of_the_other(reading: QuestionReading, folded: str) -> bool:
    """Whether a Chinese sentence says what is asked only of "the latter" (后者) or "the former".

    "她早年师从指挥家闵叔衡，后者生于雁川" says where her teacher was born, not where she was.
    """
    other = _THE_OTHER.search(folded)
    if other is None or not reading.asked:
        return False
    words = (reading.asked, *equivalents(reading.asked))
    before = folded[: other.start()]
    return not any(w in before for w in words) and any(w in folded for w in words)


_PLACING = re.compile(r"位于[^，,。；;]{0,24}?的")
"""A phrase that places a sentence's subject: "位于台湾西南部嘉南平原北端的（一个省辖市）"."""


def _only_placing(reading: QuestionReading, folded: str) -> bool:
    """Whether a Chinese sentence names the question's entities only to place its subject.

    "嘉义市…是位于台湾西南部嘉南平原北端的一个省辖市，…面积约60.03平方公里" gives the city's
    area: 嘉南平原 is where the city lies, not what the figure measures.
    """
    spans = [m.span() for m in _PLACING.finditer(folded)]
    found = [m for e in reading.entities for m in re.finditer(re.escape(fold(e)), folded)]
    return bool(spans and found) and all(
        any(a <= m.start() and m.end() <= b for a, b in spans) for m in found
    )


_ROLE_ASKED = re.compile(r"的(老师|导师|师父|父亲|母亲|妻子|丈夫|儿子|女儿|[^的]{1,3}[人者])")
"""A person a Chinese question asks about through the entity it names: "沈青禾的老师", "…的
创办人" (an agent noun, `agent_verb`)."""
_CLAUSE = re.compile(r"[^，。；,;]+")


def _said_of_the_subject(reading: QuestionReading, folded: str, found: str) -> bool:
    """Whether a Chinese sentence gives what a question asks of a role only of its entity.

    "他籍贯栖州，早年师从刻书家柳知远学习版画" for "沈青禾的老师是哪里人？": 栖州 stands in the
    clause about him, not in one that says the teacher (老师, 师从 or any word for the role);
    the sentence names the teacher, the bridge, and where he is from is in his own document.
    """
    role = _ROLE_ASKED.search(reading.folded)
    if role is None or reading.kind not in ("place", "time", "number") or not reading.entities:
        return False
    if not any(names_in(e, folded) for e in reading.entities):
        return False  # in the teacher's own document, "他生于…" is the teacher's
    noun = role.group(1)
    verb = agent_verb(noun)
    if noun.endswith(("人", "者")) and not verb:
        return False  # "…的人": no role
    words = [noun, *equivalents(noun), *([verb] if verb else []), "后者", "前者"]
    at = fold(found)
    clause = next((m.group() for m in _CLAUSE.finditer(folded) if at in m.group()), "")
    return bool(clause) and not any(w in clause for w in words)


def _asks(reading: QuestionReading, folded: str) -> bool:
    """Whether a text holds the relation the question asks with (`QuestionReading.asked`).

    In a chain inside one chunk the answering sentence says what is asked ("He was born in
    Vellby" for "Where was the founder of X born?"); the bridge says the description.
    """
    if not reading.asked:
        return relation_share(reading, folded) > 0
    single = replace(reading, relation=(reading.asked,))
    return relation_share(single, _without_asked_of(reading.asked, folded)) >= RELATION_SHARE


_ASKING_WORD = r"(?:什么样的|什么|哪一?[个种款家位些部条座所只]?)"
"""A Chinese question word right before a noun: the noun is asked about there, not stated.
(Not English "which": "the Sella, which flows through…" states.)"""


def _without_asked_of(asked: str, folded: str) -> str:
    """The text without the asked term where a question word asks for it.

    "很多用户想要知道使用了什么处理器" and "更多关于'小米Mix4使用什么处理器'的信息" ask what the
    processor is; neither says it, so neither holds the relation 处理器 of "…的处理器是什么".
    """
    return re.sub(rf"{_ASKING_WORD}{re.escape(asked)}", " ", folded)


def _named_as_asked(reading: QuestionReading, found: str, folded: str) -> bool:
    """Whether a sentence gives the name asked to the noun asked, with the question's qualifier.

    "代表著作為《臺灣米糖經濟論》" for "最具代表性的學術著作叫做什麼" (`called.called`, in
    apposition only): the sentence says the relation itself, as a name of the asked kind
    does; a name a sentence gives anything ("名為…") is not enough.
    """
    before, noun = named_noun(reading.folded)
    return bool(before and noun) and found in called((before, noun), folded, anchored=True)


_ASKED_RANK = re.compile(rf"第几([{HAN}])")
"""A Chinese question asking a rank: 第几族, 第几任, 第几届 (canonical)."""


_PLACED = frozenset({"stand", "stands", "lie", "lies", "located", "situated", "sit", "sits"})
"""English verbs that only say where a thing is: "Which island does the light stand on?"."""


def _placed_in_kind(reading: QuestionReading, found: str, folded: str) -> bool:
    """Whether an English sentence places the entity in a name it calls of the asked kind.

    "…a lighthouse on the island of Caddow" answers "Which island does the light stand on?":
    the kind word stands before the name, which does not end with it (`names_kind` reads
    names that do). Only for a question that asks nothing but where its entity is: "the mill
    town of Ashcombe", where she was born, says no town her apprentice opened a workshop in.
    """
    head = reading.head
    if HAN_CHAR.search(head) or not found or not set(reading.relation) <= _PLACED:
        return False
    said = rf"\b{re.escape(head)}\s+(?:of\s+)?{re.escape(fold(found))}\b"
    return re.search(said, folded) is not None


def _last_word(entity: str) -> str:
    """The word an entity is referred to by once named: its last ("lighthouse", 灯塔)."""
    if HAN_CHAR.search(entity):
        from treerag.segment import jieba

        words = jieba().lcut(entity)
        return words[-1] if len(words) > 1 and len(words[-1]) >= 2 else ""
    words = entity.split()
    return words[-1] if len(words) > 1 and len(words[-1]) >= 4 else ""


def _holds(entity: str, subject: str) -> bool:
    """Whether a question's entity is a document's subject with words around it.

    Or its abbreviation with them (`named.abbreviations`): jieba reads "白中校園內" whole.
    """
    key = canonical(entity)
    return names_in(canonical(subject), key) or abbreviated(subject, key)
