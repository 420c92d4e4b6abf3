"""The follow-up a partial chunk asks (offline): about the bridge entity it names.

`followup_of` builds it from what the judge measured of the chunk (`chunk_features.Features`):
the bridge (`bridging.bridge`), or the chunk's own subject when the sentence describes it
the way the question does; the question's clause still open, with the bridge in the
description's place (`followup_question.followup`), in the question's script. No follow-up
when the bridge is an answer of the asked kind, or when the question would only be asked
again of another name (`asked_of_another`). `holds_next_link` says whether the chunk goes on
to the chain's next link (`OfflineReasoner._asked` walks at most `WALK_IN_CHUNK` of them).
"""

from __future__ import annotations

import re

from treerag.reasoning.bridging import bridge, type_word
from treerag.reasoning.called import PROFESSION_END
from treerag.reasoning.chunk_features import Features
from treerag.reasoning.chunk_reading import described, names_kind
from treerag.reasoning.fillers import without_asides
from treerag.reasoning.followup_question import followup as build_followup
from treerag.reasoning.name_kinds import NAMED_BY_KIND, feature_of_kind
from treerag.reasoning.named import names_title
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import text_stems, with_equivalents
from treerag.reasoning.text import content_terms
from treerag.reasoning.typed_names import PERSON_KIND_END
from treerag.reasoning.wording import name_in_script, script_of_text
from treerag.text import HAN, HAN_CHAR


def followup_of(question: str, f: Features) -> tuple[str, str]:
    """The follow-up about the bridge entity of a chunk measured as `f`, and that entity.

    Built by `followup_question`; ("", …) when none can be.
    Written in the question's script: the bridge a Simplified document names goes into a
    Traditional question as Traditional, so the follow-up reads as one script.
    """
    entity, sentence = bridge(question, f.bridging, f.chunk_terms, f.named or f.subject)
    # "The guild glazed the windows…" in the Emberglass Guild's document: the question's
    # description ("the guild that glazed…") is the document's subject, the bridge.
    kind = type_word(question, f.chunk_terms, " ".join(f.bridging))
    referred = defined = False
    if sentence and f.subject and not names_title(question, f.subject):
        referred = _kind_referred(sentence, kind, f.subject)
        # A sentence defining the subject as the kind names whom; the chunk's other
        # sentences say what the question describes him by.
        defined = _defined_as(sentence, kind, f.subject)
        if referred or defined or described(sentence, kind, f.subject) or _here(sentence, kind):
            entity = f.subject
    reading = read_question(question)
    if not reading.several and names_kind(entity, reading.head):
        return "", entity  # "Guild of Tidewrights" for "Which guild…?": an answer, no bridge
    script = script_of_text(question)
    if script != "en":
        entity = name_in_script(entity, script)
    elif entity and re.search(rf"\bthe\s+{re.escape(entity)}\b(?!\s+[A-Z])", sentence):
        entity = f"the {entity}"  # "command of the Saltwren": "Which guild built the Saltwren?"
    # What the sentence naming the bridge says (with the chunk's subject, whom it is about)
    # is the part of the question the chunk answers, the rest is the follow-up's: "出生"
    # elsewhere in 林秋雁's document (her own birth) does not answer where the painter she
    # wrote with was born. When that sentence says too little to frame a question ("born in
    # Marrowgate" for "the town where the captain of the Saltwren was born"), the whole
    # chunk's terms do.
    said = ""
    if sentence and not defined:
        # Its words or their other words: "born in Duneport" covers "the birthplace of…".
        held = without_asides(sentence, entity.removeprefix("the "))
        covered = with_equivalents(text_stems(fold(f"{f.subject} {held}")))
        # A Chinese question's words the sentence holds, however jieba cuts it there
        # ("城隍之首"), and the kind it refers to its subject by (該廟 for 廟宇).
        covered |= _held_words(question, fold(held)) | ({fold(kind)} if referred else set())
        covered |= _profession_before(question, f.named)
        said = build_followup(question, covered, entity, f.named)
    if not said:
        covered = with_equivalents(f.chunk_terms) | _profession_before(question, f.named)
        said = build_followup(question, covered, entity, f.named)
    return ("" if asked_of_another(question, said, entity, f.named) else said), entity


def _held_words(question: str, folded: str) -> set[str]:
    """The Chinese content words of a question that a canonical sentence holds as written."""
    return {t for t in map(fold, content_terms(question)) if HAN_CHAR.search(t) and t in folded}


_PROFESSION_BEFORE = re.compile(rf"[{HAN}]{{0,3}}[{PROFESSION_END}]$")


def _profession_before(question: str, named: str) -> set[str]:
    """The profession a Chinese question says right before the name the chunk is about.

    "畫家林秋月以第一屆學生身分就讀的那所學校": 畫家 is said of 林秋月, part of the
    description the bridge takes the place of, though her paragraph never calls her so.
    """
    at = question.find(named) if named else -1
    found = _PROFESSION_BEFORE.search(question[:at]) if at > 0 else None
    return {fold(found.group())} if found else set()


_ASKED_END = re.compile(r"[\s?？。.!！]+$")


def asked_of_another(question: str, asked: str, entity: str, named: str) -> bool:
    """Whether a follow-up is the question itself, its named entity swapped for the bridge.

    "石流這條森林鐵道所沿著爬升的那條溪流…" for "鹿鳴線這條森林鐵道所沿著爬升的那條溪流…",
    "新竹科學園區在同一天升格為…" for "與新竹市在同一天升格為…": the chain starts at what
    the question names; the same question of another name is no hop of it (the bridge
    replaces a description, not the name). The same words after the two names, most of the
    question, say so; "Where was Y born?" for "Where was the wife of X born?" is a hop.
    """
    if not (asked and entity and named):
        return False
    mine, theirs = fold(question), fold(asked)
    at, to = mine.find(fold(named)), theirs.find(fold(entity))
    if at < 0 or to < 0:
        return False
    rest = _ASKED_END.sub("", mine[at + len(fold(named)) :])
    said = _ASKED_END.sub("", theirs[to + len(fold(entity)) :])
    return len(rest) * 2 >= len(mine) and rest == said


def _defined_as(sentence: str, kind: str, subject: str) -> bool:
    """Whether a sentence defines the document's subject as a person of the asked kind.

    "八田與一（…）是日本的土木工程師，出生於石川縣…" in his document, for "以「半水式填充工法」
    構築烏山頭水庫的那位技師": a person's role ends in the kind's last character (師), said of
    the subject the sentence opens with, so the subject is the bridge, not a place the
    sentence goes on to name.
    """
    if not kind or not HAN_CHAR.search(kind) or kind[-1] not in PERSON_KIND_END:
        return False
    folded, own = fold(sentence), fold(subject)
    if not own or not folded.startswith(own):
        return False
    said = re.search(rf"[是为為][^，,。；;]{{0,12}}?{re.escape(fold(kind)[-1])}", folded)
    return said is not None


_HERE = re.compile(r"这里|這裡|這裏|此地|此处|此處|在此|该地|該地")
"""A Chinese pronoun of place: in a document about a place or a body, its subject."""


def _here(sentence: str, kind: str) -> bool:
    """Whether a Chinese sentence says "here" of a place or body the question describes.

    "陳文瀾幼年即在這裡讀書" in 楓林文昌祠's document, for "陳文瀾小時候讀漢文的那座祠廟":
    the temple the question describes is the document's subject.
    """
    return bool(kind) and kind[-1] in NAMED_BY_KIND and _HERE.search(sentence) is not None


_REFERRING = re.compile(r"(?<![因如从從彼由])[该該本此]")


def _kind_referred(sentence: str, kind: str, subject: str) -> bool:
    """Whether a Chinese sentence refers to its document's subject as "this" of the kind.

    "…將該廟的城隍爺晉封為「都城隍」，…因此被視為全臺城隍之首" in 新竹都城隍廟's document,
    for "被視為全臺城隍之首的那座廟宇": 該廟 is the temple the document is about, named by a
    character of the question's kind (廟 of 廟宇, 校 of 學校) that ends the subject's name.
    """
    if not (kind and subject and HAN_CHAR.search(kind)):
        return False
    folded, own = fold(sentence), fold(subject)
    chars = [ch for ch in fold(kind) if own.endswith(ch)]
    starts = [m.end() for m in _REFERRING.finditer(folded)]
    return any(folded.find(ch, at, at + 2) >= 0 for at in starts for ch in chars)


def holds_next_link(question: str, f: Features) -> bool:
    """Whether a chunk says the next link of the chain from the entity it names.

    Its sentence naming the next bridge is about the chunk's subject when that is the entity
    ("He was born in Duneport" in Pavel Orsk's document), or says that entity and the
    noun the next link is described by. In 陆听岚's
    document, "后来她在鹭台美术馆举办过三次个展" is about her, not about her teacher 葛秋原,
    whom it names: no link from him.
    """
    entity, sentence = bridge(question, f.bridging, f.chunk_terms, f.named or f.subject)
    if not sentence:
        return True  # no bridge: `followup_of` finds none either
    walked, said = fold(f.named), fold(sentence)
    if walked == fold(f.subject):
        return True
    # From another entity the chunk names, the sentence must say the link's noun too:
    # "…1862年生於鶴汀鎮" names the town but none of its 煤礦; "北宋的平民工匠畢昇" names
    # a dynasty by its name (`FEATURE_KINDS`).
    kind = fold(type_word(question, f.chunk_terms, " ".join(f.bridging)))
    said_kind = kind in said or kind[-1:] in said or feature_of_kind(entity, kind)
    return walked in said and (not kind or said_kind)


WALK_IN_CHUNK = 2
"""Links of a chain beyond the first that one chunk may hold (a person, the town of their
birth, the river of that town: `OfflineReasoner._asked`)."""
