"""Which documents a question names, and which chunks link to them.

Both are reasoner-independent signals the tree reads beside the judge's verdict:

- A question names a chunk's document when it holds the document's title, compared in the
  keyword tree's canonical form (case, width and Traditional script folded; punctuation
  dropped), Latin titles as whole words. A title's trailing disambiguator, "Big Hero 6
  (film)" or "维拉港（城市）", need not be named: "Big Hero 6" names it.
- A chunk links to another when its text names the other's title, as a hyperlink would, or
  when the graph went from one to the other in one step, through a single entity that is
  the title of one of them (`found_by` path `[A, B]`). A chunk a document the question
  names links to is the first hop's likeliest bridge (HippoRAG 2's premise: the passages
  one entity away from the question's are where the second hop lies).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from treerag.knowledge_graph.passage_graph import MIN_CJK_CHARS, MIN_LATIN_CHARS, QUESTION_STEP
from treerag.text import HAN, canonical, has_han, own_title, query_key

MIN_NAME_CHARS = {"cjk": MIN_CJK_CHARS, "latin": MIN_LATIN_CHARS}
"""A title shorter than this (canonical characters) is not taken as named: "Io", "三"."""
PATHS_KIND = "paths"
"""`found_by.kind` of a chunk a knowledge-graph path led to (`retrievers.path_source`)."""
_DISAMBIGUATOR = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")
_KIND_FIRST = re.compile(r"^(?:River|Lake|Mount|Loch)\s+(?=[A-Z])")
"""A place's kind before its name, as English writes some: "River Teal", "Lake Orla"."""
_KIND_LAST = re.compile(rf"(?<=[{HAN}]{{3}})(?:铁路|公路|股份有限公司|有限公司|公司|集团)$")
"""A Chinese name's kind word after it, which a question may leave out: 宜兰线 names the
宜兰线铁路 (canonical form; at least three characters of name before it)."""
_ARTICLE = re.compile(r"^(?:The|A|An)\s+(?=[A-Z])")
"""An article a title opens with ("The Marrow Lark"), which a question may leave out."""


def names_in(name: str, text: str) -> bool:
    """Whether canonical `text` holds canonical `name`, a Latin name as whole words."""
    if len(name) < MIN_NAME_CHARS["cjk" if has_han(name) else "latin"]:
        return False
    if has_han(name):
        # A team is named without its 队 too: "阿根廷队" is "阿根廷" in a match report.
        return name in text or (name.endswith("队") and len(name) > 2 and name[:-1] in text)
    return _latin_name(name).search(text) is not None


@functools.lru_cache(maxsize=4096)
def _latin_name(name: str) -> re.Pattern[str]:
    """A canonical Latin name as whole words: no letter or digit glued on either side.

    In Chinese text the name's neighbours are Han characters ("东航mu5735航班"). A code may
    be written with or without a space where letters meet digits ("emnlp 2022", "kf21").
    """
    parts = re.split(r"(?<=[a-z])\s?(?=\d)|(?<=\d)\s?(?=[a-z])", name)
    body = r"\s?".join(re.escape(p) for p in parts)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


@functools.lru_cache(maxsize=4096)
def title_keys(title: str) -> tuple[str, ...]:
    """The canonical forms a title is named by: whole, and without its disambiguator.

    A place titled with its kind before its name ("River Teal", "Mount Keld") is also named
    by its name alone: "the Teal" is the River Teal; a title opening with an article ("The
    Marrow Lark") without it: "Marrow Lark"; a Chinese title ending with its kind
    (`_KIND_LAST`: 宜蘭線鐵路) by its name before the kind (宜兰线).
    """
    bare = _DISAMBIGUATOR.sub("", title)
    keys = [
        canonical(title),
        canonical(bare),
        canonical(_KIND_FIRST.sub("", bare)),
        canonical(_ARTICLE.sub("", bare)),
        _KIND_LAST.sub("", canonical(bare)),
    ]
    return tuple(k for k in dict.fromkeys(keys) if k)


@functools.lru_cache(maxsize=4096)
def _question_key(question: str) -> str:
    return query_key(question)


def names_title(question: str, title: str) -> bool:
    """Whether the question (or any text) names the document titled `title` (rules at the top).

    A Chinese school is also named by its abbreviation (`abbreviations`: 白中 for 白沙高級中學).
    """
    if not title:
        return False
    key = _question_key(question)
    return any(names_in(k, key) for k in title_keys(title)) or abbreviated(title, key)


def abbreviated(title: str, key: str) -> bool:
    """Whether canonical `key` names a school titled `title` by its abbreviation.

    Not where 学 follows: the characters are then another school's whole name (东北大学
    holds 北大).
    """
    return any(re.search(rf"{re.escape(short)}(?!学)", key) for short in abbreviations(title))


_SCHOOL_KINDS = (
    ("女子高级中学", "女中"),
    ("高级中学", "中"),
    ("中学", "中"),
    ("国民小学", "小"),
    ("小学", "小"),
    ("科技大学", "科大"),
    ("师范大学", "师大"),
    ("大学", "大"),
    ("工业专科学校", "工专"),
)
"""A Chinese school's kind (canonical form) and the characters its abbreviation keeps of it."""
_OWNER = re.compile(r"^(?:国立|私立|省立|市立|县立)")


@functools.lru_cache(maxsize=4096)
def abbreviations(title: str) -> tuple[str, ...]:
    """The abbreviations a Chinese school's title is written as, canonical form.

    Chinese shortens a school's name to the first character of its name and the first of its
    kind (白沙高級中學 → 白中, 臺灣大學 → 台大, 北一女 aside), or a two-character kind to its
    first characters after the whole name (東崁科技大學 → 东崁科大, 东科大). An owner prefix
    (國立, 私立) is left out. A question writes 白中 where the article says 白沙高級中學 in
    every paragraph but the one that defines it (簡稱「白中」). Read in a text by `abbreviated`.
    """
    bare = _OWNER.sub("", canonical(_DISAMBIGUATOR.sub("", title)))
    for kind, short in _SCHOOL_KINDS:
        name = bare.removesuffix(kind)
        if name != bare and len(name) >= 2 and re.fullmatch(rf"[{HAN}]+", name):
            found = [name[0] + short]
            if len(short) > 1:
                found += [name + short]
            return tuple(found)
    return ()


def linked_from(chunk: Mapping[str, Any]) -> str:
    """The title of the chunk the graph linked this one from in one step, "" when none.

    For a chunk a knowledge-graph path led to (`path_source`): the name of the entity
    the path started from, as the question names it.
    """
    found_by = chunk.get("found_by") or {}
    if found_by.get("kind") == PATHS_KIND:
        return str(found_by.get("from", ""))
    path = found_by.get("path") or []
    if found_by.get("kind") != "graph" or len(path) != 2 or path[0] == QUESTION_STEP:
        return ""
    return str(path[0])


def links(source: Mapping[str, Any], chunk: Mapping[str, Any]) -> bool:
    """Whether `source` links to `chunk`.

    It does when the passage graph went from one to the other in one step, or when
    `source`'s text names `chunk`'s document (a hyperlink, however the chunk was found). A
    knowledge-graph path's find does not: the path's relation need not be the one asked.
    """
    title = title_of(source)
    graph_step = (chunk.get("found_by") or {}).get("kind") == "graph"
    if title and graph_step and linked_from(chunk) == title:
        return True
    return chunk is not source and names_title(source.get("text", ""), title_of(chunk))


def anchored(question: str, chunks: Sequence[Mapping[str, Any]]) -> list[str]:
    """Chunk ids: those whose document the question names, each followed by its links.

    In the order of `chunks` (retrieval rank); a chunk a named one links to (`links`) comes
    right after it, as a sub-run's find comes right after the chunk whose follow-up found it.
    """
    out: list[str] = []
    for chunk in chunks:
        if names_title(question, title_of(chunk)):
            out += [chunk["chunk_id"], *(c["chunk_id"] for c in chunks if links(chunk, c))]
    return list(dict.fromkeys(out))


def title_of(chunk: Mapping[str, Any]) -> str:
    """The chunk's document title when it is the document's own (`text.own_title`), else ""."""
    return own_title(chunk.get("title", ""), chunk.get("source", ""))
