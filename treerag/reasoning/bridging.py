"""The bridge a partial chunk names (offline).

Among a chunk's best sentences, the new proper name nearest the word that says what the
bridge is (`type_word`: "ship" of "the ship captained by…", the 老师 of "…求学时的老师").
The follow-up question asked about it is built in `treerag.reasoning.followup_question`;
what a question asks (its slot, its clauses) is read in `treerag.reasoning.questions`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from treerag.reasoning.chunk_reading import about_a_relative
from treerag.reasoning.name_kinds import FEATURE_KINDS, KIND_GROUPS, feature_of_kind
from treerag.reasoning.question_clauses import (
    DEMONSTRATIVE,
    StemSet,
    asked_relative,
    described_noun,
    roles_described_further,
    term_spans,
)
from treerag.reasoning.questions import _head, chinese, proper
from treerag.reasoning.reading import read_question
from treerag.reasoning.relation_held import agent_forms, agent_verb
from treerag.reasoning.text import content_terms, stem
from treerag.reasoning.typed_names import named_by_kind, pointed_or_counted
from treerag.text import (
    EN_STOP,
    HAN,
    HAN_CHAR,
    LATIN,
    READING,
    fold,
    proper_names,
)
from treerag.text.figures import NUMERAL


def type_word(question: str, covered: set[str], text: str = "") -> str:
    """The common noun that describes the bridge: the first covered lower-case question term.

    In "Which guild built the ship captained by Aldous Brennick?" a chunk about Brennick
    covers "ship", "aldous", "brennick"; "ship" is what the chunk must name. A Chinese
    question describes its bridge as "…的 N" (佩林·奥斯克求学时的老师, 周怀远出生的县):
    N is the type word, whether or not the chunk says it the same way (师从 for 老师); of
    several, the last the chunk says ("…的丈夫擔任廠長的那家釀酒廠" in her document, which
    names the brewery), else the first.
    """
    if HAN_CHAR.search(question):
        nouns: list[str] = []
        for match in re.finditer(r"[的之]", question):
            end = described_noun(question, match.start())
            if end > match.end():
                pointing = DEMONSTRATIVE.match(question, match.end())
                noun = question[pointing.end() if pointing else match.end() : end]
                # "那個村子": a noun with the suffix 子 names its kind by its first character
                # (石渠村 is a 村子, 柳湾镇 a 镇子).
                nouns.append(noun[0] if len(noun) == 2 and noun[1] == "子" else noun)
        nouns = [*_role_after_name(question), *nouns]
        # "鄔清弦的丈夫擔任廠長的那家釀酒廠": the last described noun the chunk says is the
        # bridge's kind (her chunk says the brewery); else the first ("陆听岚的老师…"). A
        # chunk says a noun as a word, in a name of its kind (石渠村 says 村) or, for an
        # agent noun, by its verb (创办 says 创办人).
        folded = fold(text)
        featured = _features_named(text)
        said = [
            n
            for n in nouns
            if _says(fold(n), covered)
            or (text and fold(n) in folded)
            # "…描繪的河流" over "描繪霧溪下游…": a river's name says 河流
            or any(feature_of_kind(name, fold(n)) for name in featured)
        ]
        if said or nouns:
            return (said[-1] if said else nouns[0]).lower()
    head = _head(question)
    if described := _RELATIVE_NOUN.search(question):
        # "the man who signed…": the noun the relative clause describes is the bridge's
        # type, though no document calls him "the man" ("signed" is what he did).
        if described.group(1).lower() != head:
            return described.group(1).lower()
    if asking := asked_relative(question):
        # "…hit a state named after which tribes?": the bridge is a state.
        noun = asking.group("described").split()[-1].lower()
        if noun != head and noun not in EN_STOP and noun.isalpha():
            return noun
    covered = StemSet(covered)
    # A word of a name the question gives is the entity the chunk is about, not the bridge's
    # type ("潮聲" of 潮聲樂團 in "潮聲樂團的首任指揮…": 首任 is).
    named = [n.lower() for n in proper_names(question, READING)]
    for term, start, end in term_spans(question):
        word = question[start:end]
        # "maker" is said by "made" (`_agent_forms`).
        says = term in covered or any(stem(f) in covered for f in agent_forms(word.lower()))
        if says and term != head and not any(term in n for n in named):
            if word.islower() or HAN_CHAR.match(word):
                return term
    return ""


def _says(noun: str, covered: set[str]) -> bool:
    verb = agent_verb(noun)
    return noun in covered or bool(verb and verb in covered)


def _role_after_name(question: str) -> list[str]:
    """An agent noun right after a name that a later description goes on from.

    創辦人 of "南灣週報創辦人出生的那個村子…"; a noun after 的 is read with the described nouns.
    """
    found = roles_described_further(question)
    return [question[a:b] for a, b, _, after_de in found if not after_de][:1]


_RELATIVE_NOUN = re.compile(
    r"\bthe\s+([a-z]+)\s+(?:who|whom|whose|which|that|where|when)\b(?!\s+(?:is|are|was|were)\b)"
)
"""English "the N who/that/where …": N is the noun a relative clause describes."""


_MEASURES = "名位个只家座条架艘部本首"
"""Measure words a count puts before a noun: 9名机组人员, 三位教授."""


def bridge(
    question: str, best: list[str], covered: set[str] | None = None, about: str = ""
) -> tuple[str, str]:
    """The entity the chunk adds, and the sentence naming it: a name the question lacks.

    Among the chunk's best sentences (in the order given) the first that says the bridge's
    type word (`type_word`) is used, else the first that says the word governing it
    (`_lead_word`: "hit" of "…hit a state named after…"), else the first with a new name (not
    a count: "9名机组人员"), one that also holds another name of the question's first; in
    it, the new name in the stretch of a list that holds that other name, if any, and of
    those the one nearest to that word (after it, for the governing word: its object), else
    to that name, else to any question term. `about` is the
    entity the chunk is about (its subject, or the question's name it holds): the other
    names of the question are what single the bridge out ("the man who signed the Accord
    on behalf of Varunhal": "Aldous Brennick for Varunhal" among three signatories). A
    parenthesised name right after a question's name is its other name ("Accord of
    Quillhaven (奎尔港盟约)"), no bridge. Compared in the canonical script, so a Traditional
    question finds its type word in a Simplified document. ("", "") when none.
    """
    asked = {fold(t) for t in content_terms(question)}
    # The verbs that describe the bridge: not the one the question asks with, which governs
    # the answer ("developed by what company": "developed by Bizarre Creations" is no bridge).
    answering = {stem(read_question(question).asked), *map(stem, _closing_verb(question))}
    describing = {t for t in asked if stem(t) not in answering}
    kind = fold(type_word(question, covered or set(), " ".join(best)))
    lead = _lead_word(question)
    question_names = proper_names(question, READING)
    others = _other_names(question_names, about)
    keys = {fold(n) for n in question_names}
    named = [_words(n) for n in question_names if not HAN_CHAR.search(n)]
    choice: tuple[bool, bool, bool, bool, int, bool, int, str, str] | None = None
    for position, sentence in enumerate(best):
        if about_a_relative(sentence, fold(question)):
            continue  # "她的哥哥祁砚川…生于雁川": her brother's, not a link of her chain
        glosses = _glosses(sentence, asked)
        # "following Ezer Weizman's resignation": the name, not its possessive.
        found = [_POSSESSIVE.sub("", n) for n in proper_names(sentence, READING)]
        fresh = [
            n
            for n in found
            if not {fold(t) for t in content_terms(n)} <= asked
            and fold(n) not in keys  # however jieba cuts it in the question (以青 / 蘆溪)
            and n not in glosses
            # jieba tags common words nouns (基本 / 持平): a bridge is a name (`proper`).
            and proper(n)
            and not _demonym(n, sentence)
            and not _fuller(n, named)
            # "這條鐵路舊稱…": jieba's nouns make 條鐵路舊稱, "this railway's former name"
            and not pointed_or_counted(sentence, sentence.find(n))
        ]
        fresh = [_unglued(n, sentence) for n in fresh]
        typed = named_by_kind(question, sentence, kind)
        # "就讀於滄瀾工學院": a name ending in the type word is read whole, where jieba's
        # tags cut it (滄瀾 / 工學院) or glue the verb to it.
        fresh = [
            *typed,
            *(n for n in fresh if not any(fold(n) in fold(t) or fold(t) in fold(n) for t in typed)),
        ]
        # "他出生于鹤汀渡西街…，母亲吴氏则出生于栖州": a name in a clause about a relative is
        # the relative's link, not the subject's.
        fresh = [n for n in fresh if not _in_a_relative_clause(n, sentence, question)]
        fresh = [n for n in fresh if not _of_another_kind(n, kind)]
        typed = tuple(n for n in typed if n in fresh)
        if not fresh:
            continue
        # "…描繪霧溪下游渡船景象的油畫" for "…油畫所描繪的河流": 霧溪 is a river by its name.
        typed = (*typed, *(n for n in fresh if n not in typed and feature_of_kind(n, kind)))
        low = fold(sentence)
        kind_at = _word_at(low, kind) if kind else -1
        if kind_at < 0 and len(typed) > 0 and FEATURE_KINDS.get(kind):
            kind_at = low.find(fold(typed[-1]))
        if kind_at < 0 and (verb := agent_verb(kind)):
            kind_at = low.find(verb)  # 创办 for 创办人: an agent by its verb
        if kind_at < 0 and HAN_CHAR.search(kind):
            # 师从 for 老师: the noun's last character (its head in Chinese) where it stands.
            kind_at = low.find(kind[-1])
            if kind_at >= 0 and len(kind) > 2 and not _says_any(low, _beside(asked, kind), about):
                # "日月潭水力發電工程" for "以濁水溪作為濁幹線水源的那項灌溉工程": a compound
                # kind's last character, in a sentence that says nothing else of the
                # question, is another thing of that head (a power project, no irrigation).
                continue
        if kind_at < 0 and HAN_CHAR.search(kind) and not _says_any(low, asked, about):
            # "…路线涵盖雾溪镇与白沙镇…" in 雾溪慈云宫's document, for "替雾溪慈云宫绘制门神
            # 彩绘的那位女画家": a sentence that says nothing of the question but the name
            # of what the chunk is about names no bridge.
            continue
        named_at = [(at, len(n)) for n in others if (at := _name_at(low, n)) >= 0]
        lead_at = _word_at(low, lead) if lead else -1
        anchors = (
            [(kind_at, len(kind))]
            if kind_at >= 0
            else [(lead_at, len(lead))]
            if lead_at >= 0
            else named_at
        )
        anchors = anchors or [(low.find(t), len(t)) for t in asked if t in low]
        # "Each isle sent one envoy: Mirren Hask sealed for Fenmoor, Tobiah Crane for Kestrel
        # Isle": where the question's other name stands in a stretch of a list, the bridge
        # is the name in that stretch, whichever is nearer the type word.
        stretches = {_stretch(low, at) for at, _ in named_at}
        listed = [n for n in fresh if _stretch(low, low.find(fold(n))) in stretches]
        if kind_at < 0 and lead_at < 0 and (topic := _topic(low, fresh, anchors)):
            listed = [topic]
        for name in listed or fresh:
            at = low.find(fold(name))
            if at > 0 and NUMERAL.match(low[at - 1]) and fold(name)[:1] in _MEASURES:
                continue  # "9名机组人员": a count of people, no name (之一陆远舟 is one)
            span = (at, at + len(name))
            distance = min((_apart(low, span, a) for a in anchors), default=len(sentence))
            if kind_at < 0 <= lead_at and span[1] <= lead_at:
                distance += len(sentence)  # the verb's object follows it: "hit South Dakota"
            # A name the type word gives ("由小提琴家林秋萍於1931年創辦" for 创办人) before one
            # that only stands near it (原名「澄州絃樂社」, after the verb).
            by_type = name in typed
            # "He was born at Harrowmere" for "…the town where he was born", "she kept
            # Greyholm Light" for "the lighthouse she kept": the name a verb of the question
            # governs, before any other ("Quenby, where he married…", "a lighthouse keeper
            # on the Wendle coast", which says the type word).
            governed = not HAN_CHAR.search(low) and _governed(low[:at], describing)
            key = (
                not governed,
                kind_at < 0,
                lead_at < 0,
                not named_at,
                position,
                not by_type,
                distance,
                name,
                sentence,
            )
            if choice is None or key < choice:
                choice = key
    if choice is None:
        return ("", "")
    given = _NAMED_AS.match(choice[8], choice[8].find(choice[7]) + len(choice[7]))
    # "一座古寺，名为栖云寺": the noun a sentence goes on to name is that name.
    return (given.group(1) if given else choice[7], choice[8])


def _of_another_kind(name: str, kind: str) -> bool:
    """Whether a Chinese name's ending says another kind than the bridge's (`KIND_GROUPS`).

    "文化志工隊" is a team, no "…的那座廟宇"; a name of no such ending, or a kind said by
    none of them (畫家, 城市), is not judged.
    """
    folded, noun = fold(name), fold(kind)
    if not folded or not HAN_CHAR.search(noun):
        return False
    own = next((g for g in KIND_GROUPS if folded[-1] in g), "")
    asked = [g for g in KIND_GROUPS if any(ch in g for ch in noun)]
    return bool(own and asked) and own not in asked


def _beside(asked: set[str], kind: str) -> set[str]:
    """The question's words that are not part of the bridge's kind word (灌溉 of 灌溉工程)."""
    return {t for t in asked if t not in kind and kind not in t}


def _says_any(low: str, asked: set[str], about: str) -> bool:
    """Whether a canonical sentence holds a word of the question besides the chunk's entity."""
    own = fold(about)
    return any(t in low for t in asked if t not in own)


_NAMED_AS = re.compile(
    rf"[，,]?\s*(?:名为|名為|名叫|叫做|叫作|称为|稱為)\s*([{HAN}]{{2,10}}?)(?=[，。；;,、]|$)"
)
"""A name given right after a noun: "古寺，名为栖云寺", "一条河叫做青溪"."""


_DEMONYM = re.compile(
    r"[A-Z][a-z]+(?:ian|ese|ish|ican|ean)|American|African|German|Korean|Soviet|French|Dutch"
    r"|Greek|Swiss|Thai|Welsh|Argentine|Filipino|Icelandic"
)
"""A word that says where someone or something is from: Canadian, Portuguese, English."""


def typed_first(question: str, sentences: list[str], covered: set[str]) -> list[str]:
    """Sentences naming the bridge by its type word first, then the others in their order.

    "師從化學家藺思衡" for "鍾遠鏞的老師…", wherever the chunk says it
    (`typed_names.named_by_kind`).
    """
    kind = fold(type_word(question, covered, " ".join(sentences)))
    typed = [s for s in sentences if named_by_kind(question, s, kind)]
    return [*typed, *(s for s in sentences if s not in typed)]


def _unglued(name: str, sentence: str) -> str:
    """A Chinese name without the last character of the noun before it.

    jieba's model for unknown words reads "山水画家葛秋原" as 山水画 / 家葛秋 / 原: where the
    character before a name and the name's first make a noun (画家), that character is the
    noun's, and the name is the rest (葛秋原), as long as a person's name is.
    """
    from treerag.segment import word_tag

    at = sentence.find(name)
    if at < 1 or not HAN_CHAR.match(name) or not 3 <= len(name) <= 4:
        return name
    return name[1:] if word_tag(fold(sentence[at - 1] + name[0])) == "n" else name


def _demonym(name: str, sentence: str) -> bool:
    """Whether a name is a demonym said before a noun: "Canadian actor", "American film".

    It says what kind of person or thing the noun is, and names no one a follow-up could
    ask about ("Canadian have a child with?").
    """
    said_before_noun = re.search(rf"\b{re.escape(name)}\s+[a-z]", sentence)
    return bool(_DEMONYM.fullmatch(name)) and said_before_noun is not None


_GOVERNING = re.compile(
    r"\b([a-z]+)\s+(?:(?:at|in|on|of|to|from|near|by|into|for|with|under)\s+)?(?:the\s+)?$"
)
"""A verb (and its preposition) right before a name: "born at ", "kept ", "worked for "."""


_INVERTED = re.compile(
    r"^\W*(?:where|when|(?:in\s+)?(?:what|which)\s+\w+|how\s+\w+)\s+"
    r"(?:was|were|did|does|do|is|are|has|had)\b",
    re.IGNORECASE,
)
"""An inverted question ("Where was … born?", "In which town was … born"): its closing
verb asks; the verbs before it describe."""


def _closing_verb(question: str) -> tuple[str, ...]:
    """The verb closing an inverted English question ("born" of "Where was … attended born?")."""
    if not _INVERTED.search(question):
        return ()
    last = re.search(r"\b([a-z]+)\W*$", question.lower())
    return (last.group(1),) if last else ()


def _governed(before: str, asked: set[str]) -> bool:
    """Whether the words right before a name are a verb of the question and its preposition.

    The question's verb is one of its words in a verb's inflected form ("born", "kept",
    "lived"): "network" of "is on a network" is a noun there, though a verb can be spelled
    so ("aired on Cartoon Network in the United States" is no United States it names).
    """
    found = _GOVERNING.search(before)
    if found is None or not _verb(found.group(1)):
        return False  # "the market town of Hadby": a noun, no verb
    word = stem(found.group(1))
    return any(stem(t) == word for t in asked if _inflected_verb(t))


@lru_cache(maxsize=4096)
def _verb(word: str) -> bool:
    """Whether an English word can be a verb's form (LemmInflect's lexicon): "born", "kept"."""
    from lemminflect import getAllLemmas

    return "VERB" in getAllLemmas(word)


@lru_cache(maxsize=4096)
def _inflected_verb(word: str) -> bool:
    """Whether an English word is a verb's inflected form: "born" (bear), "kept", "lived"."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word).get("VERB", ())
    return bool(lemmas) and word not in lemmas


def _words(name: str) -> tuple[str, ...]:
    """The words of a Latin name in order, its hyphenated words apart, lower-cased."""
    return tuple(w for w in re.split(r"[\s\-,.]+", fold(name)) if w.isalpha())


def _fuller(name: str, named: list[tuple[str, ...]]) -> bool:
    """Whether a name is another form of one the question gives, so no other one.

    "Kerry-Anne Saxby-Junna" and "Kerry Saxby AM" (her names at birth and with an honour)
    are "Kerry Saxby-Junna" of the question: her document opens with them, and a follow-up
    about her asks nothing new. Another form starts with the same first name and shares
    another word; a generation's mark makes another person ("Hank Williams, Jr.").
    """
    parts = set(_words(name))
    if parts & _GENERATION:
        return False
    return any(
        len(words) >= 2 and words[0] in parts and len(set(words) & parts) >= 2 for words in named
    )


_GENERATION = frozenset({"jr", "sr", "ii", "iii", "iv", "junior", "senior"})
"""The words that tell a son or father of the same name from him: "Hank Williams, Jr."."""


def _lead_word(question: str) -> str:
    """The word governing the noun a participle asks about ("hit" of "…hit a state named…").

    The chunk names the bridge where it says that word ("hit southeast South Dakota"), when
    it does not say the noun itself.
    """
    asking = asked_relative(question)
    if asking is None or chinese(question):
        return ""
    described = asking["described"]
    articles = list(re.finditer(r"\b(?:a|an|the)\s+", described, re.IGNORECASE))
    words = [t for t, _, _ in term_spans(described[: articles[-1].start()])] if articles else []
    return words[-1] if words else ""


def _word_at(low: str, kind: str) -> int:
    """Where a folded sentence says the type word, -1 when it does not.

    In English as a word ("state", not the "states" of "United States"), in Chinese anywhere
    (小镇 in 青石小镇).
    """
    if HAN_CHAR.search(kind):
        return low.find(kind)
    # "founded" says the founder: the stem with a verb's or an agent's ending; "made" says
    # the maker (an irregular verb's forms, `_agent_forms`).
    forms = "|".join(map(re.escape, (kind, *agent_forms(kind))))
    found = re.search(rf"\b(?:{forms}|{re.escape(stem(kind))}(?:ed|er|ing|d|r)?)\b", low)
    return found.start() if found else -1


_BOUNDARY = re.compile(r"[,;:，；：、]")


_POSSESSIVE = re.compile(r"['’]s$")


def _stretch(low: str, at: int) -> int:
    """Which stretch of a sentence, between commas and semicolons, offset `at` falls in."""
    return len(_BOUNDARY.findall(low[:at]))


def _apart(low: str, name: tuple[int, int], anchor: tuple[int, int]) -> int:
    """Characters between a name and an anchor (0 when they overlap)."""
    (a, b), (c, d) = name, (anchor[0], anchor[0] + anchor[1])
    return c - b if b <= c else a - d if d <= a else 0


def _topic(low: str, fresh: list[str], anchors: list[tuple[int, int]]) -> str:
    """The name a Chinese sentence is about, where the question's words go on from it.

    The clause that holds them has no subject of its own.
    "中下游的嘉南大圳則由…八田與一設計，以濁水溪作為濁幹線的水源，灌溉雲林一帶的農田" for
    "以濁水溪作為濁幹線水源的那項灌溉工程": the clauses after the first comma say what
    嘉南大圳 does (a topic chain), so the name nearest the question's words (雲林一帶) is
    not the one they describe. "" in English, or when the first clause names nothing new.
    """
    if not HAN_CHAR.search(low) or not anchors:
        return ""
    at = min(a for a, _ in anchors)
    clause = _stretch(low, at)
    if clause == 0 or at < 0:
        return ""
    opens = [m.end() for m in _BOUNDARY.finditer(low)][clause - 1]
    spots = sorted((low.find(fold(n)), n) for n in fresh if low.find(fold(n)) >= 0)
    if any(opens <= where < at for where, _ in spots):
        return ""  # the clause has a subject of its own
    first = [n for where, n in spots if _stretch(low, where) == 0]
    return first[0] if first else ""


def _in_a_relative_clause(name: str, sentence: str, question: str) -> bool:
    """Whether the first clause of a sentence naming `name` is about the subject's relative."""
    clauses = re.split(r"[，,；;]", sentence)
    clause = next((c for c in clauses if name in c), "")
    return len(clauses) > 1 and bool(clause) and about_a_relative(clause, fold(question))


def _features_named(text: str) -> tuple[str, ...]:
    """The names of natural features a Chinese text gives (those `FEATURE_KINDS` end in)."""
    if not text or not HAN_CHAR.search(text):
        return ()
    ends = "".join(FEATURE_KINDS.values())
    return tuple(n for n in proper_names(text, READING) if fold(n)[-1:] in ends)


def _name_at(low: str, name: str) -> int:
    """Where a folded sentence says one of the question's names, -1 where it does not.

    A Chinese name read off the question as a run of nouns may stand in the sentence with
    的 between its words: "浊干线水源" is said as "浊干线的水源".
    """
    at = low.find(name)
    if at >= 0 or not HAN_CHAR.search(name) or "的" not in low:
        return at
    kept = [i for i, c in enumerate(low) if c != "的"]
    at = "".join(low[i] for i in kept).find(name)
    return kept[at] if at >= 0 else -1


def _other_names(question_names: list[str], about: str) -> list[str]:
    """The question's proper names (folded) other than the one the chunk is about."""
    subject = fold(about)
    return [
        n
        for n in (fold(name) for name in question_names)
        if n
        and not (subject and (n in subject or subject in n))
        and not re.fullmatch(r"(?:which|what|who|where|when|how)\b.*", n)
    ]


_GLOSS = re.compile(r"[(（]([^()（）]{1,40})[)）]")


def _glosses(sentence: str, asked: set[str]) -> set[str]:
    """Names inside a parenthesis right after a question's word: that word's other name.

    "the Accord of Quillhaven (奎尔港盟约)": 奎尔 is the Accord's Chinese name, not a new
    entity.
    """
    out: set[str] = set()
    for match in _GLOSS.finditer(sentence):
        last = re.search(rf"([{LATIN}][\w'\-]*|[{HAN}]+)\s*$", sentence[: match.start()])
        if last and fold(last.group(1)) in asked:
            out.update(proper_names(match.group(1), READING))
    return out
