"""How the offline judge reads a chunk: what it is about, and which sentences state something.

**A sentence belongs to its document.** Once a chunk names an entity, a sentence that
refers to it by its last word ("the lighthouse", "Varga") is about it. A chunk's subject
is its document's title (without
a disambiguator such as "(film)") and, where the document opens with a title line, that
line ("Ilse Varga" above a file titled `ilse_varga`). When the question names the subject,
every sentence of the chunk is about the question's entity; a sentence that opens with a
pronoun ("She was born…", "他出生在…") has the subject for its subject, which can be
what the question asks for ("In 1931 he founded the Orsk Press" in Pavel Orsk's document
answers "Who founded the Orsk Press?").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from treerag.reasoning.name_kinds import KIND_ENDINGS
from treerag.reasoning.named import names_in, names_title, title_of
from treerag.reasoning.reading import read_question
from treerag.reasoning.relation_held import present, text_stems
from treerag.reasoning.text import blocks, sentences, stem, unfootnoted
from treerag.text import HAN_CHAR, canonical, fold, fold_cased, title_like, to_simplified

_PRONOUN_LEAD = re.compile(
    r"^\W*(?:(?:in|on|at|by|after|before|during|later|then)\b[^,]{0,30}?,?\s*)?"
    r"(?:he|she|it|they|his|her|its|their)\b|^[^。！？]{0,12}?[他她它](?!们)|^\W*其",
    re.IGNORECASE,
)
"""A sentence whose subject is a pronoun: "She was born…", "In 1931 he founded…", "他于…"."""


_DISAMBIGUATOR = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")


def title_line(text: str) -> str:
    """The document's opening title line ("Ilse Varga", "# 周怀远"), "" when it opens with prose."""
    first = next((b for b in blocks(text)), "")
    return first.lstrip("#").strip() if title_like(first) else ""


_IT = re.compile(r"\b(?:it|its)\b", re.IGNORECASE)
"""A thing's pronoun anywhere in a sentence ("The River Soale flows through it."): in a
document about a place or a thing, its subject."""


_THIS_KIND = re.compile(r"[该此]([^\W\d])")
"""A Chinese demonstrative and the character of a kind after it (该路, 此河, 该市)."""
_NOT_A_REFERENCE = frozenset({"此外", "此时", "此后", "此前", "此次", "此事", "此举", "该年"})
"""Demonstratives that point at a time or a deed, not at a thing ("此外", "此后")."""


def pronoun_subject(sentence: str, title: str, text: str) -> str:
    """The document's subject a pronoun-led sentence (or one saying "it") speaks of, else "".

    "She was born in Thrennick in 1838." in Mirabel Oakhurst's document, quoted alone, does
    not say who she is: the answer names her before the quote (`wording.framed`). So does
    Chinese "通车以后，该路…" in 宜兰线铁路's document: a demonstrative with a character of the
    subject's name (该路, 该线, 该市 of 新竹市) is Chinese's "it". A sentence that names the
    subject itself needs no frame.
    """
    subject = next(iter(subjects(title, text)), "")
    if not subject or not (
        pronoun_led(sentence) or _IT.search(sentence) or _points_at(sentence, subject)
    ):
        return ""
    return "" if names_title(sentence, subject) else subject


def _points_at(sentence: str, subject: str) -> bool:
    """Whether a Chinese sentence calls the subject by a demonstrative and its kind (该路)."""
    name = fold(subject)
    return any(
        m.group() not in _NOT_A_REFERENCE and m.group(1) in name
        for m in _THIS_KIND.finditer(fold(sentence))
    )


@lru_cache(maxsize=8192)
def subjects(title: str, text: str) -> tuple[str, ...]:
    """What a chunk is about: its document's title (bare) and its opening title line."""
    found = [_DISAMBIGUATOR.sub("", title).strip(), title_line(text)]
    return tuple(dict.fromkeys(s for s in found if s))


FIELD_LABEL = re.compile(r"^\s*([^\s:：,，。;；]{2,16})\s*[:：]\s*\S")
"""A list's field: a short label, a colon, its value ("年度体育人物：…", "Director: …")."""


def labelled(sentence: str, question: str) -> bool:
    """Whether a sentence is a list's field whose label is the relation the question asks.

    "年度体育人物：中国花样滑冰运动员…隋文静韩聪" for "中国新闻周刊2022年度体育人物是谁？": the
    page's list names the asked title once, as the label of its value. A year the question
    gives dates the list, not the label.
    """
    match = FIELD_LABEL.match(sentence)
    if not match:
        return False
    label = fold(match.group(1))
    asked = [t for t in read_question(question).relation if not t.isdigit()]
    return bool(asked) and all(present(t, label, text_stems(label)) for t in asked)


def statements(text: str) -> list[str]:
    """The sentences of a text that state something: no title line, heading or question.

    A question ("冬奥百问丨北京冬奥会口号是如何诞生的？", "Why does the river flood?") names
    what it asks about without saying it, so it is never quoted as an answer or a bridge
    (`asks`).
    The document's own footnote marks go ("…grinding.[2] The lens…" is two sentences):
    quoted, they would read as the answer's citations; so does a page's copyright line.
    """
    line = title_line(text)
    out = sentences(unfootnoted(text))
    if line and out and out[0].lstrip("#").strip() == line:
        out = out[1:]
    return [s for s in out if not asks(s) and not BOILERPLATE.search(s)]


BOILERPLATE = re.compile(
    r"©|\ball rights reserved\b|版权所有|版權所有|copyright\s+\d", re.IGNORECASE
)
"""A page's copyright line ("Copyright © 2006- 2023 All rights reserved.", 版权所有): it
states nothing about anything, and a link title before it on the line is no sentence."""


_QUESTION = re.compile(r"^[^,，;；:：]*[?？][\s\"'”’」』）)]*$")


def asks(sentence: str) -> bool:
    """Whether a sentence is a question: one clause, ending with a question mark.

    A question mark closes only the last clause: "iPhone SE3起售价3499元，凭这就能…吗？"
    states a price before it asks. A headline asks without one: its last clause asks why or
    how, and no full stop closes it ("只想当糕点师的他，为何向…扔出炸弹 ...").
    """
    if _QUESTION.search(sentence) is not None:
        return True
    said = _ELLIPSIS_END.sub("", sentence)  # an excerpt cut short ends with no stop of its own
    last = re.split(r"[,，;；:：]", said)[-1]
    stops = ("。",) if HAN_CHAR.search(last) else (".",)  # "…炸弹." in a list of links asks
    return _WHY_HOW.search(fold(last)) is not None and not said.endswith(stops)


_ELLIPSIS_END = re.compile(r"\s*(?:\.{3}|…+)?\s*$")
_WHY_HOW = re.compile(r"为何|为什么|为啥|怎么|如何|\bwhy\b|\bhow\b")
"""A clause that asks why or how (read in the canonical form)."""


_RELATIVE_LEAD = re.compile(
    r"^\W*(?:(?:in|on|at|by|after|before|during|later|then)\b[^,]{0,30}?,?\s*)?"
    r"(?:his|her|their)\s+(?:[a-z]+\s+)?(?P<en>sister|brother|father|mother|wife|husband|son"
    r"|daughter|cousin|uncle|aunt|nephew|niece|friend|partner|teacher|student|pupil|apprentice"
    r"|successor|predecessor|colleague|rival|assistant)s?\b"
    r"|^[^。！？]{0,12}?(?:[他她]的|其)(?P<zh>父亲|母亲|妻子|丈夫|哥哥|姐姐|弟弟|妹妹|儿子|女儿"
    r"|[表堂][兄弟姐妹]|老师|学生|徒弟|[父母妻夫兄弟姐妹子女])"
    r"|^\W*(?P<kin>父亲|母亲|妻子|丈夫|哥哥|姐姐|弟弟|妹妹|儿子|女儿)",
    re.IGNORECASE,
)
"""A sentence about a relative or an associate of its document's subject: "Her younger
sister, Ada, was born in Brackwater", "她的妹妹…则出生在汐港", "其弟…生于1835年", or a
clause opening with a relative after one about the subject ("…，母亲吴氏则出生于栖州")."""


def about_a_relative(sentence: str, folded_question: str) -> bool:
    """Whether a sentence is about the subject's relative, whom the question does not ask of.

    In Mira Quenby's document "Her younger sister, Ada, was born in Brackwater" does not say
    where Mira Quenby was born; for "Where was Mira Quenby's sister born?" it does.
    """
    found = _RELATIVE_LEAD.search(fold_cased(to_simplified(sentence)))
    if found is None:
        return False
    noun = (found.group("en") or found.group("zh") or found.group("kin")).lower()
    return noun not in to_simplified(folded_question)


def pronoun_led(sentence: str) -> bool:
    """Whether a sentence's subject is a pronoun ("She was born…", "In 1931 he founded…")."""
    return _PRONOUN_LEAD.search(fold_cased(sentence)) is not None


def described(sentence: str, head: str, subject: str = "") -> bool:
    """Whether a sentence refers to its document's subject by the asked-for noun.

    "The guild built the Saltwren." or "…launched by the guild is the Saltwren" in the Guild
    of Tidewrights' document, for "Which guild built…?" (the subject's name holds the noun,
    or the sentence opens with it); "该行会…" in Chinese.
    """
    if not head:
        return False
    folded = fold(sentence)
    if HAN_CHAR.search(head):
        return re.match(rf"^\W*[该此本]\S{{0,3}}{re.escape(head)}", folded) is not None
    if re.match(rf"^\W*the\s+{re.escape(head)}\b", folded):
        return True
    named = re.search(rf"\b{re.escape(stem(head))}", fold(subject)) is not None
    return named and re.search(rf"\bthe\s+{re.escape(head)}\b", folded) is not None


def names_entity(question: str, chunk: Mapping[str, Any]) -> bool:
    """Whether a chunk is about what the question names: its subject, or a name it gives."""
    title, text = title_of(chunk), chunk.get("text", "")
    if names_subject(question, title, text):
        return True
    body = canonical(f"{title} {text}")
    return any(names_in(e, body) for e in read_question(question).entities)


def names_subject(question: str, title: str, text: str) -> str:
    """The chunk's subject when the question names it (`named.names_title`), else ""."""
    return next((s for s in subjects(title, text) if names_title(question, s)), "")


def names_kind(name: str, head: str) -> bool:
    """Whether a name says it is a thing of the asked-for kind ("Salt River", 盐河).

    A Chinese name ends with its kind (盐河 is a river, 国家电影局 is no film): the head noun of
    a Chinese compound comes last; a school's name ends in the word its kind is
    (`KIND_ENDINGS`: 北岭工学院 for 哪所学校, whose head is 学).
    """
    if not name or not head:
        return False
    folded = fold(name)
    if HAN_CHAR.search(head):
        bare = _DISAMBIGUATOR.sub("", folded).rstrip("》」”\"'")
        return bare.endswith((head, *KIND_ENDINGS.get(head, ())))
    return re.search(rf"\b{re.escape(stem(head))}", folded) is not None
