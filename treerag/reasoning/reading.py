"""How the offline judge reads a question: as a reader does.

- **One canonical form.** Question and chunk are compared after NFKC (full/half width), case
  folding and Traditional → Simplified (OpenCC t2s), before any segmentation: a question in
  either script reads a document in either, and jieba segments both alike.
- **The relation** is the question's content terms outside the names it gives, the noun of
  "which X" (and the word that qualifies it, "Australian" of "what Australian city", which
  is no name either) and the words that only say what kind of answer is wanted (时间, year): "born",
  "flows". Each term counts one; a Chinese term is credited with the share of it that the
  text holds as one run of characters (`relation_held`).

How much of the relation a text holds is read in `treerag.reasoning.relation_held`, what a
chunk is about and which of its sentences state something in `treerag.reasoning.chunk_reading`;
which sentence answers a question, with these rules, in `treerag.reasoning.answering`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from treerag.reasoning.called import ATTRIBUTE, former_named, named_noun
from treerag.reasoning.named import MIN_NAME_CHARS
from treerag.reasoning.placing import PLACING_WORDS
from treerag.reasoning.questions import (
    POINTED,
    QUANTITY_NOUN,
    asked_noun_span,
    asks_several,
    proper,
    slot,
)
from treerag.reasoning.text import (
    content_terms,
    stem,
)
from treerag.text import (
    EN_STOP,
    HAN,
    HAN_CHAR,
    READING,
    canonical,
    fold,
    fold_cased,
    proper_names,
)
from treerag.text.names import NAME_FLAGS, NAME_GLUE, joined_persons

ANSWER_KIND_WORDS = frozenset(
    """
    时间 日期 时候 哪天 何时 人数 数量 多少 名字 名称 地点 地方 哪里 什么 哪个 哪位 哪家
    year date time many much place name kind type
    """.split()
)
"""Words that say what kind of answer is wanted, not what it is about: not relation."""
_DEICTIC = frozenset("我国 我们 咱们 本国 我省 我市".split())
"""Words that point at the asker's country or town ("我国2021年人口出生率"): a document names
it (中国, 全国) or points the same way, so they are no relation term it must hold."""
_NOW = frozenset("现在 目前 如今 当前 现今 现时".split())
"""Words for the time of asking ("台糖的总部现在位在哪里"): a document says its present in its
own word (目前总部位于…) or in none, so they are no relation term it must hold."""
_PHASE = frozenset("开始 正式 陆续".split())
"""Words that say a verb's phase, not its deed ("开始施工", "正式通车"): where the verb follows
at once, a document says the deed with or without them ("1917年11月…动工兴建"), so they are
no relation term it must hold; alone ("春运什么时候开始") the phase is the deed."""
_FRAME_LOCATIVE = re.compile(r"([》」”])\s*([中里内上])")
"""A locative closing a quoted title's frame ("在《相逢时节》中演的谁"): jieba glues it to the
verb after it (中演), which no sentence holds ("…中，梁冠华饰演张立新")."""


def _unglued(folded: str) -> str:
    """A canonical question with a title frame's locative cut off from the verb after it."""
    return _FRAME_LOCATIVE.sub(r"\1\2 ", folded)


ASKING = re.compile(r"^(?:哪|几|第几|多少|什么|何|谁)")
"""Chinese question words jieba keeps whole (哪一年, 几次, 第几次): they ask, they do not relate."""


@dataclass(frozen=True)
class QuestionReading:
    """What the judge reads of a question once, for every chunk it judges."""

    folded: str
    """The question in its canonical form (`fold`)."""
    kind: str
    """What it asks for (`questions.slot`): person, place, time, number, yesno, thing."""
    entities: tuple[str, ...]
    """The names it gives, canonical (`treerag.text.proper_names`, `READING`)."""
    terms: tuple[str, ...]
    """Its content terms, canonical (coverage of a chunk is counted over these)."""
    relation: tuple[str, ...]
    """Its content terms outside its names and the answer-kind words (see the module)."""
    candidates: tuple[str, ...] = ()
    """Its content terms outside the answer-kind words: the relation before any name is
    taken out (`relation_in`)."""
    head: str = ""
    """The noun of "which X" / "what X" ("river"), "" when none."""
    several: bool = False
    """Whether it asks two things or more (`questions.asks_several`)."""
    asked: str = ""
    """The relation term the question asks with: the last of the clause holding its question
    word ("born" in "Where was the founder of X born?", 出生 in "…的老师，出生在哪里？")."""
    kind_words: tuple[str, ...] = ()
    """The words of the noun a Chinese question asks after what was done ("禁用物质" of
    "…被查出的禁用物质是什么"): the kind of thing asked, no relation (`_done_to`)."""
    topic: str = ""
    """A Chinese question naming no entity: the noun it opens with, what it is about (台糖 of
    "台糖是在什么时候成立的", 浊水溪 of "浊水溪在过去又被叫做什么"), "" when none (`_topic`)."""

    def relation_in(self, named: Sequence[str]) -> QuestionReading:
        """This reading with the relation of a text that names `named` (of its entities).

        A word of the question is a name's only where the text names it: "城市" that jieba
        reads as a name in "布伦尼克出生的城市…" is relation for a text that does not say it.
        """
        words = {t for n in named for t in content_terms(n)}
        kept = tuple(t for t in self.candidates if t not in words)
        if HAN_CHAR.search(self.folded) and named:
            # Segmented without the names: jieba reads "青岩镇有哪条河" as 青岩/镇有/哪条.
            blank = self.folded
            for name in sorted((fold(n) for n in named), key=len, reverse=True):
                # "小提琴製作師鄔清弦": the profession before a name is part of the name.
                blank = re.sub(
                    rf"[{HAN}]{{1,8}}?[师家匠员长手](?={re.escape(name)})",
                    lambda m: " " * len(m.group()),
                    blank,
                )
                blank = blank.replace(name, " " * len(name))
            kept = tuple(
                t
                for t in _relation_terms(blank, self.head)
                if t not in words and t not in self.kind_words
            )
        kept = former_named(self.folded, kept)
        return replace(self, relation=kept, asked=_asking(self.folded, kept, self.head, self.kind))


_CODE = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]+(?:-[A-Z0-9]+)*(?![A-Za-z0-9])"
)
"""A code: capitals and digits, both ("MU5735", "C919", "KF-21", "G20"): it names one flight,
aircraft or event as a proper name does ("1990s", "5km", "2nd" are not codes)."""


_OPENING_WORD = re.compile(
    rf"^\s*([A-Z][A-Za-z'\-]+)\s+(?=[a-z])(?!(?:{'|'.join(sorted(NAME_GLUE))})\b)"
)
"""A capitalised word, then a lower-case word that does not go on with a name ("… of …")."""
_IMPERATIVES = frozenset("name list give tell find identify describe explain compare".split())
_ADJECTIVE_END = re.compile(r"(?:an|ese|ish|ic|al|able|ible|ous|ful|ive)$")
"""Endings of the adjectives a question may open with: "Indian film photographer…",
"Notable speakers…" (a name so ending, "Jordan", is then left to the other rules)."""


def _opening_name(question: str) -> list[str]:
    """The capitalised word a question opens with, when it can only be a name.

    A document's sentence may open with any word ("Among the vessels…"), so `proper_names`
    takes no single word there; a question opens with its question word, an auxiliary or an
    imperative, and a follow-up with the bridge's name ("Charmed originally broadcast on
    what station?").
    """
    match = _OPENING_WORD.match(question)
    word = match.group(1) if match else ""
    low = word.lower()
    if not word or low in EN_STOP or low in _IMPERATIVES or _ADJECTIVE_END.search(low):
        return []
    return [word]


_NAME_ENDS = ("v", "p", "c", "u", "m", "x", "d")
"""jieba's tags of what follows a person who opens a question: a verb, a preposition, a
conjunction, a particle (的), a number (a year), punctuation, an adverb."""


def _opening_person(question: str) -> list[str]:
    """The person a Chinese question opens with, where jieba cuts the name apart.

    jieba knows common given names (王小明, 张学良) but reads a rarer one apart: 林 / 秋月
    (a time word), 许 / 明哲 (`names.joined_persons` joins them). Opening the question, and
    followed by a verb, preposition, particle or number, such a name is the question's
    entity though its words are common ones ("许明哲担任…": 明哲 is a dictionary word).
    """
    from treerag.segment import tag

    pairs = tag(question[:8])
    joined = joined_persons(pairs)
    if len(joined) < 2 or len(joined) == len(pairs):
        return []  # no surname joined to its given name
    (word, flag), (_, after) = joined[:2]
    if flag != "nr" or len(word) < 2 or word == pairs[0][0] or not after.startswith(_NAME_ENDS):
        return []
    return [word]


_PHRASE_WORDS = ("n", "f", "g", "yg", "ng", "s", "j", "b")
"""jieba's tags of the words of a name it reads apart: nouns, a direction (東 of 東崁), a
morpheme it does not know (崁), a place word, an abbreviation, a distinguishing word."""


def _opening_phrase(question: str, names: Sequence[str]) -> list[str]:
    """The name a Chinese question opens with where jieba reads no name in it.

    "東崁科技大學在剛創立時…": 東 / 崁 / 科技 / 大學, no word of which jieba tags a name.
    The nouns and morphemes before the first verb, preposition or particle make a name
    when a word of them is rare or unknown (`proper`) and no name already read lies in
    them ("白沙高中的…" keeps 白沙, which a document writing 白沙高級中學 names).
    """
    from treerag.segment import tag

    words: list[tuple[str, str]] = []
    pairs = tag(question[:16])
    for word, flag in pairs:
        if word == "是" or not flag.startswith(_PHRASE_WORDS):
            break
        words.append((word, flag))
    else:
        return []
    phrase = "".join(w for w, _ in words)
    if (
        len(words) < 2
        or not 3 <= len(phrase) <= 10
        or not words[-1][1].startswith(("n", "s", "j"))
        or any(fold(n) in phrase for n in names if proper(n))
        or not proper(phrase)
    ):
        return []
    return [phrase]


WORK_TITLE = re.compile(r"《([^《》]{1,40})》")
"""A work's title in Chinese title marks (《狂飙》, the 书名号 of GB/T 15834): the name of a
film, book, song or law, whatever words it is made of ("《三悦有了新工作》" names a series, not
a job)."""


def codes(text: str) -> list[str]:
    """The codes a text gives, as written (`_CODE`)."""
    return _CODE.findall(text)


@lru_cache(maxsize=2048)
def read_question(question: str) -> QuestionReading:
    """Read a question in its canonical form (rules at the top of this module)."""
    folded = fold(question)
    cased = fold_cased(question)
    quoted = set(re.findall(r"[《「“\"]([^》」”\"]+)[》」”\"]", cased))
    modifier = _head_modifier(cased)
    start, end = asked_noun_span(cased)
    asked_noun = canonical(cased[start:end]) if start >= 0 else ""
    # "2022年世界杯吉祥物叫什么": the noun whose name is asked is no name itself, whatever
    # jieba's dictionary tags it (吉祥物 is "nr" there).
    named_asked = named_noun(folded)[1]
    names = proper_names(cased, READING)
    opening = _opening_person(folded) or _opening_phrase(folded, names)
    found = tuple(
        dict.fromkeys(
            canonical(n)
            for n in [
                *_opening_name(cased),
                *opening,
                *(_without_asking_end(n) for n in names),
                *codes(cased),
                *WORK_TITLE.findall(cased),
            ]
            if canonical(n)
            and canonical(n) != modifier  # "what Australian city": a kind, not a name
            and canonical(n) != asked_noun  # "…发布会的新手机": what is asked, not a name
            and canonical(n) != named_asked
            and not ASKING.search(fold(n))
            and (n in quoted or proper(n) or n in opening)
            # what `names_in` can find: "GDP" is too short to tell from a word, a term then
            and len(canonical(n)) >= MIN_NAME_CHARS["cjk" if HAN_CHAR.search(n) else "latin"]
        )
    )
    terms = tuple(content_terms(_unglued(folded)))
    named_terms = {t for n in found for t in content_terms(n)}
    head = _head(folded, cased)
    candidates = _relation_terms(folded, head, modifier)
    relation = tuple(t for t in candidates if t not in named_terms)
    if not relation and any(_person_of(n) for n in found):
        # "马英九祭祖时间": jieba runs the person and what he did together; with nothing
        # else to say, the rest is the relation, the person the name.
        found = tuple(dict.fromkeys(_person_of(n) or n for n in found))
        named_terms = {t for n in found for t in content_terms(n)}
        relation = tuple(t for t in candidates if t not in named_terms)
    if found and _DEFINITION.search(folded):
        # "俄罗斯瓦格纳是什么" asks what the thing is: the place before its name says which
        # one, it is no relation a definition must repeat.
        relation = tuple(t for t in relation if not _place_word(t))
    relation = _without_appositions(folded, found, relation)
    relation = former_named(folded, relation)
    kind = slot(question)
    if kind == "thing" and _done_to(cased, start):
        # "吕小军被查出的禁用物质是什么": what was done (查出) is the relation, the noun after
        # 的 the kind of thing asked; a sentence names the thing, not its kind ("被查出促红
        # 细胞生成素"), as "the banned substance he tested positive for" is named.
        kind_words = tuple(content_terms(fold(asked_noun)))
        relation = tuple(t for t in relation if t not in kind_words)
    else:
        kind_words = ()
    return QuestionReading(
        folded=folded,
        kind=kind,
        entities=found,
        terms=terms,
        relation=relation,
        candidates=candidates,
        head=head,
        several=asks_several(question),
        # The asked-for noun (电影 of 哪部电影) says the answer's kind, not its relation.
        asked=_asking(folded, relation, head, kind),
        kind_words=kind_words,
        topic="" if found else _topic(folded),
    )


_APPOSITION = re.compile(
    r"^(?:这|那|此|该)[个条座所家位项间部本只艘](\w+?)(?:是|在|于|的|为|有|曾|又|最|被|所|,|$)"
)
"""A kind noun a name is restated by ("雾溪线这条铁路是在…", "林秋月这位画家"): right
after the name, with a demonstrative and its measure word before it."""


def _without_appositions(
    folded: str, names: tuple[str, ...], relation: tuple[str, ...]
) -> tuple[str, ...]:
    """The relation without the kind noun a name is restated by (`_APPOSITION`).

    "雾溪线这条铁路" is the 雾溪线: 铁路 says what it is, no relation a sentence must hold
    ("该线于1917年11月正式动工" answers when it was begun).
    """
    kinds: set[str] = set()
    for name in names:
        at = folded.find(name)
        if at < 0:
            continue
        found = _APPOSITION.match(folded[at + len(name) :])
        if found:
            kinds.update(content_terms(found.group(1)))
    return tuple(t for t in relation if t not in kinds) if kinds else relation


def _topic(folded: str) -> str:
    """The noun a Chinese question opens with, when a word that is no noun follows it.

    A question's opening noun is its topic, what the rest says something of: "台糖是在什么
    时候成立的" asks when 台糖 was founded, and a sentence on when another company was
    founded does not answer it, though jieba reads no name in the question. The noun is
    the topic only where what is said of it follows at once (是, an adverb as 最 or 又, a
    preposition as 在): "城市人口" opens a compound and "苍澜轮渡创办人…" a description; nor
    where the question points at a noun it describes (…的那家茶楼); a time word (去年) is none.
    """
    from treerag.segment import tag

    if not HAN_CHAR.match(folded):
        return ""
    words = list(tag(folded[:24]))
    if len(words) < 2:
        return ""
    (word, flag), (then, after) = words[0], words[1]
    if len(word) < 2 or not (flag.startswith("n") or flag == "j") or ASKING.search(word):
        return _cut_name_before_is(folded)
    if POINTED.search(folded):
        return ""  # "…创办人的父亲开设的那家茶楼位于哪条街": what is asked of is described
    # What the question says of it follows at once: 是, an adverb (最, 又), a preposition (在).
    return canonical(word) if then == "是" or after in ("d", "p") else ""


_OPENING_SUBJECT = re.compile(rf"^([{HAN}]{{3,5}}?)是")
"""The characters a Chinese question opens with, up to its first 是."""


def _cut_name_before_is(folded: str) -> str:
    """A name jieba cuts into pieces, opening a question before its 是, as its topic.

    "八田与一是从哪一所大学毕业的" (a follow-up with the bridge put in): jieba reads 八 / 田 /
    与 / 一, a number, a noun, a preposition and a number; the run before 是 is what the
    question asks about when it is no run of common words (`proper`).
    """
    found = _OPENING_SUBJECT.match(folded)
    run = found.group(1) if found else ""
    return canonical(run) if run and not ASKING.search(run) and proper(run) else ""


_DEFINITION = re.compile(r"是(?:什么|谁)\s*[?？。!！]?\s*$")
"""A Chinese question asking what or who a thing it names is: nothing follows the question
word."""


def _done_to(cased: str, noun_at: int) -> bool:
    """Whether a Chinese question's asked noun (at `noun_at`, after 的) follows a verb."""
    from treerag.segment import tag

    if noun_at < 2 or cased[noun_at - 1] != "的":
        return False
    words = list(tag(fold(cased[max(0, noun_at - 9) : noun_at - 1])))
    return bool(words) and words[-1][1] == "v"


def _place_word(term: str) -> bool:
    """Whether jieba's dictionary gives a (Simplified) word as a place name."""
    from treerag.segment import word_tag

    return word_tag(term) == "ns"


_AUXILIARY = re.compile(
    r"\s*(?:[a-z\-]+\s+){0,2}(?:is|are|was|were|did|does|do|has|have|had|will|can)\b"
)
"""An auxiliary right after the question word (and its noun): "Where was…", "What year did…"."""


def _person_of(name: str) -> str:
    """The person's name a Chinese name opens with when common words follow it, else "".

    "马英九祭祖" (马英九 tagged nr, then 祭祖): 马英九; "马英九基金会" too, so it is asked
    only where the question has no relation of its own (`read_question`).
    """
    from treerag.segment import tag

    if not HAN_CHAR.search(name):
        return ""
    pairs = list(tag(name))  # jieba's tagger: a name it does not know is tagged nr too
    if len(pairs) < 2 or not pairs[0][1].startswith("nr"):
        return ""
    if any(f in NAME_FLAGS or not f.startswith(("n", "v")) for _, f in pairs[1:]):
        return ""  # another name goes on with the name
    return canonical(pairs[0][0])


def _without_asking_end(name: str) -> str:
    """A Chinese name without the word of the answer's kind glued to its end.

    "中国女篮成绩" of "…世界杯中国女篮成绩": jieba runs the team and what is asked of it
    together; 成绩 says what is asked (`placing`), the name is 中国女篮; so does an amount
    (`questions.QUANTITY_NOUN`: 发送量 of "旅客发送量").
    """
    for word in (*ANSWER_KIND_WORDS, *PLACING_WORDS):
        if HAN_CHAR.match(word) and name.endswith(word) and len(name) - len(word) >= 2:
            return name[: -len(word)]
    folded = fold(name)
    last = content_terms(folded)[-1:] if len(folded) == len(name) else []
    if last and QUANTITY_NOUN.search(last[0]) and folded.endswith(last[0]):
        # "旅客发送量" of "2023春运首日旅客发送量": the amount asked, not a name.
        return name[: -len(last[0])]
    if last and ATTRIBUTE.fullmatch(last[0]) and len(folded) - len(last[0]) >= 2:
        # "澄渊湖面积" of "澄渊湖面积有多大": the lake, and what is asked of it.
        return name[: -len(last[0])]
    return name


def _relation_terms(folded: str, head: str, modifier: str = "") -> tuple[str, ...]:
    """A question's content terms that can be relation: not answer-kind nor asking words.

    The asked noun and the word that qualifies it ("Australian" of "what Australian city")
    say what kind of answer is asked, not what the sentence must say of it; a word that
    points at the asker's country (我国) names nothing the document must repeat.
    """
    kind = {stem(w) for w in (head, modifier) if w}
    terms = tuple(
        _COUNTED_NOUN.sub("", _LOCATIVE_END.sub("", t))
        if _counts(folded, t)
        else _LOCATIVE_END.sub("", t)
        for t in content_terms(_unglued(folded))
        if t not in ANSWER_KIND_WORDS
        and t not in _DEICTIC
        and t not in _NOW
        and not ASKING.match(t)
        and not _COUNTED.fullmatch(t)
        and stem(t) not in kind
        and stem(_COUNTED_NOUN.sub("", t)) not in kind  # 本书 of 哪一本书: the kind counted
    )
    return tuple(t for t in terms if not _phase_of(t, terms, folded))


def _phase_of(term: str, terms: tuple[str, ...], folded: str) -> bool:
    """Whether a term is a phase word (`_PHASE`) right before another of the question's terms."""
    return term in _PHASE and any(f"{term}{t}" in folded for t in terms if t != term)


_MEASURE = "首个名位家座条只件本部艘间张台辆架所项次场届"
_COUNTED_NOUN = re.compile(rf"^[{_MEASURE}](?=[{HAN}])")
"""A measure word jieba glues to the noun counted ("多少首诗" → 首诗): the noun is the term."""


def _counts(folded: str, term: str) -> bool:
    """Whether a term follows a question's count word (多少, 几) and opens with a measure."""
    return bool(re.search(rf"(?:多少|几){re.escape(term)}", folded)) and len(term) > 1


_COUNTED = re.compile(
    r"(?:[一两二三四五六七八九十几]+|[那这该此])[个家座所位条只件本部艘间名项幅场首张篇]"
)
"""A count and its measure word ("曾有一家纺织厂"): it says how many, no relation; a
demonstrative and its measure word ("那座湖泊") points, it relates nothing either."""
_LOCATIVE_END = re.compile(r"(?<=[镇村县市城乡区港湾岛湖江河山])[上里内中]$")
"""A locative jieba glues to a place's last word ("镇上" of "芦汀镇上"): the place is the term."""


_IN_PLACE = re.compile(r"\s*(?:$|[?.!,;]|(?:for|in|at|on|to|from|with|during|after|before)\b)")
"""What follows a wh-word asked in place: nothing, or a preposition ("…in what for seven
years?"); "what city" / "who directed" ask at the front."""


def _asked_term(folded: str, relation: tuple[str, ...]) -> str:
    """The relation term the question asks with, in the clause holding its question word.

    English puts the question word first: with no auxiliary after it the verb follows it
    ("Who directed the film…", "Which river flows…"): the first relation term; with one
    ("Where was the founder of X born?", "When was the lighthouse built in the town where…")
    the verb is the first participle after the subject, else the clause's last term.
    Chinese asks in place: the clause's last relation term (出生 in "…的老师，出生在哪里？").
    "" when the clause holds none.
    """
    from treerag.reasoning.questions import _CLAUSE, _SLOTS, _THING, _relative

    start = 0
    for clause in _CLAUSE.split(folded):
        end = start + len(clause)
        found = [m for p in (_THING, *(p for _, p in _SLOTS)) for m in p.finditer(clause)]
        # "…an actress who starred in what?": the relative "who" does not ask.
        asking = [m for m in found if not _relative(clause, m.start())]
        wh = asking or found
        if wh:
            at = {t: folded.find(t, start, end) for t in relation}
            inside = sorted((i, t) for t, i in at.items() if i >= 0)
            if not inside:
                return ""
            if HAN_CHAR.search(clause):
                return inside[-1][1]
            wh_at = start + min(m.start() for m in wh)
            after = clause[min(m.end() for m in wh) :]
            later = [t for i, t in inside if i > wh_at]
            if not later:  # "…created by who?": asked in place, at the end
                return inside[-1][1]
            earlier = [t for i, t in inside if i < wh_at]
            if earlier and _IN_PLACE.match(after):
                return earlier[-1]  # "…starred in what for seven years?": asked in place
            if not _AUXILIARY.match(after):
                return later[0]
            participle = [t for t in later if re.search(r"(?:ed|en|wn|rn|lt|ld|ght)$", t)]
            return participle[0] if participle else later[-1]
        start = folded.find(clause, start) + len(clause)
    return ""


def _asking(folded: str, relation: tuple[str, ...], head: str, kind: str) -> str:
    """The relation term a question asks with (`_asked_term`; a noun phrase's last thing)."""
    asked = _asked_term(folded, tuple(t for t in relation if not head or head not in t))
    return asked or (_named_last(folded, relation) if kind == "thing" else "")


_HOLDER = re.compile(r"(?:冠军|亚军|季军|得主|金牌|银牌|铜牌|主演|导演|编剧|主教练|主持人)$")
"""A title or role a Chinese noun phrase can ask the holder of ("…男单冠军", "…的主演")."""


def _named_last(folded: str, relation: tuple[str, ...]) -> str:
    """The title a Chinese noun phrase asks the holder of, when it names one last.

    "2023春节档电影票房冠军" asks for the champion, not the box office: a sentence without
    冠军 ("票房已经累计达到45.63亿元") does not answer it. Other nouns (路线, 原因, 国家) are
    said in other words by the sentence that answers ("执飞上海至北京的航线"): none then.
    """
    from treerag.reasoning.questions import _SLOTS, _THING

    words = [t for t in relation if not t.isdigit()]
    if not HAN_CHAR.search(folded) or not words:
        return ""
    if any(p.search(folded) for p in (_THING, *(p for _, p in _SLOTS))):
        return ""
    last = max(words, key=folded.rfind)
    return last if _HOLDER.search(last) else ""


def _head_modifier(cased: str) -> str:
    """The word that qualifies an English question's noun, lower-cased.

    "what Australian city", "which Canadian actress": "australian", "canadian". A noun that
    says a part or form of a kind takes it after "of": "which body of water" asks for a
    body of water ("water"), which a sentence naming the sea it empties into does not say.
    """
    found = re.search(r"\b(?i:which|what)\s+([A-Z][\w\-']*)\s+[a-z][a-z\-]+", cased)
    partitive = _PARTITIVE.search(cased)
    return found.group(1).lower() if found else partitive.group(1) if partitive else ""


_PARTITIVE = re.compile(
    r"\b(?i:which|what)\s+(?:body|bodies|piece|pieces|form|forms|branch|unit|style)\s+of\s+"
    r"([a-z][a-z\-]+)"
)
"""A kind said as a part or form of another ("body of water", "piece of music"); "of" and a
lower-case noun (not "which member of the Tern Quartet": a name there is the relation)."""


def _head(folded: str, cased: str) -> str:
    """The noun that says what kind of thing is asked for: "river" in "which river…".

    In Chinese, 河 in "哪条河…": the character after 哪 and its measure word, read without
    segmentation.
    """
    from treerag.reasoning.questions import PEOPLE_ASKED

    people = PEOPLE_ASKED.search(folded)
    if people:
        return people.group(1) or people.group(2)
    # "what Australian city": the first word in lower case (the noun, past its modifiers).
    latin = re.search(r"\b(?i:which|what)(\s+[A-Z][\w\-']*)?\s+([a-z][a-z\-]+)", cased)
    if latin and latin.group(2) not in EN_STOP:
        return latin.group(2)
    zh = re.search(f"哪(?:一)?([个条座家所位部支种国只本首项次]?)([{HAN}])", folded)
    if not zh or zh.group(2) in "里儿年天些":
        return ""
    if zh.group(1) == "位":
        return ""  # "哪一位乡绅": a person, whose name does not end in 乡 (鹿鸣乡 is no 乡绅)
    if not zh.group(1) and _verb_at(folded, zh.start(2)):
        return ""  # "在哪举办": where it is held, no kind of thing (举 is no noun)
    if folded.startswith(("大学", "中学", "小学"), zh.start(2)):
        return "学"  # "哪一所大学": a school, named …大学 (淡大 is a short name, no kind)
    if folded.startswith("车站", zh.start(2)):
        return "站"  # "哪一个车站": a station, named …站 (车 is no kind of it: 观光列车)
    return zh.group(2)


def _verb_at(folded: str, at: int) -> bool:
    """Whether the word jieba cuts at `at` of a folded (Simplified) question is a verb."""
    from treerag.segment import tokens, word_tag

    words = tokens(folded[at:])
    return bool(words) and word_tag(words[0][0]).startswith("v")
