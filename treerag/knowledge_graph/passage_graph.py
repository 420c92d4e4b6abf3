"""The passage–entity graph: which passages name which entities, kept in one SQLite file.

Entities are what documents name (no model involved):
- the title of each passage (a JSON record's title, a markdown heading, the file's name);
- names shared across passages: runs of capitalised words in English ("Port Veyra",
  "Church of the Goddess"), jieba's person / place / organisation tags in Chinese, kept
  once two passages (and at most `MAX_SHARED` passages) name them.

A name given in both scripts, "佩林·奥斯克（Perrin Osk）" or "Quillhaven (奎尔港)", is one
entity: both names lead to the same node.

A passage mentions an entity when the entity's name occurs in its canonical text (the
keyword tree's normalisation: NFKC, lower case, Traditional to Simplified Chinese,
punctuation to spaces; a Latin name as a whole word), found with one Aho-Corasick pass.

The graph is kept incrementally: adding passages scans them for every known name and the
stored passages for the names they bring; removing passages drops their links and the
names nothing supports any more. Every change is one SQLite transaction, so a process
killed midway leaves the file as it was before the change.

Retrieval over it is personalized PageRank (PPR) on the bipartite passage–entity graph,
seeded by the entities a question names and by the passages a first retrieval found, as
HippoRAG 2 does (Gutiérrez et al., 2025, "From RAG to Memory"): passages one entity away
from the seeds (the second hop of a multi-hop question) rise.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ahocorasick
import numpy as np

from treerag.knowledge_graph.text import longest_matches
from treerag.text import HAN, LINKING, canonical, has_wide, proper_names

MAX_SHARED = 50
"""A shared name named by more passages than this says little about any one of them."""
MAX_DEGREE = 50
"""Entities linked to more passages than this are hubs: the walk does not pass through them."""
MIN_CJK_CHARS = 2
MIN_LATIN_CHARS = 4
QUESTION_STEP = "question"
"""The first step of a path that started at an entity the question names."""
BUSY_TIMEOUT_S = 60.0
"""How long a connection waits for another process's write to finish."""
DAMPING = 0.5
"""PageRank's probability of following an edge (HippoRAG 2's setting: half the mass restarts)."""
ITERATIONS = 30
FORMAT = 2
"""The file format: a file of another format is emptied when opened (`PassageGraph.reset`)."""
SCHEMA = """
create table if not exists passages (
  id text primary key, source text not null, title text not null, title_key text not null,
  text text not null);
create table if not exists names (
  key text primary key, label text not null, kind text not null, node text not null);
create table if not exists aliases (
  key text not null, passage text not null, primary key (key, passage));
create table if not exists candidates (
  key text not null, passage text not null, label text not null, primary key (key, passage));
create table if not exists mentions (
  key text not null, passage text not null, primary key (key, passage));
create index if not exists mentions_passage on mentions (passage);
create index if not exists candidates_passage on candidates (passage);
create index if not exists aliases_passage on aliases (passage);
create index if not exists passages_title on passages (title_key);
"""
TABLES = ("passages", "names", "aliases", "candidates", "mentions")


@dataclass(slots=True)
class Passage:
    """A chunk as the graph needs it."""

    id: str
    text: str
    title: str = ""
    source: str = ""


@dataclass(slots=True)
class Hit:
    """A passage the walk reached, with the entity path that links it to a seed."""

    id: str
    score: float
    path: list[str] = field(default_factory=list)


def name_key(name: str) -> str:
    """The key a name is matched under (the keyword tree's canonical form)."""
    return canonical(name)


def _usable(key: str) -> bool:
    if not key or key.isdigit():
        return False
    return len(key) >= (MIN_CJK_CHARS if has_wide(key) else MIN_LATIN_CHARS)


class NameMatcher:
    """An Aho-Corasick automaton over name keys: one pass over a text finds all of them.

    Each key stands for its entity node (a name's own key, or the node of the name it is an
    alias of); `find` returns nodes.
    """

    def __init__(self, nodes: dict[str, str]) -> None:
        self.automaton = ahocorasick.Automaton()
        for key, node in nodes.items():
            self.automaton.add_word(key, (key, node))
        if len(self.automaton):
            self.automaton.make_automaton()

    def find(self, text: str) -> list[str]:
        """The nodes named in canonical `text`, longest first where names overlap."""
        return list(dict.fromkeys(node for _, _, node in longest_matches(self.automaton, text)))


def shared_names(text: str) -> list[tuple[str, str]]:
    """Candidate names of a passage: capitalised multi-word runs, jieba person/place/org tags."""
    out: dict[str, str] = {}
    for label in proper_names(text, LINKING):
        key = name_key(label)
        if _usable(key):
            out.setdefault(key, label)
    return list(out.items())


_LATIN_NAME = r"[A-Z][\w'’\-]*(?:[ ]+(?:(?:of|the|de|van|von)[ ]+)?[A-Z][\w'’\-]*)*"
_CJK_RUN = rf"[{HAN}·]{{2,16}}"
_LATIN_THEN_CJK = re.compile(rf"({_LATIN_NAME})[ ]*[（(][ ]*({_CJK_RUN})[ ]*[)）,，;；]")
_CJK_THEN_LATIN = re.compile(rf"({_CJK_RUN})[ ]*[（(][ ]*({_LATIN_NAME})[ ]*[)）,，;；]")
_PROPER = ("nr", "ns", "nt", "nz")


def _cjk_name(run: str, known: set[str]) -> str:
    """The name a CJK run ends in: the longest known name it ends with, else jieba's.

    Without a known name: a '·'-joined run of proper nouns ("佩林·奥斯克"), else the last
    proper noun jieba tags ("…邓索罗").
    """
    for start in range(len(run) - 1):
        if name_key(run[start:]) in known:
            return run[start:]
    from treerag.segment import tag

    pairs = tag(run)  # read in Simplified, given back as written
    tail: list[str] = []
    for word, flag in reversed(pairs):
        if flag.startswith(_PROPER) or (word == "·" and tail):
            tail.insert(0, word)
        else:
            break
    if "·" in tail:
        name = "".join(tail).strip("·")
    else:
        name = tail[-1] if tail else ""
    return name if len(name) >= MIN_CJK_CHARS else ""


def alias_pairs(text: str, known: set[str]) -> list[tuple[str, str]]:
    """(Latin name, CJK name) pairs a text gives for one thing: "X (中文)" or "中文（X）"."""
    pairs = []
    for match in _LATIN_THEN_CJK.finditer(text):
        latin, cjk = match.group(1), match.group(2).strip("·")
        if len(cjk) <= 8:
            pairs.append((latin, cjk))
    for match in _CJK_THEN_LATIN.finditer(text):
        cjk = _cjk_name(match.group(1), known)
        if cjk:
            pairs.append((match.group(2), cjk))
    words = {"the", "a", "an"}
    out = []
    for latin, cjk in pairs:
        parts = latin.split()
        while parts and parts[0].lower() in words:
            parts = parts[1:]
        latin = " ".join(parts)
        if _usable(name_key(latin)) and _usable(name_key(cjk)):
            out.append((latin, cjk))
    return out


class PassageGraph:
    """The passage–entity graph of one data directory (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # Another process may be writing (an ingest beside a running page): wait for it.
        self._db = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
        )
        version = self._db.execute("pragma user_version").fetchone()[0]
        tables = self._db.execute("select name from sqlite_master where type = 'table'").fetchall()
        self.reset = bool(tables) and version != FORMAT
        """Whether the file held another format and was emptied: it needs a rebuild."""
        if self.reset:
            self._db.executescript("".join(f"drop table {name};" for (name,) in tables))
        if self.reset or not tables:
            # Only a new or emptied file is written on opening; a reader never takes a lock.
            self._db.executescript(
                f"pragma journal_mode=wal; pragma user_version={FORMAT};" + SCHEMA
            )
        self._lock = threading.RLock()
        self._cache: dict[str, Any] = {}

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    # -- writing ---------------------------------------------------------------------------

    def add(self, passages: Sequence[Passage]) -> int:
        """Add or replace passages; link them and the stored ones to the names they share.

        Returns the number of new entity names.
        """
        if not passages:
            return 0
        with self._lock, self._txn() as db:
            return self._add(db, passages)

    def rebuild(self, passages: Sequence[Passage]) -> int:
        """Replace everything the file holds by what `passages` give under today's rules.

        Names and links are computed when passages are added, so a release that reads names
        otherwise (`treerag.text.names`, jieba's dictionary) keeps the old ones until this is
        done. One transaction: a reader sees the old graph or the new one, never half of it.
        Returns the number of entity names.
        """
        with self._lock, self._txn() as db:
            for table in TABLES:
                db.execute(f"delete from {table}")
            return self._add(db, passages) if passages else 0

    def _add(self, db: sqlite3.Connection, passages: Sequence[Passage]) -> int:
        """`add` inside the caller's transaction."""
        ids = [p.id for p in passages]
        self._drop_links(db, ids)
        db.executemany(
            "insert or replace into passages values (?, ?, ?, ?, ?)",
            [
                (p.id, p.source, p.title, name_key(p.title), name_key(f"{p.title}\n{p.text}"))
                for p in passages
            ],
        )
        nodes = dict(db.execute("select key, node from names").fetchall())
        fresh: dict[str, tuple[str, str, str]] = {}  # key -> (label, kind, node)
        touched: set[str] = set()
        for p in passages:
            key = name_key(p.title)
            if _usable(key) and key not in nodes:
                fresh.setdefault(key, (p.title.strip(), "title", key))
            rows = [(k, p.id, label) for k, label in shared_names(p.text)]
            db.executemany("insert or ignore into candidates values (?, ?, ?)", rows)
            touched.update(k for k, _, _ in rows)
        touched -= set(nodes) | set(fresh)
        for key in touched:
            count, label = db.execute(
                "select count(*), min(label) from candidates where key = ?", (key,)
            ).fetchone()
            if 2 <= count <= MAX_SHARED:
                fresh[key] = (label, "name", key)
        self._add_aliases(db, passages, nodes, fresh)
        db.executemany(
            "insert or replace into names values (?, ?, ?, ?)",
            [(k, label, kind, node) for k, (label, kind, node) in fresh.items()],
        )
        everything = NameMatcher({**nodes, **{k: v[2] for k, v in fresh.items()}})
        links = [(n, p_id) for p_id, text in self._texts(db, ids) for n in everything.find(text)]
        if fresh:  # stored passages may name what the new ones brought
            newcomers = NameMatcher({k: v[2] for k, v in fresh.items()})
            links += [
                (n, p_id) for p_id, text in self._texts(db, None) for n in newcomers.find(text)
            ]
        db.executemany("insert or ignore into mentions values (?, ?)", links)
        self._cache.clear()
        return len(fresh)

    def _add_aliases(
        self,
        db: sqlite3.Connection,
        passages: Sequence[Passage],
        nodes: dict[str, str],
        fresh: dict[str, tuple[str, str, str]],
    ) -> None:
        """Names given in both scripts share one node (the node of whichever was known)."""
        known = set(nodes) | set(fresh)
        for p in passages:
            for latin, cjk in alias_pairs(p.text, known):
                keys = [name_key(latin), name_key(cjk)]
                db.executemany(
                    "insert or ignore into aliases values (?, ?)", [(k, p.id) for k in keys]
                )
                node = next(
                    (nodes.get(k) or fresh[k][2] for k in keys if k in nodes or k in fresh),
                    keys[0],
                )
                for key, label in zip(keys, (latin, cjk), strict=True):
                    if key not in nodes and key not in fresh:
                        fresh[key] = (label, "alias", node)
                    elif key in fresh and fresh[key][2] == key and key != node:
                        fresh[key] = (fresh[key][0], fresh[key][1], node)
                known.update(keys)

    def remove(self, ids: Iterable[str]) -> int:
        """Remove passages and their links; drop names no passage supports any more."""
        ids = list(ids)
        if not ids:
            return 0
        with self._lock, self._txn() as db:
            self._drop_links(db, ids)
            marks = ",".join("?" * len(ids))
            gone = db.execute(f"delete from passages where id in ({marks})", ids).rowcount
            db.execute(
                "delete from names where kind = 'title' and key not in "
                "(select title_key from passages)"
            )
            db.execute(
                "delete from names where kind = 'name' and "
                "(select count(*) from candidates c where c.key = names.key) < 2 "
                "and key not in (select title_key from passages)"
            )
            db.execute(
                "delete from names where kind = 'alias' and key not in (select key from aliases)"
            )
            db.execute("delete from mentions where key not in (select node from names)")
            self._cache.clear()
            return int(gone)

    def _drop_links(self, db: sqlite3.Connection, ids: list[str]) -> None:
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            db.execute(f"delete from mentions where passage in ({marks})", part)
            db.execute(f"delete from candidates where passage in ({marks})", part)
            db.execute(f"delete from aliases where passage in ({marks})", part)

    def _texts(self, db: sqlite3.Connection, ids: list[str] | None) -> Iterable[tuple[str, str]]:
        if ids is None:
            yield from db.execute("select id, text from passages")
            return
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            yield from db.execute(f"select id, text from passages where id in ({marks})", part)

    def _txn(self) -> Any:
        db = self._db

        class _Txn:
            def __enter__(self) -> sqlite3.Connection:
                db.execute("begin immediate")
                return db

            def __exit__(self, kind: Any, *_: Any) -> None:
                db.execute("rollback" if kind else "commit")

        return _Txn()

    # -- reading ---------------------------------------------------------------------------

    def passage_ids(self) -> set[str]:
        """Every passage the graph holds."""
        return {i for (i,) in self._db.execute("select id from passages")}

    def entities_of(self, passage_id: str) -> list[str]:
        """The labels of the entities a passage mentions."""
        rows = self._db.execute(
            "select n.label from mentions m join names n on n.node = m.key where m.passage = ?",
            (passage_id,),
        )
        return [label for (label,) in rows]

    def search(self, text: str, limit: int = 20) -> list[tuple[str, int]]:
        """Entity labels whose key contains `text`'s key, with how many passages name them."""
        key = name_key(text)
        rows = self._db.execute(
            "select n.label, count(m.passage) from names n left join mentions m on m.key = n.node "
            "where n.key like ? group by n.key order by count(m.passage) desc limit ?",
            (f"%{key}%", limit),
        )
        return [(label, int(n)) for label, n in rows]

    def named_in(self, question: str) -> list[str]:
        """The keys of the entities a question names, longest first where they overlap."""
        matcher = self._cached("matcher", lambda: NameMatcher(self._nodes()))
        return matcher.find(name_key(question))

    def label(self, key: str) -> str:
        """The display name of an entity key (or a passage id's title)."""
        row = self._db.execute("select label from names where key = ?", (key,)).fetchone()
        return row[0] if row else key

    def names_of(self, node: str) -> list[str]:
        """Every name of an entity node: its own and its aliases in the other script."""
        return [
            label
            for (label,) in self._db.execute("select label from names where node = ?", (node,))
        ]

    def about(self, names: Iterable[str]) -> list[str]:
        """Ids of the passages about an entity, those titled by one of its names first.

        Titled by one of `names` or by another name of its entity, then the rest of their
        documents. "Shen Yiwei" finds the passage titled 沈疑微 where a document gives both
        names, then that document's sections ("生平", "梅罗海图").
        """
        keys = {name_key(n) for n in names if n and _usable(name_key(n))}
        if not keys:
            return []
        with self._lock:
            marks = ",".join("?" * len(keys))
            nodes = [
                n
                for (n,) in self._db.execute(
                    f"select distinct node from names where key in ({marks})", list(keys)
                )
            ]
            if nodes:
                marks_n = ",".join("?" * len(nodes))
                keys |= {
                    k
                    for (k,) in self._db.execute(
                        f"select key from names where node in ({marks_n})", nodes
                    )
                }
            marks = ",".join("?" * len(keys))
            titled = self._db.execute(
                f"select id, source from passages where title_key in ({marks}) order by id",
                list(keys),
            ).fetchall()
            # The rest of the document: its sections carry their headings as titles.
            sources = list(dict.fromkeys(source for _, source in titled if source))
            marks = ",".join("?" * len(sources))
            rest = (
                self._db.execute(
                    f"select id from passages where source in ({marks}) order by id", sources
                ).fetchall()
                if sources
                else []
            )
        return list(dict.fromkeys([i for i, _ in titled] + [i for (i,) in rest]))

    def title_of(self, passage_id: str) -> str:
        """A passage's title (empty when it has none)."""
        row = self._db.execute("select title from passages where id = ?", (passage_id,)).fetchone()
        return row[0] if row else ""

    def _nodes(self) -> dict[str, str]:
        return dict(self._db.execute("select key, node from names").fetchall())

    def _cached(self, name: str, make: Any) -> Any:
        with self._lock:
            if name not in self._cache:
                self._cache[name] = make()
            return self._cache[name]

    # -- personalized PageRank -------------------------------------------------------------

    def neighbourhood(self, passages: Iterable[str], entities: Iterable[str]) -> dict[str, Any]:
        """Edges within two steps of the seeds (passage → entity → passage), hubs left out."""
        db = self._db
        by_passage: dict[str, set[str]] = defaultdict(set)
        by_entity: dict[str, set[str]] = defaultdict(set)
        frontier = set(entities)
        for p in passages:
            for (k,) in db.execute("select key from mentions where passage = ?", (p,)):
                frontier.add(k)
        for k in frontier:
            linked = [p for (p,) in db.execute("select passage from mentions where key = ?", (k,))]
            if len(linked) > MAX_DEGREE or self._generic(k):
                continue
            for p in linked:
                by_entity[k].add(p)
                by_passage[p].add(k)
        return {"passages": by_passage, "entities": by_entity}

    def _generic(self, key: str) -> bool:
        """A title several files give their sections ("History", "历史") names no one thing."""
        row = self._db.execute(
            "select count(distinct source) from passages where title_key = ?", (key,)
        ).fetchone()
        return bool(row and row[0] > 1)

    def rank(
        self,
        seed_passages: Sequence[str],
        seed_entities: Sequence[str],
        limit: int = 10,
        exclude: Iterable[str] = (),
    ) -> list[Hit]:
        """Passages by personalized PageRank from the seeds, best first, `exclude` left out.

        The restart vector gives the seed passages and named entities equal mass (a named
        entity is where the question points; a retrieved passage is where the first search
        landed). Each hit carries a path: the seed and the entity through which it was
        reached most strongly.
        """
        hood = self.neighbourhood(seed_passages, seed_entities)
        by_passage, by_entity = hood["passages"], hood["entities"]
        nodes = [("p", p) for p in by_passage] + [("e", k) for k in by_entity]
        if not nodes:
            return []
        index = {node: i for i, node in enumerate(nodes)}
        restart = np.zeros(len(nodes))
        for p in seed_passages:
            if ("p", p) in index:
                restart[index[("p", p)]] = 1.0
        for k in seed_entities:
            if ("e", k) in index:
                restart[index[("e", k)]] = 1.0
        if not restart.any():
            return []
        restart /= restart.sum()
        edges = [(index[("p", p)], index[("e", k)]) for k, ps in by_entity.items() for p in ps]
        src = np.array([a for a, b in edges] + [b for a, b in edges])
        dst = np.array([b for a, b in edges] + [a for a, b in edges])
        degree = np.bincount(src, minlength=len(nodes)).astype(float)
        weight = 1.0 / degree[src]
        score = restart.copy()
        for _ in range(ITERATIONS):
            spread = np.bincount(dst, weights=score[src] * weight, minlength=len(nodes))
            score = (1 - DAMPING) * restart + DAMPING * spread
        skip = set(exclude) | set(seed_passages)
        ranked = sorted(
            ((score[i], p) for (kind, p), i in index.items() if kind == "p" and p not in skip),
            reverse=True,
        )
        return [
            Hit(p, float(s), self._path(p, by_passage, seed_passages, seed_entities))
            for s, p in ranked[:limit]
            if s > 0
        ]

    def _path(
        self,
        passage: str,
        by_passage: dict[str, set[str]],
        seed_passages: Sequence[str],
        seed_entities: Sequence[str],
    ) -> list[str]:
        """Seed → shared entity → this passage, as display names."""
        mine = by_passage.get(passage, set())
        here = self.title_of(passage) or passage
        for k in seed_entities:
            if k in mine:
                return _steps(QUESTION_STEP, self.label(k), here)
        for seed in seed_passages:
            shared = sorted(mine & by_passage.get(seed, set()))
            if shared:
                return _steps(self.title_of(seed) or seed, self.label(shared[0]), here)
        return [here]


def _steps(*names: str) -> list[str]:
    """A path of names, a step that repeats the one before it left out."""
    out: list[str] = []
    for name in names:
        if not out or name_key(name) != name_key(out[-1]):
            out.append(name)
    return out
