"""The offline judge's name carries a hash of its rules' source (`judge_cache.rules_version`).

Verdicts are cached per judge name in the data folder: a release that changes a rule must
judge afresh, not read the verdicts the old rules gave.
"""

import importlib
import sys
from pathlib import Path

import pytest

from treerag.reasoning import judge_cache
from treerag.reasoning.judge_cache import rules_version


def test_the_version_changes_with_any_rule_and_only_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = tmp_path / "made_up_rules"
    (rules / "inner").mkdir(parents=True)
    (rules / "__init__.py").write_text("")
    (rules / "inner" / "reading.py").write_text("RELATION_SHARE = 0.75\n")
    (rules / "notes.txt").write_text("not a rule")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.setattr(judge_cache, "RULE_PACKAGES", ("made_up_rules",))
    rules_version.cache_clear()
    try:
        before = rules_version()
        (rules / "notes.txt").write_text("still not a rule")
        rules_version.cache_clear()
        assert rules_version() == before
        (rules / "inner" / "reading.py").write_text("RELATION_SHARE = 0.7\n")
        rules_version.cache_clear()
        assert rules_version() != before
    finally:
        sys.modules.pop("made_up_rules", None)
        rules_version.cache_clear()


def test_the_offline_judge_is_named_by_its_rules_and_its_embedder() -> None:
    from treerag.reasoning.offline import OfflineReasoner

    class Embedder:
        model_name = "made-up-embedder"

    name = OfflineReasoner(Embedder()).judge_name
    assert name == f"{OfflineReasoner.name}#{rules_version()}#made-up-embedder"
    assert len(rules_version()) == 12


def _damage(path: Path) -> None:
    """Overwrite every page of an SQLite file but its header (a disk fault, a copy cut short)."""
    import contextlib
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("pragma wal_checkpoint(truncate)")
    body = path.read_bytes()
    path.write_bytes(body[:4096] + b"\xff" * max(len(body) - 4096, 8192))


def test_a_damaged_cache_is_set_aside_and_started_over(tmp_path: Path) -> None:
    from treerag.reasoning.base import Judgement
    from treerag.reasoning.judge_cache import JudgeCache

    path = tmp_path / "judge_cache.sqlite"
    verdict = Judgement(score=2, reason="holds the year")
    cache = JudgeCache(path)
    for i in range(50):
        cache.put(f"k{i}", verdict)
    cache.close()
    _damage(path)

    reopened = JudgeCache(path)  # opens: the damage shows only when a page is read
    assert reopened.get("k1") is None  # a miss, not an error
    reopened.put("k1", verdict)
    assert reopened.get("k1") is not None and reopened.get("k1").score == 2
    assert [p.name for p in tmp_path.glob("judge_cache.sqlite.damaged-*")]  # kept aside
    reopened.close()

    path.write_bytes(b"not a database at all" * 300)
    fresh = JudgeCache(path)  # refused at once: started over as it opens
    assert fresh.get("k1") is None and len(fresh) == 0
    assert len(list(tmp_path.glob("judge_cache.sqlite.damaged-*[0-9]"))) == 2  # both kept


def test_the_rules_hash_covers_the_segmenter_and_the_foreign_names() -> None:
    """The judge reads with jieba's tagging (`treerag.segment`) and joins foreign names
    (`treerag.transliteration`): a change to either must judge afresh."""
    from treerag.source_digest import source_files

    files = {name for module in judge_cache.RULE_PACKAGES for name, _ in source_files(module)}
    assert {"treerag.segment", "treerag.transliteration"} <= files
    assert any(name.startswith("treerag.reasoning/") for name in files)


def test_the_graph_is_built_again_when_the_way_names_are_read_changes() -> None:
    """The passage graph keeps the names `segment.tag` and `transliteration` read."""
    from treerag.documents.built_with import RULES

    modules, packages = RULES["knowledge_graph"]
    assert {"treerag.text", "treerag.segment", "treerag.transliteration"} <= set(modules)
    assert "jieba" in packages
