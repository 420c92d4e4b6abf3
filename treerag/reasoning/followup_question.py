"""The follow-up question a partial chunk asks about its bridge (offline).

The open clause of the question (the one with most content terms the chunk lacks), with the
stretch the chunk covers (first to last covered term) replaced by the bridge entity, or its
reference word ("that guild", "他", "该行会") replaced; "" when no question can be built that
way (the chunk then does not recurse). A Chinese description is a relative clause or a name
before 的 (not a date alone: "2022年的…"), and holds nothing of what the question asks
("…的营收为多少": `questions.asked_noun_span`); the question's own name, code or quoted title
is never replaced. A follow-up keeps the question word and closes every title it opens.
Chinese is cut into words as its Simplified form (`segment.tokens`). An English stretch
takes whole every name of the question it cuts into; inside a relative clause a role
("served as the first warden") is replaced with the clause and its noun ("the man who…"),
and an inverted question keeps its own last verb ("In what year was … born?"). A question
asking in a relative clause or a participle phrase of its last noun ("…hit a state named
after which tribes?") is asked of the bridge: "South Dakota is named after which tribes?".

The bridge itself is chosen in `treerag.reasoning.bridging`.
"""

from __future__ import annotations

import re

from treerag.reasoning.called import ATTRIBUTE, PAST
from treerag.reasoning.name_kinds import FEATURE_KINDS, NAMED_BY_KIND, feature_of_kind
from treerag.reasoning.question_clauses import (
    ASKING,
    DEMONSTRATIVE,
    LOCATIVE_ONLY,
    StemSet,
    asked_relative,
    described_noun,
    roles_described_further,
    term_spans,
)
from treerag.reasoning.questions import _clauses, asked_noun_span, chinese, slot
from treerag.reasoning.relation_held import agent_forms, agent_verb, verb_lemmas
from treerag.reasoning.text import content_terms, stem
from treerag.text import (
    HAN,
    HAN_CHAR,
    READING,
    fold,
    is_zh_stop,
    proper_names,
    to_simplified,
)

_REFERENCE = re.compile(
    r"\b(?:that|this|the same|these|those)\s+[a-z]+\b|\b(?:it|they|he|she|him|her|them)\b"
    rf"|该[{HAN}]{{2}}|此[{HAN}]{{2}}|[他她它]们?",
    re.IGNORECASE,
)


def _wh_heads(clause: str) -> set[int]:
    """Start offsets of the nouns a question word governs ("which *guild*", "哪个*行会*")."""
    return {m.end() for m in re.finditer(r"\b(?:which|what)\s+|哪个|哪家|哪座|哪位", clause, re.I)}


_RELATIVE_AFTER = re.compile(
    r"\s+(?:where|who|whom|whose|which|that)\b(?!\s+(?:is|are|was|were)\b)"
)


_CONTACT_VERB = re.compile(r"\s+([a-z]+)\b(?=\s+[a-z])")
"""A past verb after a description that ends in a name, another word after it: "the school
Edda Kettering attended born?" ("born" is the question's own verb)."""
_CONTACT_NAME = re.compile(r"\b(?:the|a|an)\s+[a-z]+\s+[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*)*$")
"""A noun, then a name, ending a description: "the school Edda Kettering"."""


_DATED_TAIL = re.compile(
    r"\s+(?:at|in|on|during|by|for|as of)\s+(?:the\s+)?(?:[a-z]+\s+)?\d{4}\b.*$"
)
"""A phrase with a year closing a question: "… at the 1911 census", "… in 1990"."""
_OF_THE_NOUN = ("place", "time")
"""Kinds a question asks of the noun it names, not the noun itself (where or when the
teacher…); a number asked is the noun's own value ("…的营收为多少")."""
_STRANDED = re.compile(r"\s+(at|in|on|for|with|under|from|to|by|of|into)\s*[?.!]?\s*$")
"""A preposition ending a question after a relative clause: "…father worked at"."""
_OBJECT_DESCRIBED = re.compile(
    r"\b[a-z]+ed\s+(?:to|in|at|by|from|for|with|on)\s+"
    r"(the\s+[a-z]+\s+where\b)"
)
"""A participle's object described by a relative clause of place: "granted to the town
where…" (a place the bridge is; "involved in the quarrel that…" describes no bridge a name
a chunk gives could take the place of)."""


_RELATIVE_HEAD = re.compile(
    r"\b(?:the|a|an)\s+(?:[a-z]+\s+){0,2}?[a-z]+\s+(?:where|who|whom|whose|which|that|when)\s+"
    r"(?:(?!(?:the|a|an|his|her|its|their|this|these|those)\s)[a-z]+\s+)?$",
    re.IGNORECASE,
)
"""The noun a relative clause describes, its relative word and at most one word of the
clause before the stretch the chunk covers: "the magazine that called [Qvwm …]" (a verb that
is no term, as "called" is not); not a determiner, which opens the clause's own subject ("the
single that the [reggae singer …] was known for": the singer is the bridge, not the single)."""


_INSIDE_RELATIVE = re.compile(
    r"\b(?:the|a|an)\s+(?:[a-z]+\s+){0,2}?[a-z]+\s+(?P<word>who|whom|whose|which|that)\s+"
    r"(?!(?:is|are|was|were)\b)[^,;]*$",
    re.IGNORECASE,
)
"""A relative clause the covered stretch starts inside: "the man that resigned as [the
president of Israel…]"."""


_RELATIVE_THAT = re.compile(
    r"\b(?:the|a|an)\s+(?:[a-z'-]+\s+){0,2}?[a-z'-]+\s+that\s+[a-z]+$", re.IGNORECASE
)
"""A "that" after a noun opens a relative clause ("the scandal that temporarily separated"),
no reference to the bridge as "that guild" is."""


_ROLE = re.compile(
    r"(?<!such )(?<!well )\bas\s+(?:the\s+|a\s+|an\s+)?(?:[a-z]+\s+){0,2}$", re.IGNORECASE
)
""""as" before a noun: a role ("served as the first president"), not "such as"."""


_INVERTED = re.compile(r"\b(?:was|is|were|are|did|does|do|has|have|had)\s+$", re.IGNORECASE)
"""The auxiliary of an inverted question before its subject: "In what year *was* … born?"."""

_DO_SUPPORT = re.compile(r"\b(?:did|does|do)\s", re.IGNORECASE)
"""A question asked with "did": its last word is its verb ("What position did … play?")."""
_LAST_VERB = re.compile(r"[A-Z0-9][\w'\-]*\s+([a-z]+)$")
"""A name, then the one lower-case word an inverted question ends in: "…Golden Shoe play"."""


_OPENING_MARKS = frozenset({"被", "由", "将", "將", "把"})
"""A Chinese clause's opening mark of a passive or a disposal, the description's own."""


def _covered_span(
    clause: str, spans: list[tuple[str, int, int]], covered: set[str]
) -> tuple[int, int] | None:
    heads = _wh_heads(clause)
    hits = [(s, e) for t, s, e in spans if _covers(covered, t, clause[s:e]) and s not in heads]
    last_de = max(clause.rfind("的"), clause.rfind("之"))
    while hits and last_de >= 0 and hits[-1][0] > last_de and _asked_attribute(clause, *hits[-1]):
        # "…出生的那座島古稱什麼" over a chunk that says its own former name (原名): the
        # attribute asked of the described noun is no part of the description.
        hits.pop()
    capital = [clause[s : s + 1].isupper() for s, _ in hits]
    if not hits or (len(hits) < 2 and not any(capital)):
        return None  # one covered common word does not describe the bridge
    if all(capital) and not HAN_CHAR.search(clause):
        return None  # only the question's own names: the chunk is about them, not a bridge
    start, end = hits[0][0], hits[-1][1]
    if HAN_CHAR.search(clause) and clause[:start].strip() in _OPENING_MARKS:
        start = 0  # "被視為全臺城隍之首的那座廟宇": the passive mark opens the description
    if not HAN_CHAR.search(clause):
        # "Toad Hall is a residential hall in a university": a stretch that cuts into one of
        # the question's names takes the whole name ("Toad UHall located in…" otherwise).
        start, end = _whole_names(clause, start, end)
        inner = _OBJECT_DESCRIBED.search(clause, start, end)
        if inner:
            # "…the market charter granted to [the town where Velmora Glassworks was
            # founded]": what the question says of the town is its own; the relative
            # clause after the preposition is the description.
            start = inner.start(1)
    # "the city where Aldous Brennick was born": the described noun and its relative word
    # go with the span, so the entity takes the place of the whole description.
    relative = _RELATIVE_HEAD.search(clause[:start])
    if not relative and _ROLE.search(clause[:start]) and not HAN_CHAR.search(clause):
        # "the man that served as the first president of Israel": a role is no entity, its
        # holder is the man the relative clause describes, and the bridge takes the place of
        # all of it ("…the man that resigned as Peres" asks nothing). An entity inside a
        # relative clause is replaced alone: "the footballer who plays for Lisbon".
        inside = _INSIDE_RELATIVE.search(clause[:start])
        if inside and not ASKING.search(clause, inside.end("word")):
            relative = inside
    article = _ARTICLE_BEFORE.search(clause[:start])
    start = relative.start() if relative else article.start() if article else start
    if not HAN_CHAR.search(clause) and not _NOUN_PHRASE_START.match(clause, start):
        # "Which band was [formed first The Exies] or Circus Diablo?", "[film directors]":
        # an English description of the bridge is a noun phrase, opened by its article, a
        # possessive or a name; a stretch opened by a verb or a bare common word is no
        # phrase, and the bridge put in its place asks nothing.
        return None
    if not HAN_CHAR.search(clause) and _opens_with_own_name(clause, start, end):
        # "How many times was [Deltha O'Neal selected for the all-star game of the NFL]?":
        # a stretch opened by the question's own name is what the question says of that
        # name, which the chunk is about; no bridge takes its place ("How many times was NFL?").
        return None
    after = _RELATIVE_AFTER.match(clause, end)
    if (
        not relative
        and not HAN_CHAR.search(clause)
        and after
        and not ASKING.search(clause, after.end())
    ):
        # "flows through the village where Ilse Varga was born": the last noun covered is
        # described by the relative clause after it, and that noun phrase is the description
        # ("The river Amsel flows through the village" names no village of hers). A relative
        # clause holding the question word is what is asked ("a series that originally
        # broadcast on what station"), no description.
        last = list(re.finditer(r"\b(?:the|a|an)\s+", clause[start:end], re.IGNORECASE))
        relative = last[-1] if last else None
        start += last[-1].start() if last else 0
    if relative and not HAN_CHAR.search(clause):
        # "the man who signed the Accord of Quillhaven on behalf of Varunhal": the relative
        # clause runs to the clause's end, and all of it describes the bridge; but in an
        # inverted question the last word is its own verb ("In what year was the man
        # that resigned … born?", "What position did the man who … play?").
        end = len(clause.rstrip(" ?？.!"))
        dated = _DATED_TAIL.search(clause, start, end)
        if dated and not any(y in covered for y in re.findall(r"\d{4}", dated.group())):
            # "…the town where he was born at the 1911 census": a year the chunk does not
            # say dates what is asked of the town, not the birth.
            end = dated.start()
        verb = re.search(r"\s+([a-z]+)$", clause[:end])
        if verb and _INVERTED.search(clause[:start]) and verb.group(1) not in covered:
            end = verb.start()
    elif not HAN_CHAR.search(clause) and (
        _INVERTED.search(clause[:start]) or _DO_SUPPORT.search(clause[:start])
    ):
        # "What position did the receiver of the 2007 Golden Shoe play?": a description
        # that ends in a name, and after it one lower-case word closing an inverted
        # question (its auxiliary just before the description, or a "did" anywhere before):
        # that word is the question's own verb, covered or not.
        verb = _LAST_VERB.search(clause[: len(clause.rstrip(" ?？.!"))])
        if verb and verb.start(1) < end:
            end = len(clause[: verb.start(1)].rstrip())
    contact = _CONTACT_VERB.match(clause, end)
    if (
        contact
        and not HAN_CHAR.search(clause)
        and (contact.group(1).endswith("ed") or verb_lemmas(contact.group(1)))
        and _CONTACT_NAME.search(clause[start:end])
    ):
        # "the school Edda Kettering attended": a noun, a name and its verb (a relative
        # clause without its "that") describe the bridge whole; the verb closing an
        # inverted question ("…attended born?") stays.
        end = contact.end(1)
    stranded = _STRANDED.match(clause, end)
    if stranded and not HAN_CHAR.search(clause):
        # "the mill Maud Fennick's father worked at": a relative clause's preposition,
        # stranded at the clause's end, goes with it ("Who set up Brackwater Mill?").
        end = stranded.end(1)
    while end < len(clause) and clause[end] in "\"'”’)》」":
        end += 1
    if start > 0 and clause[start - 1] in "“‘(《「":
        start -= 1  # the opening mark goes with the closing one: no stray "《" is left
    if re.fullmatch(r"《[^《》]+》", clause[start:end]):
        return None  # "《巴拿马诡计》是什么类型的电影": the question's own title, no bridge
    if HAN_CHAR.search(clause):
        # "与林秋雁合著《山花图谱》的画家": a name the span cuts into, the preposition before
        # and the noun after the description go with it, so the entity takes the place of
        # the whole description.
        start, end = _whole_names(clause, start, end)
        if _cut_off(clause, start):
            start -= 1  # the 李 jieba cut off 李明远: a name's first character goes with it
        if re.fullmatch(r"\s*[与和跟同在由]?\s*", clause[:start]):
            start = 0
        role = _role_described_further(clause, end, covered)
        end = end if role else described_noun(clause, end)
        if (
            not role
            and chinese(clause)
            and not re.search("[的之]|[那这這][个個座所家位条條]", clause[start:end])
        ):
            # A Chinese description of the bridge is a relative clause, built with 的
            # ("李明远出生的小镇"); a bare noun phrase ("MU5735航班") is the question's own
            # entity, which the chunk names: no bridge to replace it with. (An English
            # clause that holds a Chinese name, "…commanded by 奎尔", is read as English.)
            return None
        if not _modifies(clause[start:end]):
            return None
    return start, end


def _covers(covered: set[str], term: str, word: str) -> bool:
    """Whether a chunk covers a question term: itself, or an agent noun by its verb ("made")."""
    return term in covered or any(stem(v) in covered for v in agent_forms(word.lower()))


def _asked_attribute(clause: str, start: int, end: int) -> bool:
    return bool(ATTRIBUTE.fullmatch(to_simplified(clause[start:end])))


def _role_described_further(clause: str, end: int, covered: set[str]) -> bool:
    """Whether a Chinese span ends in a role that a further description goes on from.

    "南灣週報創辦人出生的那個村子…" over the paper's document, which names its founder and
    says nothing of his birth: the founder is this chunk's link, "南灣週報創辦人" what the
    bridge replaces ("鄭鶴年出生的那個村子…"), not the village described after it
    (`question_clauses.roles_described_further`).
    """
    return any(
        b == end and fold(verb) not in covered for _, b, verb, _ in roles_described_further(clause)
    )


_NOUN_PHRASE_START = re.compile(
    r"[\"'“‘(]?(?:[A-Z0-9]|(?:the|a|an|his|her|its|their|this|these|those)\b)"
)
"""How an English noun phrase opens: a name (capital or digit), an article, a possessive."""


_ARTICLE_BEFORE = re.compile(
    r"(?:\bthe|\ba|\ban)\s+[\"'“‘(]?"
    r"(?:(?!(?:of|in|on|at|to|by|for|with|from|and|or|that|which|who|where|was|is)\b)[a-z]+\s+)"
    r"{0,2}$",
    re.IGNORECASE,
)
"""The article of a description and the words that qualify its first covered noun: "the home
port of Lena Korr" is replaced whole (not "the home Halvey")."""


def _opens_with_own_name(clause: str, start: int, end: int) -> bool:
    """Whether a stretch opens with a name of the clause and goes on past it.

    A possessive is a description: "Maren Holt's apprentice" names the apprentice by her.
    """
    head = clause[start:].lstrip("\"'“‘(")
    return any(
        head.startswith(name)
        and start + len(name) < end
        and not re.search(r"['’]s?$", name)
        and not re.match(r"['’]s?\b", head[len(name) :])
        for name in proper_names(clause, READING)
    )


def _whole_names(clause: str, start: int, end: int) -> tuple[int, int]:
    """A stretch of a clause widened to every name of the clause it overlaps."""
    for name in proper_names(clause, READING):
        at = clause.find(name)
        if clause[end : end + 1] == "所" and at + len(name) > end:
            continue  # "工匠所處": jieba's nouns run on into 所 and the verb after it
        if at >= 0 and at < end and at + len(name) > start:
            start, end = min(start, at), max(end, at + len(name))
    return start, end


_NOT_DESCRIBING = ("m", "t", "q", "x", "u", "p", "c", "r")
"""jieba's tags of the words that say no relation: numbers, times, measure words, marks,
particles, prepositions, conjunctions, pronouns."""


def _modifies(description: str) -> bool:
    """Whether what a Chinese description puts before its last 的 says who or what it is.

    "李明远出生的小镇", "潮声乐团的首任指挥": a relative clause or a name, which the bridge
    entity is found by. "2022年上半年的营收", "2031年的“青州文化周”": a date only scopes the
    question's own thing (its revenue, its festival), and a chunk's name put in its place
    asks nothing ("基本持平收为多少？").
    """
    from treerag.segment import tag

    before = description.rsplit("的", 1)[0] if "的" in description else ""
    return not before or any(
        not flag.startswith(_NOT_DESCRIBING) and not is_zh_stop(word)
        for word, flag in tag(before)
        if word.strip()
    )


def _names_held(description: str, covered: set[str]) -> bool:
    """Whether the chunk holds every name an English description of the bridge gives.

    "the man who signed the Accord on behalf of Varunhal": a sentence on the treaty's
    signing that does not say Varunhal does not say which signatory is meant, and its name
    is no bridge. (A Chinese description's names are read by the 的 rule, and one the bridge
    replaces whole by `_description_held`.)
    """
    if chinese(description):
        return True
    return all(
        all(t in covered for t in content_terms(name))
        for name in proper_names(description, READING)
    )


def _names_itself(description: str, question: str) -> bool:
    """Whether a Chinese description is the question's own entity, not one it describes.

    "林秋雁出生的小镇" describes a town by 林秋雁 (a bridge takes its place); "坠毁的MU5735航班"
    is MU5735 itself, its name after the last 的, and a chunk that calls it "一起中国客机坠毁事故"
    names no other thing to ask about. Only a name that cannot be a misread common noun counts:
    one with Latin letters or digits (a code, "MU5735"); "新手机" of "发布会的新手机" is read
    as an entity too, and it is what the question asks for.
    """
    from treerag.reasoning.reading import read_question

    if "的" not in description:
        return False
    head = fold(description).rsplit("的", 1)[1]
    if re.fullmatch(r"\s*[“\"「《][^”\"」》]+[”\"」》]\s*", head):
        return True  # "…的“青州文化周”": a name in quotes is the question's own
    entities = [e for e in read_question(question).entities if re.search(r"[a-z0-9]", e)]
    return any(entity in head for entity in entities)


def _relative_question(question: str, covered: set[str], entity: str) -> str:
    """The relative clause that asks, said of the bridge: "Charmed originally broadcast on…".

    "Drew Fuller starred in a series that originally broadcast on what station?": all before
    the relative word describes the series, and the clause after it asks about it. When the
    chunk holds half the description's terms or more, the bridge it names is the series, and
    the follow-up is the asking clause with the bridge as its subject.
    """
    match = asked_relative(question)
    if match is None or chinese(question):
        return ""
    terms = [t for t, _, _ in term_spans(match.group("described"))]
    held = sum(t in covered for t in terms)
    if not terms or held * 2 < len(terms):
        return ""
    if participle := match.groupdict().get("participle"):
        # The participle says what the bridge is or was: "South Dakota is named after…",
        # "Oswin Marl was born in what year?".
        verb = "was" if participle.lower().startswith("born") else "is"
        return f"{entity} {verb} {participle}"
    if origin := match.groupdict().get("origin"):
        # "…a singer-songwriter from what state?" asks where the singer is from; a reader
        # asks it so ("Where is M. Ward from?"), and any place of origin answers it.
        return (
            f"Where is {entity} from"
            if origin.lower().startswith("from")
            else f"{entity} is {origin}"
        )
    return f"{entity} {match.group('asked')}"


_PAIRS = (("《", "》"), ("“", "”"), ("「", "」"), ("(", ")"), ("（", "）"))


def _balanced(text: str) -> bool:
    """Whether every opening title mark or bracket of a text is closed, and no other."""
    return all(text.count(a) == text.count(b) for a, b in _PAIRS)


def _cut_off(clause: str, start: int) -> bool:
    """Whether the character before `start` is a person's name's first, cut off by jieba.

    "李明远出生的小镇" reads as 李 (a surname, tagged nr) / 明远: the span of covered terms
    starts at 明远. A preposition before the span ("从", "向") is no surname.
    """
    from treerag.segment import tag

    if start < 1 or not HAN_CHAR.match(clause[start - 1]):
        return False
    first = next(iter(tag(clause[start - 1 : start + 6])), None)
    return first is not None and first[1].startswith("nr") and len(first[0]) == 1


def _titled_span(clause: str, title: str, covered: StemSet | None = None) -> tuple[int, int] | None:
    """The description a Chinese clause builds on a name: "布伦尼克出生的城市" (name … 的 noun).

    The chunk names the entity; the noun the description ends in is the bridge it names, so
    the bridge entity takes the place of the whole description. A description built on the
    noun described goes on to the next noun where the chunk says the words between
    (`covered`): "林秋月1929年入選臺展的那幅油畫所描繪的河流" over "以描繪霧溪…的油畫…入選".
    """
    if not title or not HAN_CHAR.search(title):
        return None
    at = to_simplified(clause).find(to_simplified(title))
    if at < 0:
        return None
    after = at + len(title)
    de = re.match(r"[^，,。？?！!的]{0,12}?(?=[的之])", clause[after:])
    if de is None:
        return None
    end = described_noun(clause, after + de.end())
    if end <= after + de.end():
        return None
    # "林秋月1929年入選臺展的那幅油畫所描繪的河流": a description built on the noun described
    # ends at the last noun described.
    while covered is not None and (
        further := re.match(r"[^，,。？?！!的]{1,12}?(?=[的之])", clause[end:])
    ):
        last = described_noun(clause, end + further.end())
        words = [t for t, _, _ in term_spans(further.group())]
        if last <= end + further.end() or not words or not all(t in covered for t in words):
            break
        end = last
    # "1931年替霧溪慈雲宮繪製…的那位女畫家": a date or a preposition before the name is of
    # the description too; so are verbs the chunk says ("負責勘測與設計霧溪線的那位臺籍技師"
    # over "…技師陳文瀾負責路線勘測與設計工作").
    lead = _LEAD_IN.fullmatch(clause[:at]) or _said_before(clause[:at], covered)
    return (0 if lead else at, end)


def _description_held(description: str, title: str, covered: StemSet) -> bool:
    """Whether the chunk holds the other names a Chinese description of the bridge gives.

    Half the words of each name at least (學生身分 by 第一屆學生).
    "以濁水溪作為濁幹線水源的那項灌溉工程" is built on 濁水溪 and names 濁幹線; a paragraph
    that says "以「濁水溪以南」作為南臺灣代稱" without it does not say which thing is meant
    (the English rule is `_names_held`). A name a demonstrative points at is the title's
    apposition, not another name ("柳灣線這條森林鐵道").
    """
    own = fold(title)
    for name in proper_names(description, READING):
        at = description.find(name)
        if fold(name) in own or own in fold(name) or _POINTED.search(description[:at]):
            continue
        terms = content_terms(name)
        if 2 * sum(t in covered for t in terms) < len(terms):
            return False  # "學生身分" is held by "第一屆學生"; 濁幹線水源 by neither word
    return True


_POINTED = re.compile(rf"{DEMONSTRATIVE.pattern}$")


def _said_before(lead: str, covered: StemSet | None) -> bool:
    """Whether every term of what stands before a description's name is the chunk's."""
    words = [t for t, _, _ in term_spans(lead)]
    return covered is not None and bool(words) and all(t in covered for t in words)


_LEAD_IN = re.compile(
    r"\s*(?:(?:\d{1,4}|[一二三四五六七八九十〇零]+)[年月日]){0,3}[替为為在于於与與和跟同向对對以]?"
)
"""What a Chinese description may open with before the name it is built on: a date, a
preposition ("1931年替霧溪慈雲宮…", "與林秋雁合著…", "以濁水溪作為…水源的")."""


def _of_the_kind(entity: str, description: str) -> bool:
    """Whether a Chinese bridge can be what a description ends in.

    A place's or a body's noun (岛, 镇, 学院) is the last character of a place's or a body's
    name (鹭屿 for 岛); a person's name ends in none. Any other noun says nothing of the kind.
    """
    described = description.rstrip()
    for kind in FEATURE_KINDS:
        if fold(described).endswith(kind):
            # A river (…的河流) is named by a river's ending (霧溪), not by any name.
            return feature_of_kind(entity, kind)
    last = described[-1:]
    return not (
        last in NAMED_BY_KIND and HAN_CHAR.match(entity) and entity[-1] not in NAMED_BY_KIND
    )


def _covered_prefix(spans: list[tuple[str, int, int]], covered: StemSet) -> int:
    """The end of the covered terms a clause opens with (0 when its first is not covered)."""
    stop = 0
    for term, _, end in spans:
        # An agent noun by its verb: the chunk's "…創辦" covers 创办人.
        agent = bool(verb := agent_verb(term)) and verb in covered
        if term not in covered and not agent:
            break
        stop = end
    return stop


def _opens_with_noun(clause: str) -> bool:
    """Whether a Chinese clause opens with a common noun (jieba's "n": 創辦人, 首任).

    Not a word of time ("古時候被稱為什麼": when it was called so, not the bridge's own).
    """
    from treerag.segment import tag

    words = tag(clause.strip())
    return bool(words) and words[0][1] == "n" and not PAST.fullmatch(fold(words[0][0]))


def followup(question: str, covered: set[str], entity: str, title: str = "") -> str:
    """A short question about `entity` for the part of `question` the chunk leaves open.

    Args:
        question: The question being answered.
        covered: Stems of the content terms the chunk holds (`text.stems`).
        entity: The bridge entity the chunk names.
        title: The entity the question names that the chunk is about or names (a Chinese
            description built on it is what the bridge entity replaces, `_titled_span`).
    """
    if not entity:
        return ""
    covered = StemSet(covered)
    clauses = [(c, term_spans(c)) for c in _clauses(question)]
    if not clauses:
        return ""
    text = ""
    # "…, and where is that guild based?": once the clauses before it are mostly covered,
    # the reference word of a later clause stands for the bridge entity.
    for i, (clause, _) in enumerate(clauses[1:], 1):
        before = [t for _, spans in clauses[:i] for t, _, _ in spans]
        ref = _REFERENCE.search(clause)
        if ref and before and sum(t in covered for t in before) * 2 >= len(before):
            # "that guild" / "该行会" stands for the entity only if the chunk names a guild.
            head = re.sub(
                r"^(?:that|this|the same|these|those)\s+|^[该此]", "", ref.group(), flags=re.I
            )
            if head != ref.group() and head.lower() not in covered:
                continue
            text = f"{clause[: ref.start()]}{entity}{clause[ref.end() :]}"
            break
    if not text and len(clauses) > 1:
        # "佩林·奥斯克求学时的老师，出生在哪里？": a first clause that is all description of the
        # bridge is the subject of the rest; the bridge entity takes its place.
        span = _titled_span(clauses[0][0], title, covered)
        if span is not None and not _description_held(clauses[0][0][: span[1]], title, covered):
            span = None
        rest = "，".join(c for c, _ in clauses[1:])
        if span is not None and not _of_the_kind(entity, clauses[0][0][: span[1]]):
            # "岚湾交响乐团首席指挥出生的那座岛上": the conductor the chunk names is no island;
            # the stretch it covers ("…首席指挥") is what the bridge replaces.
            stop = _covered_prefix(clauses[0][1], covered)
            span = None
            if stop:
                text = f"{entity}{clauses[0][0][stop:]}，{rest}"
        if span is not None and span[0] == 0 and span[1] >= len(clauses[0][0]):
            # "林晏書就讀的學院，創辦人是…": a noun after the description is the bridge's own
            # ("滄瀾工學院的創辦人是…"); a verb says what the bridge did ("…出生在哪里").
            # "…的那項灌溉工程，其設計者…": 其 (its) is the bridge's, said with 的.
            rest = re.sub(rf"^\s*其(?=[{HAN}])", "的", rest)
            text = entity + ("的" if _opens_with_noun(rest) else "") + rest
        elif (
            span is not None and span[0] == 0 and LOCATIVE_ONLY.fullmatch(clauses[0][0][span[1] :])
        ):
            # "陆听岚出生的那个镇上，石桥是哪年建的？": where, said of the bridge.
            text = f"{entity}{clauses[0][0][span[1] :].strip()}，{rest}"
    relative = ""
    if not text and len(clauses) == 1:
        # "…a series that originally broadcast on what station?" asks in its relative clause.
        text = relative = _relative_question(question, covered, entity)
    if not text:
        open_counts = [sum(t not in covered for t, _, _ in spans) for _, spans in clauses]
        # Every term covered: nothing is left to ask, unless a Chinese question word is
        # ("沈青禾的老师是哪里人" over "…他籍贯栖州，早年师从柳知远": where the teacher is from).
        zh_asks = bool(HAN_CHAR.search(question)) and bool(ASKING.search(question))
        if max(open_counts) == 0 and not zh_asks:
            return ""
        clause, spans = clauses[open_counts.index(max(open_counts))]
        span = _covered_span(clause, spans, covered) or _titled_span(clause, title, covered)
        if span is None:
            ref = _REFERENCE.search(clause)
            # "that guild" stands for a guild the chunk names; "that built" is a relative
            # clause, no reference to the bridge.
            noun = (
                re.sub(r"^(?:that|this|the same|these|those)\s+", "", ref.group(), flags=re.I)
                if ref
                else ""
            )
            if (
                ref
                and (noun == ref.group() or noun.lower() in covered)
                and not _RELATIVE_THAT.search(clause[: ref.start()] + ref.group())
            ):
                span = (ref.start(), ref.end())
        if span is None or not _names_held(clause[span[0] : span[1]], covered):
            return ""
        if _names_itself(clause[span[0] : span[1]], question):
            return ""
        if 0 <= asked_noun_span(clause)[0] < span[1] and slot(question) not in _OF_THE_NOUN:
            # The description holds what is asked: it is the answer, no bridge (not where
            # or when the noun is asked about: "沈青禾的老师是哪里人").
            return ""
        outside = [t for t, s, e in spans if (e <= span[0] or s >= span[1]) and t not in covered]
        # "沈青禾的老师是哪里人": a Chinese question word after the description ("哪里人") is
        # what the follow-up asks, though it holds no content term.
        asks_after = bool(HAN_CHAR.search(clause)) and bool(ASKING.search(clause, span[1]))
        if not outside and not asks_after:
            return ""
        text = f"{clause[: span[0]]}{entity}{clause[span[1] :]}"
        at = open_counts.index(max(open_counts))
        later = [c for c, _ in clauses[at + 1 :]]
        if HAN_CHAR.search(clause) and not ASKING.search(text) and ASKING.search("".join(later)):
            # "…的老師出生的那個鎮上曾有一家紡織廠，它的創辦人是誰": the clause the bridge
            # goes in describes; a later one asks, and goes with it.
            text = "，".join([text, *later])
    text = " ".join(text.split()).strip(" ,，")
    if text.startswith(entity) and not HAN_CHAR.search(text[len(entity) :]) and not relative:
        # "a university located in what city?" with the university in its place: the
        # participle that described it now says it ("Australian National University is
        # located in what city?").
        text = re.sub(rf"^({re.escape(entity)})\s+(?=[a-z]+(?:ed|en|wn|lt|ght)\b)", r"\1 is ", text)
    text = re.sub(r"^(?:and|but|while|并且|而且|以及)\s*", "", text, flags=re.IGNORECASE)
    if not text or not _balanced(text):
        return ""  # "与林秋雁合著《怀远画社出生在哪里": the description ended inside a title
    if ASKING.search(question) and not ASKING.search(text):
        return ""  # the question word went with the description: nothing is asked
    mark = "？" if HAN_CHAR.search(question) and not re.search(r"[A-Za-z]{3}", question) else "?"
    return text[:1].upper() + text[1:] + mark
