"""The system's own words come in the question's language and script; quotes stay as written."""

import pytest

from treerag.reasoning.wording import (
    framed,
    in_script,
    label,
    not_found,
    quoted,
    script_of_text,
    strip_label,
)


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("Where was Marta Lind born?", "en"),
        ("林秋雁出生在哪里？", "zh-hans"),
        ("陳慕言出生在哪裡？", "zh-hant"),
        ("滬寧鐵路在哪一年的時候開始動工?", "zh-hant"),
        ("2021赛季中超冠军", "zh-hans"),
        ("What is 长城 called in English?", "en"),
        ("中山", "zh-hans"),  # only shared characters: read as Simplified
    ],
)
def test_the_script_of_a_text(text, script):
    assert script_of_text(text) == script


def test_labels_and_not_found_follow_the_question():
    assert label("Where?") == "[offline extractive answer]"
    assert label("他在哪里出生？") == "[离线摘录回答]"
    assert label("他在哪裡出生？") == "[離線摘錄回答]"
    assert not_found("陳慕言出生在哪裡？") == "在已匯入的文件中沒有找到這個問題的答案。"
    assert not_found("林秋雁出生在哪里？").startswith("在已导入的文档中")
    assert "could not find" in not_found("Where was she born?")
    for question in ("Where?", "哪里？", "哪裡？"):
        assert strip_label(f"{label(question)} x").strip() == "x"


def test_names_go_into_the_question_s_script_quotes_do_not():
    assert in_script("青岩镇", "zh-hant") == "青巖鎮"
    assert in_script("雲溪村", "zh-hans") == "云溪村"
    assert in_script("Brennholt", "zh-hant") == "Brennholt"
    said = framed("周怀远", "1940年，他在渡口县创办了怀远画社。", "誰創辦了懷遠畫社？")
    assert said == "周懷遠：「1940年，他在渡口县创办了怀远画社。」"
    assert quoted(said) == "1940年，他在渡口县创办了怀远画社。"
    assert quoted("She was born in 1902.") == "She was born in 1902."


def test_a_question_written_alike_in_both_scripts_is_answered_in_the_documents_script():
    question = "上海2021年的GDP是多少"  # every character is the same in both scripts
    traditional = "其中，上海和北京都是全年GDP首次超過4萬億大關。"
    assert label(question, traditional) == "[離線摘錄回答]"
    assert label(question, "其中，上海和北京都是全年GDP首次超过4万亿大关。") == "[离线摘录回答]"
    assert label(question) == "[离线摘录回答]"
    assert not_found(question, traditional).startswith("在已匯入的文件中")
    # A question that tells its script keeps it, whatever the documents are written in.
    assert label("上海2021年的GDP是多少？請回答", "全年GDP超过4万亿。") == "[離線摘錄回答]"
    # The name before a quote follows the quote's script when the question tells none.
    assert framed("周怀远", "1940年，他在渡口縣創辦了畫社。", "他在哪一年去了上海") == (
        "周懷遠：「1940年，他在渡口縣創辦了畫社。」"
    )
    assert framed("周懷遠", "1940年，他在渡口县创办了画社。", "他在哪一年去了上海") == (
        "周怀远：「1940年，他在渡口县创办了画社。」"
    )
