"""What a Chinese noun-phrase question asks: a name given, a placing, a title's holder.

Each rule is checked on a sentence it must refuse beside one it must take (the sentences are
written after the rgb_zh_300 news texts they stand for).
"""

from __future__ import annotations

import pytest

from treerag.reasoning.answering import answering
from treerag.reasoning.called import called
from treerag.reasoning.placing import asks_placing, placings
from treerag.reasoning.questions import proper
from treerag.reasoning.reading import fold, read_question
from treerag.text import READING, proper_names

MASCOT = "2022年世界盃吉祥物叫什麼"


def test_a_sentence_naming_no_mascot_does_not_say_what_it_is_called() -> None:
    # 卡塔爾 is a name of the sentence, not the mascot's.
    assert (
        answering(
            MASCOT, "", "從歷屆世界盃吉祥物來看，2022年卡塔爾世界盃創造了第一個沒有腳的吉祥物。"
        )
        is None
    )
    found = answering(
        MASCOT, "", "2022年4月1日，卡塔爾世界盃官方吉祥物揭曉，它的名字叫作拉伊卜（La'eeb）。"
    )
    assert found is not None and found.filler == "拉伊卜"


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("这个吉祥物的名字是“拉伊卜”,意为技艺高超的球员。", ["拉伊卜"]),
        ("官方吉祥物揭晓,它的名字叫作拉伊卜(la'eeb)。", ["拉伊卜"]),
        ("冬奥会吉祥物名为冰墩墩的熊猫形象。", ["冰墩墩"]),
        ("吉祥物是一只熊猫。", []),
    ],
)
def test_a_name_given_after_the_words_that_give_one(sentence: str, names: list[str]) -> None:
    assert called(("", "吉祥物"), fold(sentence)) == names


@pytest.mark.parametrize(
    ("name", "is_proper"),
    [
        ("档电影票房冠军", False),  # 电影票房: 电影 + 票房, a phrase
        ("中国新闻周刊", True),  # 新闻周刊 beside 中国, a place's name
        ("奥斯卡最佳影片", True),
        ("长安汽车", True),  # 长安 is a place: not two common nouns
        ("林秋雁", True),
    ],
)
def test_two_common_nouns_run_together_are_no_name(name: str, is_proper: bool) -> None:
    assert proper(name) is is_proper


def test_a_champion_asked_needs_the_title_in_the_sentence() -> None:
    question = "2023春節檔電影票房冠軍"
    assert read_question(question).entities == ()
    assert read_question(question).asked == "冠军"
    chunk = "截至1月27日21時，2023年中國電影市場春節檔期總票房67.24億元。共2部電影票房破20億元。"
    assert (
        answering(question, "", chunk + "其中，電影《滿江紅》榮獲春節檔票房冠軍，票房達25.91億元。")
        is not None
    )
    assert answering(question, "", chunk) is None  # a total, no champion
    # Other nouns are said in other words: 路线 by "上海至北京的航线".
    assert read_question("C919商業首飛路線").asked != "路线"


def test_an_organisation_after_a_name_is_a_name_of_its_own() -> None:
    assert proper_names("2022年卡塔尔世界杯韩国队", READING) == ["卡塔尔世界杯", "韩国队"]
    assert read_question("2022年女籃世界盃中國女籃成績").entities == ("中国女篮",)


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("2022年女篮世界杯中国女篮成绩", True),
        ("中国女篮在2022世界杯小组赛中最终排名？", True),
        ("韩国在卡塔尔世界杯的成绩如何", True),
        ("2022年全国棉花产量", False),
        ("成绩公布时间", False),
    ],
)
def test_a_question_asking_a_placing(question: str, asks: bool) -> None:
    assert asks_placing(question) is asks


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        ("中国女篮以61:83负于美国队,获得亚军。", ["亚军"]),
        ("张帅止步8强。", ["8强"]),
        ("小组赛中国队取得4胜1负的战绩,以第二名晋级淘汰赛。", ["第二名"]),
        ("网球——辛辛那提公开赛:张帅无缘四强", []),  # denied
        ("这是他第一次参赛,第3局落后。", []),  # no rank
    ],
)
def test_the_placings_a_sentence_gives(sentence: str, found: list[str]) -> None:
    assert placings(sentence) == found


def test_a_placing_question_is_answered_by_a_placing_not_a_name() -> None:
    question = "2022年女籃世界盃中國女籃成績"
    assert answering(question, "", "2022年國際籃聯女籃世界盃在澳大利亞首都悉尼激戰正酣。") is None
    found = answering(
        question, "", "中國女籃在1日進行的2022年女籃世界盃決賽中以61:83負於美國隊，獲得亞軍。"
    )
    assert found is not None and found.filler == "亚军"


def test_a_sentence_about_the_other_event_does_not_answer() -> None:
    question = "2022年WTT世界盃決賽男單冠軍"
    women = "2022年WTT世界盃決賽在河南新鄉產生首個冠軍，中國隊的孫穎莎奪得女單冠軍。"
    assert answering(question, "", women) is None
    men = "2022年WTT世界盃決賽男單決賽中，王楚欽4比1戰勝對手，奪得男單冠軍。"
    found = answering(question, "", men)
    assert found is not None and found.filler == "王楚钦"
    # The side inside a name: 中国女篮, not 中国男篮.
    assert (
        answering("2022年女籃世界盃中國女籃成績", "", "中國男籃在2022年男籃世界盃獲得亞軍。")
        is None
    )


def test_another_place_s_figure_does_not_answer():
    # 越南GDP is Vietnam's; 我国 is what news written in China calls it.
    question = "2031年一季度中国GDP增长率"
    assert answering(question, "", "2031年第一季度，越南GDP增长率为3.3%。") is None
    for text in (
        "2031年一季度，我国GDP增长率为4.5%。",
        "2031年一季度，中国GDP增长率为4.5%，高于越南。",
    ):
        found = answering(question, "", text)
        assert found is not None and found.filler == "4.5%", text


def test_a_sibling_of_a_named_noun_is_another_event():
    # 澳網 is another tournament than the 溫網 asked (it had answered with 澳網男單冠軍).
    question = "誰是2031年溫網的男單冠軍？"
    assert answering(question, "", "周遠航奪得2031年澳網男單冠軍。") is None
    assert answering(question, "", "周遠航在2031年澳網獲得男單冠軍。") is None
    found = answering(question, "", "2031年，林嘉樹在澳網失利後奪得溫網男單冠軍。")
    assert found is not None  # both named: read as usual


def test_a_dateline_dates_the_report_not_the_event():
    question = "鹤城市长访问云港的时间？"
    briefing = "新华社云港4月3日电 发言人3日在记者会上介绍了鹤城市长访问云港的安排。"
    assert answering(question, "", briefing) is None
    visit = "新华社云港4月3日电 鹤城市长将于4月5日访问云港。"
    found = answering(question, "", visit)
    assert found is not None and found.filler == "4月5日"


def test_a_person_run_together_with_what_he_did_is_the_person():
    # jieba runs 沈秋禾 (a name) and 祭祖 together; with no relation left, 祭祖 is it.
    reading = read_question("沈秋禾祭祖时间")
    assert reading.entities == ("沈秋禾",) and reading.relation == ("祭祖",)
    found = answering("沈秋禾祭祖时间", "", "沈秋禾将于3月27日至4月7日赴青州祭祖、参访。")
    assert found is not None and found.filler == "3月27日"


def test_an_amount_is_not_a_count_a_unit_or_another_noun_s_value():
    # Made-up statistics office release: the total is asked, not the provinces counted, the
    # sown area (and its restatement in another unit) or the yield per hectare.
    question = "2031年全国茶叶产量"
    listed = (
        "根据对全国31个省的统计调查，2031年全国茶叶种植面积、单位面积产量和总产量"
        "分别为3000.3千公顷、1992.2公斤/公顷和597.7万吨。"
    )
    found = answering(question, "", listed)
    assert found is not None and found.candidates == ("597.7",), found
    area = "2031年，全国茶叶种植面积3000.3千公顷（4500.4万亩），单位面积产量1992.2公斤/公顷。"
    assert answering(question, "", area) is None
    found = answering(question, "", "2031年全国茶叶总产量597.7万吨，比上年增加24.6万吨。")
    assert found is not None and found.filler == "597.7"


def test_a_journey_by_its_short_name_is_said_in_full_and_not_by_who_came_after() -> None:
    """访华 (to visit China) is said "对中国进行国事访问"; "继X之后访华" is another's visit."""
    from treerag.reasoning.answering import answerings

    question = "马尔索朗访华时间？"
    text = (
        "英国首相韦思特将于1月末访华，成为继马尔索朗之后访华的欧洲元首。"
        "应邀请，马尔索朗将于4月5日至7日对中国进行国事访问。"
    )
    found = [a.sentence for a in answerings(question, "", text)]
    assert found == ["应邀请，马尔索朗将于4月5日至7日对中国进行国事访问。"]
    assert not list(answerings("马尔索朗访美时间？", "", text))  # 中国 is not 美国
