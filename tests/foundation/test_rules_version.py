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
