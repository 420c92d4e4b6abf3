"""What a question asks for, and follow-up questions built from it (offline, both languages).

- slot: the kind of thing the question asks for, read from its question word: a person
  (who, 谁), a place (where, 哪里), a time (when, what year, 哪年, 何时), a number (how many,
  多少, 几), a yes/no answer (a question that opens with is/are/did ...), else a thing.
- names: name-like spans of a text, `treerag.text.proper_names` under its `READING` rule
  (single capitalised words count; Chinese noun runs and places after a preposition).
- follow-up: the open clause of the question (the one with most content terms the chunk
  lacks), with the stretch the chunk covers (first to last covered term) replaced by the bridge
  entity, or its reference word ("that guild", "他", "该行会") replaced; "" when no
  question can be built that way (the chunk then does not recurse).
- near-duplicate: two questions whose content-term sets overlap by Jaccard >= 0.6 (fitted on
  no data: it is the point where a question plus glued keywords stays a duplicate, "…based?
  Tidewrights 潮匠 行会 Kessavar" against its question is 0.67, while a real follow-up of a
  two-clause question shares at most half its terms).
"""

from __future__ import annotations

import re
from functools import lru_cache

from treerag.reasoning.text import content_terms, stem
from treerag.text import (
    EN_STOP,
    HAN,
    HAN_CHAR,
    READING,
    fold,
    fold_cased,
    is_zh_stop,
    proper_names,
    to_simplified,
    width_and_case,
)
from treerag.text.names import WORD as _WORD
from treerag.text.names import ZH_PLACE_SUFFIXES

NEAR_DUPLICATE_JACCARD = 0.6

_CLAUSE = re.compile(
    r",\s*(?:and|but|while)\s+|;\s*|\s+and\s+(?=(?:in\s+|from\s+|at\s+)?"
    r"(?:which|what|who|whom|whose|where|when|how)\b)|[，；]\s*|并且|而且|以及|同时",
    re.IGNORECASE,
)
_REFERENCE = re.compile(
    r"\b(?:that|this|the same|these|those)\s+[a-z]+\b|\b(?:it|they|he|she|him|her|them)\b"
    rf"|该[{HAN}]{{2}}|此[{HAN}]{{2}}|[他她它]们?",
    re.IGNORECASE,
)
_YES_NO = re.compile(
    r"^\s*(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I
)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b|\d{2,4}年|\d{1,2}月|\d{1,2}日")
_NUMBER = re.compile(r"\d|[一二三四五六七八九十百千万亿两]")
_MONTH = re.compile(
    r"\b(January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b"
)
_SLOTS = (
    (
        "time",
        re.compile(
            r"\bwhen\b|\bwhat (year|date|time|century|decade)\b|\bwhich year\b"
            r"|何时|什么时候|哪[一]?年|几月|几号|日期|时间|哪天|何年"
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow (many|much|long|old|far|tall|high|large|big)\b"
            r"|多少|几[个名人家位座次岁年]|人数|数量|多大|多高|多长|多久"
        ),
    ),
    ("person", re.compile(r"\bwho\b|\bwhom\b|\bwhose\b|谁|哪位|何人")),
    (
        "place",
        re.compile(
            r"\bwhere\b|\bwhat (city|town|country|state|place|county|region)\b"
            r"|\bwhich (city|town|country|state|place|county|region)\b"
            r"|哪里|哪儿|在哪(?!一?[年天月])|何地|何处|哪个(?:城市|国家|地方|省)|哪座城"
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


_ZH_QUANTITY = re.compile(
    rf"[{HAN}](?:率|量|额|总数|人数|票房|规模|营收|收入|总值|增速|增幅)[？?。\s]*$"
)
"""A Chinese question without a question word that names a quantity ("…交付量", "…人口出生率",
"…总票房"): it asks for the number, as "多少" would."""


_RELATIVE = re.compile(r"(?:who|whom|whose|which|where|when)\b")
_ASKING_BEFORE = frozenset(
    "in of at from to by for with on about into and but or is are was were be been".split()
)


def _relative(lowered: str, at: int) -> bool:
    """Whether the English wh-word at `at` opens a relative clause, not the question.

    "…a consultant who has worked with the mayor of what city?" asks for a city: the "who"
    right after a noun describes it. After a preposition, a conjunction or "is" ("of which",
    "and where", "…is whom?") the word asks. A question whose every wh-word is relative
    keeps its first (the ordering puts relatives last, it does not drop them).
    """
    if not _RELATIVE.match(lowered, at):
        return False
    before = re.search(r"([a-z][a-z'\-]*)\s+$", lowered[:at])
    return before is not None and before.group(1) not in _ASKING_BEFORE


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
        return int(bool(_YEAR.search(sentence) or _MONTH.search(sentence)))
    if kind == "number":
        return int(bool(_NUMBER.search(sentence)))
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

    Latin capitalised runs are. A Chinese one is when a word of it is rare or unknown to
    jieba's dictionary (潮声, 林秋雁, 伦尼), or jieba cut an unknown word into single
    characters (鹤/烟 of 鹤烟灯塔): "中国城镇", "小镇", "芯片首席设计师", all common words,
    are not, whatever part-of-speech jieba gives them.
    """
    if not HAN_CHAR.search(name):
        return True
    from treerag.segment import jieba

    freq = jieba().dt.FREQ
    words = [w for w in jieba().lcut(name) if HAN_CHAR.match(w)]
    if len(words) > 1 and _PLACE_SUFFIX.fullmatch(words[-1]):
        return True  # 青石 + 镇: a word and a place's suffix name one place
    singles = 0
    for word in words:
        singles = singles + 1 if len(word) == 1 else 0
        if singles >= 2 or (len(word) > 1 and freq.get(word, 0) < COMMON_WORD_FREQ):
            return True
    return False


def type_word(question: str, covered: set[str]) -> str:
    """The common noun that describes the bridge: the first covered lower-case question term.

    In "Which guild built the ship captained by Aldous Brennick?" a chunk about Brennick
    covers "ship", "aldous", "brennick"; "ship" is what the chunk must name. A Chinese
    question describes its bridge as "…的 N" (佩林·奥斯克求学时的老师, 周怀远出生的县):
    N is the type word, whether or not the chunk says it the same way (师从 for 老师).
    """
    if HAN_CHAR.search(question):
        for match in re.finditer(r"[的之]", question):
            end = _described_noun(question, match.start())
            if end > match.end():
                return question[match.end() : end].lower()
    head = _head(question)
    covered = _StemSet(covered)
    # A word of a name the question gives is the entity the chunk is about, not the bridge's
    # type ("潮聲" of 潮聲樂團 in "潮聲樂團的首任指揮…": 首任 is).
    named = [n.lower() for n in proper_names(question, READING)]
    for term, start, end in _term_spans(question):
        word = question[start:end]
        if term in covered and term != head and not any(term in n for n in named):
            if word.islower() or HAN_CHAR.match(word):
                return term
    return ""


def bridge(question: str, best: list[str], covered: set[str] | None = None) -> tuple[str, str]:
    """The entity the chunk adds, and the sentence naming it: a name the question lacks.

    Among the chunk's best sentences (in the order given) the first that says the bridge's
    type word (`type_word`) is used, else the first with a new name; in it, the new name
    nearest to that word (or to any question term). Compared in the canonical script, so a
    Traditional question finds its type word in a Simplified document. ("", "") when none.
    """
    asked = {fold(t) for t in content_terms(question)}
    kind = fold(type_word(question, covered or set()))
    choice: tuple[bool, int, int, str, str] | None = None
    for position, sentence in enumerate(best):
        found = proper_names(sentence, READING)
        fresh = [n for n in found if not {fold(t) for t in content_terms(n)} <= asked]
        if not fresh:
            continue
        low = fold(sentence)
        kind_at = low.find(stem(kind)) if kind else -1
        if kind_at < 0 and HAN_CHAR.search(kind):
            # 师从 for 老师: the noun's last character (its head in Chinese) where it stands.
            kind_at = low.find(kind[-1])
        anchors = [kind_at] if kind_at >= 0 else []
        anchors = anchors or [low.find(t) for t in asked if t in low]
        for name in fresh:
            at = low.find(fold(name))
            distance = min((abs(at - a) for a in anchors), default=len(sentence))
            key = (kind_at < 0, position, distance, name, sentence)
            if choice is None or key < choice:
                choice = key
    return (choice[3], choice[4]) if choice else ("", "")


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


def _term_spans(clause: str) -> list[tuple[str, int, int]]:
    """(lower-cased content term, start, end) of each content word of a clause."""
    from treerag.segment import jieba

    out: list[tuple[str, int, int]] = []
    for match in _WORD.finditer(clause):
        piece, base = match.group(), match.start()
        words = (
            [(w, base + s, base + e) for w, s, e in jieba().tokenize(piece)]
            if HAN_CHAR.match(piece)
            else [(piece, match.start(), match.end())]
        )
        for word, start, end in words:
            low = word.lower()
            if low in EN_STOP or is_zh_stop(low) or (len(low) < 2 and not low.isdigit()):
                continue
            out.append((low, start, end))
    return out


class _StemSet(set):
    """A set of canonical stems that answers `term in covered` by the term's canonical stem.

    The chunk's terms are read in the canonical script (`reading.fold`), so a Traditional
    question's term is folded to Simplified before it is looked up.
    """

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and set.__contains__(self, stem(to_simplified(term)))


def _wh_heads(clause: str) -> set[int]:
    """Start offsets of the nouns a question word governs ("which *guild*", "哪个*行会*")."""
    return {m.end() for m in re.finditer(r"\b(?:which|what)\s+|哪个|哪家|哪座|哪位", clause, re.I)}


_RELATIVE_HEAD = re.compile(
    r"\b(?:the|a|an)\s+(?:[a-z]+\s+){0,2}?[a-z]+\s+(?:where|who|whom|whose|which|that|when)\s+$",
    re.IGNORECASE,
)


def _covered_span(
    clause: str, spans: list[tuple[str, int, int]], covered: set[str]
) -> tuple[int, int] | None:
    heads = _wh_heads(clause)
    hits = [(s, e) for t, s, e in spans if t in covered and s not in heads]
    capital = [clause[s : s + 1].isupper() for s, _ in hits]
    if not hits or (len(hits) < 2 and not any(capital)):
        return None  # one covered common word does not describe the bridge
    if all(capital) and not HAN_CHAR.search(clause):
        return None  # only the question's own names: the chunk is about them, not a bridge
    start, end = hits[0][0], hits[-1][1]
    # "the city where Aldous Brennick was born": the described noun and its relative word
    # go with the span, so the entity takes the place of the whole description.
    relative = _RELATIVE_HEAD.search(clause[:start])
    article = re.search(r"(?:\bthe|\ba|\ban)\s+[\"'“‘(]?$", clause[:start], re.IGNORECASE)
    start = relative.start() if relative else article.start() if article else start
    while end < len(clause) and clause[end] in "\"'”’)》」":
        end += 1
    if HAN_CHAR.search(clause):
        # "与林秋雁合著《山花图谱》的画家": a name the span cuts into, the preposition before
        # and the noun after the description go with it, so the entity takes the place of
        # the whole description.
        for name in proper_names(clause, READING):
            at = clause.find(name)
            if at >= 0 and at < end and at + len(name) > start:
                start, end = min(start, at), max(end, at + len(name))
        if re.fullmatch(r"\s*[与和跟同在由]?\s*", clause[:start]):
            start = 0
        end = _described_noun(clause, end)
    return start, end


def _described_noun(clause: str, end: int) -> int:
    """The end of the noun a Chinese description describes ("…的县", "…的小镇"), else `end`.

    The nouns right after 的 / 之 (jieba's n* tags) are what the description names: the
    bridge entity takes their place with it.
    """
    from treerag.segment import posseg

    de = re.match(r"\s*[的之]", clause[end:])
    if de is None:
        return end
    at = end + de.end()
    offset = 0
    for pair in posseg().lcut(clause):  # the whole clause: jieba tags a word by its context
        offset += len(pair.word)
        if offset - len(pair.word) < at:
            continue
        if not pair.flag.startswith("n") or is_zh_stop(pair.word):
            break
        at = offset
    return at if at > end + de.end() else end


def _titled_span(clause: str, title: str) -> tuple[int, int] | None:
    """The description a Chinese clause builds on a name: "布伦尼克出生的城市" (name … 的 noun).

    The chunk names the entity; the noun the description ends in is the bridge it names, so
    the bridge entity takes the place of the whole description.
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
    end = _described_noun(clause, after + de.end())
    return (at, end) if end > after + de.end() else None


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
    covered = _StemSet(covered)
    clauses = [(c, _term_spans(c)) for c in _clauses(question)]
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
        span = _titled_span(clauses[0][0], title)
        if span is not None and span[0] == 0 and span[1] >= len(clauses[0][0]):
            text = entity + "，".join(c for c, _ in clauses[1:])
    if not text:
        open_counts = [sum(t not in covered for t, _, _ in spans) for _, spans in clauses]
        if max(open_counts) == 0:
            return ""
        clause, spans = clauses[open_counts.index(max(open_counts))]
        span = _covered_span(clause, spans, covered) or _titled_span(clause, title)
        if span is None:
            ref = _REFERENCE.search(clause)
            # "that guild" stands for a guild the chunk names; "that built" is a relative
            # clause, no reference to the bridge.
            noun = (
                re.sub(r"^(?:that|this|the same|these|those)\s+", "", ref.group(), flags=re.I)
                if ref
                else ""
            )
            if ref and (noun == ref.group() or noun.lower() in covered):
                span = (ref.start(), ref.end())
        if span is None:
            return ""
        outside = [t for t, s, e in spans if (e <= span[0] or s >= span[1]) and t not in covered]
        if not outside:
            return ""
        text = f"{clause[: span[0]]}{entity}{clause[span[1] :]}"
    text = " ".join(text.split()).strip(" ,，")
    text = re.sub(r"^(?:and|but|while|并且|而且|以及)\s*", "", text, flags=re.IGNORECASE)
    if not text:
        return ""
    mark = "？" if HAN_CHAR.search(question) and not re.search(r"[A-Za-z]{3}", question) else "?"
    return text[:1].upper() + text[1:] + mark


def _key_terms(question: str) -> set[str]:
    return set(content_terms(question))


def near_duplicate(a: str, b: str) -> bool:
    """Whether two questions ask the same: Jaccard of content terms >= NEAR_DUPLICATE_JACCARD."""
    ta, tb = _key_terms(a), _key_terms(b)
    if not ta or not tb:
        return " ".join(a.lower().split()) == " ".join(b.lower().split())
    return len(ta & tb) / len(ta | tb) >= NEAR_DUPLICATE_JACCARD


def is_new(question: str, asked: list[str]) -> bool:
    """Whether `question` asks something none of `asked` did (same words or near-duplicate)."""

    def key(q: str) -> str:
        return " ".join(width_and_case(q).split()).rstrip("?？")

    return all(key(question) != key(q) and not near_duplicate(question, q) for q in asked)


_CITED = re.compile(r"\[\d+\]")
_PRONOUN_EN = re.compile(r"\b(he|she|it|they|him|her|them|his|its|their|hers|theirs)\b", re.I)
_POSSESSIVE = frozenset({"his", "its", "their", "hers", "theirs"})
_PRONOUN_ZH = re.compile(f"[他她它]们?的?|该[{HAN}]?(?=[{HAN}])")


def top_entity(answer: str, question: str) -> str:
    """The entity a previous answer was about: its top-cited name the question did not name.

    Names are counted over the answer's cited sentences (all of it when none is cited), the
    first sentence counting twice (it states the asked-for thing); names the question already
    had rank after new ones, then by count, then by first appearance.
    """
    from treerag.reasoning.text import sentences

    # A sentence's [n] follows it: "… Dunsorrow. [1] Orla Venn … [2]".
    said = [m.group(1) for m in re.finditer(r"(.+?)\s*\[\d+\]", answer)] or sentences(answer)
    counts: dict[str, int] = {}
    for position, sent in enumerate(said):
        for name in proper_names(_CITED.sub(" ", sent), READING):
            counts[name] = counts.get(name, 0) + (2 if position == 0 else 1)
    if not counts:
        return ""
    asked = {t.lower() for t in content_terms(question)}
    order = list(counts)

    def rank(name: str) -> tuple[bool, int, int]:
        return (set(content_terms(name)) <= asked, -counts[name], order.index(name))

    return min(order, key=rank)


_PERSONAL = re.compile(r"\b(he|she|him|her|his|hers)\b|[他她]", re.I)
_PLACE = re.compile(r"\bthere\b|那里|那儿", re.I)


def referent(message: str, previous_question: str, previous_answer: str) -> str:
    """The entity a follow-up message's pronoun stands for.

    A pronoun takes the most salient earlier entity of a compatible kind: when its kind
    matches what the previous question asked for (he/she for a "who" question, there for a
    "where" one, it for a thing or place), it is the previous answer's entity (`top_entity`);
    otherwise it is what the previous question itself named ("Who led the fishers that
    founded Quillhaven?" → "When was it founded?" means Quillhaven, not the leader).
    """
    if _PERSONAL.search(message):
        kind = {"person"}
    elif _PLACE.search(message):
        kind = {"place"}
    else:
        kind = {"thing", "place", "number", "time", "yesno"}
    found = top_entity(previous_answer, previous_question)
    if slot(previous_question) in kind or not found:
        return found
    named = proper_names(previous_question, READING)
    return named[0] if named else found


def resolve_pronoun(message: str, entity: str) -> str:
    """Replace the message's first personal pronoun by the entity (possessives get 's / 的)."""
    if HAN_CHAR.search(message) and not re.search(r"[A-Za-z]{3}", message):
        match = _PRONOUN_ZH.search(message)
        if match is None:
            return message
        tail = "的" if match.group().endswith("的") else ""
        return f"{message[: match.start()]}{entity}{tail}{message[match.end() :]}"
    match = _PRONOUN_EN.search(message)
    if match is None:
        # "What glass is made there?" -> "... made in Dunsorrow?"
        there = re.search(r"\bthere(?=\s*[?.!]?\s*$)", message, re.I)
        if there is None:
            return message
        return f"{message[: there.start()]}in {entity}{message[there.end() :]}"
    word = match.group().lower()
    text = f"{entity}'s" if word in _POSSESSIVE else entity
    return f"{message[: match.start()]}{text}{message[match.end() :]}"
