"""The shared text rules (`treerag.text`): script classes, canonical forms, names, sources."""

from __future__ import annotations

import re
from pathlib import Path

import treerag
from treerag.text import (
    CJK_WIDE,
    HAN,
    HAN_KANA_HANGUL,
    LINKING,
    READING,
    canonical,
    fold,
    fold_cased,
    has_han,
    has_wide,
    proper_names,
    record_source,
    script_of_text,
    source_file,
    source_record,
    to_simplified,
    width_and_case,
)


def test_han_in_both_scripts_and_nothing_else():
    assert has_han("这是铁路") and has_han("這是鐵路")
    assert has_han("Port 㐀") and has_han("\uf900")  # Extension A, a compatibility ideograph
    assert not has_han("Quillhaven") and not has_han("かな 한국어 ，")
    assert not has_han("䷀")  # a Yijing hexagram is a symbol, not a word


def test_the_variants_grow_from_han():
    for variant in (HAN_KANA_HANGUL, CJK_WIDE):
        assert HAN in variant
    assert re.fullmatch(f"[{HAN_KANA_HANGUL}]+", "中かな한")
    assert not has_han("，") and has_wide("，") and has_wide("Ａ") and has_wide("か")


def test_script_of_text_tells_the_scripts_apart():
    assert script_of_text("這條鐵路於1902年通車") == "zh-hant"
    assert script_of_text("这条铁路于1902年通车") == "zh-hans"
    assert script_of_text("中山") == "zh-hans"  # shared characters only: the common case
    assert script_of_text("Where was 长城 built?") == "en"


def test_canonical_forms_fold_script_width_and_case():
    assert to_simplified("鐵路於臺灣") == "铁路于台湾"
    assert fold("鐵路 ＡＢＣ１２３") == fold("铁路 abc123") == "铁路 abc123"
    assert fold_cased("Ｐort 臺灣") == "Port 台湾"
    assert width_and_case("ＡＢＣ 鐵路") == "abc 鐵路"  # the script is kept
    assert canonical("「鐵路」，Ｃ++ & C#!") == "铁路 c++ c#"


def test_reading_names_single_words_and_chinese_noun_runs():
    found = proper_names(
        "The ship was captained by Brennick, who led the Guild of Tidewrights.", READING
    )
    assert found == ["Brennick", "Guild of Tidewrights"]
    # a single capitalised word that opens a sentence is not a name
    assert proper_names("Among the vessels was one.", READING) == []
    assert "渡口县" in proper_names("周怀远出生在渡口县。", READING)


def test_linking_names_need_two_words_or_a_proper_tag():
    text = "Aldous Brennick sailed to Port Veyra. Brennick was glad."
    assert proper_names(text, LINKING) == ["Aldous Brennick", "Port Veyra"]
    assert proper_names(text) == proper_names(text, LINKING)
    assert "北京" in proper_names("他在北京工作。", LINKING)


def test_source_split():
    assert source_file("docs/guilds.jsonl#g1") == "docs/guilds.jsonl"
    assert source_file("docs/readme.md") == "docs/readme.md"
    assert source_record("docs/guilds.jsonl#g#1") == "g#1"
    assert source_record("/da#ta/x.jsonl#c#1", "/da#ta/x.jsonl") == "c#1"
    assert source_record("plain.md") == "plain.md"
    assert record_source("docs/guilds.jsonl", "g1") == "docs/guilds.jsonl#g1"


PACKAGE = Path(treerag.__file__).parent
# A range that starts at the first ideograph of a Han block: written as an escape or as the
# character itself inside a class.
_RANGE_LITERAL = re.compile(r"\\u(?:4e00|3400)|[\[\"']\s*[一㐀]-", re.IGNORECASE)


def test_han_ranges_are_written_once():
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parent != PACKAGE / "text"
        and _RANGE_LITERAL.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "CJK ranges written outside treerag/text: use its classes"
    assert _RANGE_LITERAL.search((PACKAGE / "text" / "script.py").read_text(encoding="utf-8"))
