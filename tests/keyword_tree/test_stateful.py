"""The engine against a plain in-memory model, with undo, compaction, close and reopen."""

from __future__ import annotations

import copy
import shutil
import tempfile
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from tests.keyword_tree.conftest import dump_state
from treerag.keyword_tree import (
    ConflictError,
    CycleError,
    DuplicateError,
    InvalidInputError,
    KeywordTree,
    TreeConfig,
)
from treerag.text import canonical

NAMES = ["a", "A", "b", "机器", "機器", "c d", "C-D"]
CONFIG = TreeConfig(checkpoint_every=4)
RANK = {"PRIMARY": 2, "RELATED": 1}


class Model:
    """Plain dicts with the documented semantics, nothing shared with the engine."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.infos: dict[str, str] = {}
        self.links: dict[tuple[str, str], str] = {}
        self.seq = 0

    def children(self, parent: str | None) -> list[str]:
        kids = [i for i, n in self.nodes.items() if n["parent"] == parent]
        return sorted(kids, key=lambda i: self.nodes[i]["seq"])

    def subtree(self, node_id: str) -> list[str]:
        out = [node_id]
        for child in self.children(node_id):
            out += self.subtree(child)
        return out

    def twin(self, parent: str | None, name: str, exclude: str | None = None) -> str | None:
        key = canonical(name)
        return next(
            (
                c
                for c in self.children(parent)
                if c != exclude and canonical(self.nodes[c]["name"]) == key
            ),
            None,
        )

    def add(self, node_id: str, name: str, parent: str | None) -> None:
        self.seq += 1
        self.nodes[node_id] = {
            "name": name,
            "parent": parent,
            "aliases": [],
            "desc": "",
            "seq": self.seq,
        }

    def move_link(self, info: str, src: str, dst: str) -> None:
        rel = self.links.pop((info, src))
        existing = self.links.get((info, dst))
        if existing is None or RANK[rel] > RANK[existing]:
            self.links[(info, dst)] = rel

    def merge(self, src: str, dst: str) -> None:
        s, d = self.nodes[src], self.nodes[dst]
        seen = {canonical(d["name"])}
        aliases = []
        for alias in [*d["aliases"], s["name"], *s["aliases"]]:
            if canonical(alias) not in seen:
                seen.add(canonical(alias))
                aliases.append(alias)
        d["aliases"] = aliases
        if not d["desc"] and s["desc"]:
            d["desc"] = s["desc"]
        for info, kw in list(self.links):
            if kw == src:
                self.move_link(info, src, dst)
        orphans = self.children(src)
        del self.nodes[src]  # gone before its children move: it is no twin for them
        for child in orphans:
            twin = self.twin(dst, self.nodes[child]["name"], exclude=child)
            if twin is not None:
                self.merge(child, twin)
            else:
                self.nodes[child]["parent"] = dst

    def state(self) -> dict[str, Any]:
        return {
            "nodes": {
                i: (n["name"], tuple(n["aliases"]), n["parent"], n["desc"], "{}")
                for i, n in self.nodes.items()
            },
            "infos": {i: (c, "", "{}") for i, c in self.infos.items()},
            "links": dict(self.links),
            "children": {
                p or "": self.children(p) for p in {None, *self.nodes} if self.children(p)
            },
        }


class TreeMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="kt-state-")
        self.tree = KeywordTree(self.dir, config=CONFIG)
        self.model = Model()
        self.history: list[tuple[str, Model]] = []
        self.counter = 0

    @initialize()
    def seed_tree(self) -> None:
        """Start from a small tree so that moves, merges and deletes have material."""
        self.create("a", 0, True)  # k1
        self.create("b", 0, False)  # k2 under k1
        self.create("机器", 0, True)  # k3
        self.create("a", 2, False)  # k4 under k3 (sorted ids: k1, k2, k3)
        self.create("C-D", 1, False)  # k5 under k2
        self.create_info("x", [1, 3])  # links k2, k4
        self.create_info("机器 学习", [2])  # links k3
        self.history.clear()

    def teardown(self) -> None:
        self.tree.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _pick(self, pool: list[str], i: int) -> str:
        return sorted(pool)[i % len(pool)]

    def _did(self, result: Any, before: Model) -> None:
        if result.operation_id is not None:
            self.history.append((result.operation_id, before))

    @rule(name=st.sampled_from(NAMES), parent=st.integers(0, 50), root=st.booleans())
    def create(self, name: str, parent: int, root: bool) -> None:
        parent_id = (
            None if root or not self.model.nodes else self._pick(list(self.model.nodes), parent)
        )
        before = copy.deepcopy(self.model)
        self.counter += 1
        node_id = f"k{self.counter}"
        if self.model.twin(parent_id, name) is not None:
            try:
                self.tree.create_keyword(name, parent_id=parent_id, id=node_id)
            except DuplicateError:
                return
            raise AssertionError("duplicate accepted")
        self._did(self.tree.create_keyword(name, parent_id=parent_id, id=node_id), before)
        self.model.add(node_id, name, parent_id)

    @precondition(lambda self: self.model.nodes)
    @rule(
        i=st.integers(0, 50),
        desc=st.sampled_from(["", "x", "机器学习"]),
        alias=st.sampled_from(NAMES),
    )
    def update(self, i: int, desc: str, alias: str) -> None:
        node_id = self._pick(list(self.model.nodes), i)
        before = copy.deepcopy(self.model)
        node = self.model.nodes[node_id]
        keys = {canonical(node["name"]), *map(canonical, node["aliases"])}
        self._did(self.tree.update_keyword(node_id, {"description": desc}), before)
        node["desc"] = desc
        before = copy.deepcopy(self.model)
        self._did(self.tree.add_alias(node_id, alias), before)
        if canonical(alias) not in keys:
            node["aliases"].append(alias)

    @precondition(lambda self: self.model.nodes)
    @rule(i=st.integers(0, 50), j=st.integers(0, 50), to_root=st.booleans())
    def move(self, i: int, j: int, to_root: bool) -> None:
        node_id = self._pick(list(self.model.nodes), i)
        target = None if to_root else self._pick(list(self.model.nodes), j)
        before = copy.deepcopy(self.model)
        node = self.model.nodes[node_id]
        if target is not None and target in self.model.subtree(node_id):
            expected: type[Exception] | None = CycleError
        elif target != node["parent"] and self.model.twin(target, node["name"], exclude=node_id):
            expected = DuplicateError
        else:
            expected = None
        try:
            result = self.tree.move_keyword(node_id, target)
        except (CycleError, DuplicateError) as exc:
            assert type(exc) is expected
            return
        assert expected is None
        self._did(result, before)
        node["parent"] = target

    @precondition(lambda self: len(self.model.nodes) >= 2)
    @rule(i=st.integers(0, 50), j=st.integers(0, 50))
    def merge(self, i: int, j: int) -> None:
        src = self._pick(list(self.model.nodes), i)
        dst = self._pick(list(self.model.nodes), j)
        before = copy.deepcopy(self.model)
        if src == dst:
            expected: type[Exception] | None = InvalidInputError
        elif dst in self.model.subtree(src):
            expected = CycleError
        else:
            expected = None
        try:
            result = self.tree.merge_keywords(src, dst)
        except (InvalidInputError, CycleError) as exc:
            assert type(exc) is expected
            return
        assert expected is None
        event("merge")
        self._did(result, before)
        self.model.merge(src, dst)

    @precondition(lambda self: self.model.nodes)
    @rule(
        i=st.integers(0, 50),
        cascade=st.booleans() | st.just(True),
        policy=st.sampled_from(["forbid", "reattach", "unlink"]),
    )
    def delete(self, i: int, cascade: bool, policy: str) -> None:
        node_id = self._pick(list(self.model.nodes), i)
        m = self.model
        sub = m.subtree(node_id)
        linked = [(info, kw) for (info, kw) in m.links if kw in sub]
        parent = m.nodes[node_id]["parent"]
        refuse = (len(sub) > 1 and not cascade) or (linked and policy == "forbid")
        invalid = bool(linked) and policy == "reattach" and parent is None
        before = copy.deepcopy(m)
        try:
            result = self.tree.delete_keyword(node_id, cascade=cascade, info_policy=policy)  # type: ignore[arg-type]
        except ConflictError:
            assert refuse
            return
        except InvalidInputError:
            assert invalid and not refuse
            return
        assert not refuse and not invalid
        event(f"delete: {len(sub)} node(s), {len(linked)} link(s), {policy}")
        self._did(result, before)
        for info, kw in linked:
            if policy == "reattach":
                m.move_link(info, kw, parent)  # type: ignore[arg-type]
            else:
                del m.links[(info, kw)]
        for doomed in sub:
            del m.nodes[doomed]

    @rule(
        content=st.sampled_from(["x", "机器 学习", "a b"]),
        picks=st.lists(st.integers(0, 50), max_size=3),
    )
    def create_info(self, content: str, picks: list[int]) -> None:
        kws = (
            sorted({self._pick(list(self.model.nodes), p) for p in picks})
            if self.model.nodes
            else []
        )
        before = copy.deepcopy(self.model)
        self.counter += 1
        info_id = f"i{self.counter}"
        self._did(self.tree.create_info(content, keyword_ids=kws, id=info_id), before)
        self.model.infos[info_id] = content
        for kw in kws:
            self.model.links[(info_id, kw)] = "PRIMARY"

    @precondition(lambda self: self.model.infos and self.model.nodes)
    @rule(
        i=st.integers(0, 50),
        j=st.integers(0, 50),
        rel=st.sampled_from(["PRIMARY", "RELATED"]),
        unlink=st.booleans(),
    )
    def link(self, i: int, j: int, rel: str, unlink: bool) -> None:
        info = self._pick(list(self.model.infos), i)
        kw = self._pick(list(self.model.nodes), j)
        before = copy.deepcopy(self.model)
        if unlink and (info, kw) in self.model.links:
            self._did(self.tree.unlink_info(info, kw), before)
            del self.model.links[(info, kw)]
        else:
            self._did(self.tree.link_info(info, kw, rel), before)
            self.model.links[(info, kw)] = rel

    @precondition(lambda self: self.model.infos)
    @rule(i=st.integers(0, 50), delete=st.booleans())
    def change_info(self, i: int, delete: bool) -> None:
        info = self._pick(list(self.model.infos), i)
        before = copy.deepcopy(self.model)
        if delete:
            self._did(self.tree.delete_info(info), before)
            del self.model.infos[info]
            self.model.links = {k: v for k, v in self.model.links.items() if k[0] != info}
        else:
            self._did(self.tree.update_info(info, {"content": "edited"}), before)
            self.model.infos[info] = "edited"

    @precondition(lambda self: self.history)
    @rule()
    def undo_last(self) -> None:
        op_id, before = self.history.pop()
        self.tree.undo(op_id)
        self.model = before

    @rule()
    def reopen(self) -> None:
        self.tree.close()  # writes an index checkpoint when 4+ records changed
        self.tree = KeywordTree(self.dir, config=CONFIG)
        assert self.tree.issues == []

    @rule()
    def checkpoint(self) -> None:
        self.tree.write_checkpoint()  # later writes become the tail replayed on open

    @rule()
    def compact(self) -> None:
        self.tree.compact_storage()

    @invariant()
    def matches_model(self) -> None:
        assert dump_state(self.tree) == self.model.state()


TreeMachine.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_tree_machine = TreeMachine.TestCase
