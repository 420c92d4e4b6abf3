"""An answer several chunks state outranks one a single chunk states (`compose.corroborated`).

Made-up reports in both scripts and English: a forecast or a quarter's figure in one chunk,
the year's figure in several.
"""

from dataclasses import replace

from treerag.reasoning.answering import Answering, answering, answerings
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.compose import chain, corroborated


def item(n: int, text: str, title: str = "") -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", title=title, source="", text=text, score=1)


FORECAST = "分析师曾经对青禾科技作出全年营收812.5亿元的预测。"
YEAR = "2024年，青禾科技全年营收为705亿元，较上年下降12%。"
AGAIN = "青禾科技公布年报：全年营收705亿元，净利润下滑。"
QUESTION = "青禾科技2024年的全年营收是多少？"


def test_every_answering_sentence_of_a_chunk_in_order():
    text = f"{YEAR}此前，{FORECAST}"
    found = list(answerings(QUESTION, "", text))
    assert [f.filler for f in found] == ["705", "812.5"]
    assert found[0].candidates == ("705", "12%")
    # `answering` is the first of them.
    first = answering(QUESTION, "", text)
    assert first is not None and first.sentence == found[0].sentence


def test_the_figure_most_chunks_state_is_quoted_first():
    evidence = [item(1, f"2024年。{FORECAST}"), item(2, YEAR), item(3, f"2024年。{AGAIN}")]
    quotes = chain(QUESTION, evidence)
    assert quotes and "705" in quotes[0].text and quotes[0].n in (2, 3)
    # One chunk alone: its own answer, whatever it is.
    alone = chain(QUESTION, [item(1, f"2024年。{FORECAST}")])
    assert alone and "812.5" in alone[0].text


def test_a_tie_keeps_the_evidence_order():
    other = "青禾科技公布：2024年全年营收698亿元。"
    evidence = [item(1, other), item(2, YEAR)]
    quotes = chain(QUESTION, evidence)
    assert quotes and quotes[0].n == 1 and "698" in quotes[0].text


def test_votes_read_both_scripts_as_one():
    traditional = "2024年，青禾科技全年營收爲705億元，較上年下降12%。"
    evidence = [item(1, f"2024年。{FORECAST}"), item(2, YEAR), item(3, traditional)]
    quotes = chain("青禾科技2024年的全年營收是多少？", evidence)
    assert quotes and quotes[0].n == 2


def test_english_names_are_voted_for_too():
    question = "Who founded the Orsk Press?"
    wrong = "Orsk Press\n\nThe Orsk Press was founded by Ivo Marek, some say."
    right = "Pavel Orsk\n\nThe Orsk Press was founded by Pavel Orsk in 1931."
    again = "Orsk Press history\n\nThe Orsk Press was founded by Pavel Orsk, a printer."
    quotes = chain(question, [item(1, wrong), item(2, right), item(3, again)])
    assert quotes and "Pavel Orsk" in quotes[0].text


def test_the_sentence_after_one_naming_the_entity_goes_on_with_it():
    text = "2024年，青禾科技经营稳健。全年营收为705亿元，同比下降12%。"
    found = answering(QUESTION, "", text)
    assert found is not None and found.filler == "705"
    assert found.bridge == "2024年，青禾科技经营稳健。"
    # Two sentences further on, the topic has moved: no bridge adds the relation.
    later = "2024年，青禾科技经营稳健。白鹭湾港口扩建完成。全年营收为705亿元，同比下降12%。"
    assert answering(QUESTION, "", later) is None


def test_a_titled_document_or_a_pronoun_keeps_the_topic_its_subjects():
    # "He" after a sentence naming Marta Lind, in Tomas Brandt's document, is Tomas Brandt.
    tomas = (
        "Tomas Brandt was an engineer who worked with Marta Lind on the harbour bridge. "
        "He was born in the port city of Vellby."
    )
    assert answering("Where was Marta Lind born?", "", tomas) is None
    assert answering("Where was Marta Lind born?", "Tomas Brandt", tomas) is None


def test_a_question_asking_no_relation_keeps_the_first_answer():
    # "Who is X?" asks for a description: the names a later sentence holds are by the way.
    question = "Who is Marta Lind?"
    marta = (
        "Marta Lind\n\nMarta Lind is a weaver from Aldmoor. "
        "In 1890 she moved to Vellby, where she met Tomas Brandt."
    )
    harbour = "Harbour bridge\n\nMarta Lind and Tomas Brandt met in Vellby in 1890."
    school = "Kessel school\n\nMarta Lind taught at the Kessel school in Vellby."
    quotes = chain(question, [item(1, marta), item(2, harbour), item(3, school)])
    assert quotes and quotes[0].text.startswith("Marta Lind is a weaver")


def test_a_sentence_with_the_whole_relation_outranks_a_borrowed_scope():
    # Two reports give the fourth quarter's figure in a sentence whose chunk lends it 全年
    # (`Answering.scoped`); one says the year's figure itself.
    quarter = "财报显示，青禾科技第四季度营收为140亿元。"
    year = "青禾科技全年营收为631亿元，较上年下降20%。"
    found = [
        (item(1, quarter), Answering(quarter, "140", candidates=("140",), scoped=True)),
        (item(2, quarter), Answering(quarter, "140", candidates=("140",), scoped=True)),
        (item(3, year), Answering(year, "631", candidates=("631", "20%"))),
    ]
    best = corroborated(QUESTION, found)
    assert best is not None and best[0].n == 3
    # Among sentences alike, the votes decide.
    alike = [(e, replace(a, scoped=False)) for e, a in found]
    best = corroborated(QUESTION, alike)
    assert best is not None and best[0].n == 1


def test_between_equals_the_sentence_more_chunks_bear_out_wins():
    question = "北辰集团花了多少钱收购青禾科技？"
    rough = "北辰集团计划以每股95元的价格收购青禾科技，交易价值近700亿元。"
    exact = "北辰集团宣布将以每股95元的价格收购青禾科技，交易总价值687亿元。"
    spent = "据估算，北辰集团收购青禾科技溢价约45%，这笔687亿元的支出用掉了它11个月的现金流。"
    quotes = chain(question, [item(1, rough), item(2, exact), item(3, spent)])
    assert quotes and quotes[0].n == 2


def test_of_sentences_equally_borne_out_the_one_without_a_rival_value_wins():
    question = "青禾科技2024年营收增长多少？"
    rival = "按照正常计算，青禾科技2024年营收增长应该是10.24%，为什么只增长了5.7%？"
    plain = "2024年青禾科技营收同比增长5.7%，创下新高。"
    again = "青禾科技公布：2024年营收增长5.7%。"
    quotes = chain(question, [item(1, rival), item(2, plain), item(3, again)])
    assert quotes and quotes[0].n in (2, 3) and "10.24" not in quotes[0].text


def test_a_year_dates_the_values_after_it():
    question = "2022年春节档的总票房是多少"
    later = "2024年春节档总票房破62.81亿元，已超越2022年档期总票房60.39亿元。"
    found = answering(question, "", later)
    assert found is not None and found.candidates == ("60.39",)
    # A year after the value ("自2017年…以来") dates nothing before it.
    gdp = "2021年，上海经济总量实现突破。地区生产总值（GDP）43214.85亿元，自2017年突破3万亿元以来再上台阶。"
    found = answering("上海2021年的GDP是多少", "", gdp)
    assert found is not None and found.filler == "43214.85"
    # A sentence about another year alone does not answer.
    assert answering(question, "", "2024年春节档总票房破62.81亿元。") is None


def test_a_figure_written_after_letters_is_read_whole():
    question = "上海2021年的GDP是多少"
    found = answering(question, "", "2021年上海市实现GDP43214.85亿元，比上年增长8.1%。")
    assert found is not None and found.filler == "43214.85"
    # 万亿 alone is a unit, not a figure; a flight's number is a code.
    found = answering(question, "", "2021年，上海全年GDP首次超过4万亿大关。")
    assert found is not None and found.candidates == ("4",)
    count = answering("MU5735航班上有多少人", "", "MU5735航班上共有132人。")
    assert count is not None and count.candidates == ("132",)


def test_a_stated_figure_outranks_a_forecast_when_one_chunk_says_each():
    evidence = [item(1, f"2024年。{FORECAST}"), item(2, YEAR)]
    quotes = chain(QUESTION, evidence)
    assert quotes and "705" in quotes[0].text and quotes[0].n == 2
    latin = "What was Qinghe Tech's revenue in 2024?"
    evidence = [
        item(1, "In 2024, Qinghe Tech's revenue was expected to reach 81.2 billion."),
        item(2, "In 2024, Qinghe Tech's revenue was 70.5 billion."),
    ]
    quotes = chain(latin, evidence)
    assert quotes and "70.5" in quotes[0].text


def test_a_result_measured_against_a_forecast_is_a_fact():
    stated = Answering("青禾科技全年营收705亿元，好于分析师预期。", "705")
    assert not stated.hedged
    assert Answering("分析师预计青禾科技全年营收812.5亿元。", "812.5").hedged


def test_a_date_written_whole_is_borne_out_by_its_parts():
    # Two reports give the day without the year, a third the whole date: one date, stated
    # three times; the whole one is quoted. A rival day in one report stays outvoted.
    question = "青禾音乐节的开幕日期是什么时候？"
    evidence = [
        item(1, "将于7月9日举行的2025年青禾音乐节开幕式吸引了大批乐迷。"),
        item(2, "青禾音乐节开幕式于当地时间7月9日举行。"),
        item(3, "从现在到2025年7月9日的青禾音乐节开幕日，还有三周。"),
        item(4, "青禾音乐节开幕式原定7月2日举行。"),
    ]
    quotes = chain(question, evidence)
    assert quotes and quotes[0].n == 3 and "2025年7月9日" in quotes[0].text
    # "12月9日" is not the "2月9日" a report gives: a part is whole digits.
    found = answering("青禾音乐节的开幕日期是什么时候？", "", "青禾音乐节开幕式于12月9日举行。")
    assert found is not None and found.filler == "12月9日"


def test_a_question_asking_the_year_is_filled_by_the_year():
    text = "The Orsk Press opened on 4 March 1931 in Kalvik."
    assert (answering("In which year did the Orsk Press open?", "", text) or FAIL).filler == "1931"
    assert (answering("When did the Orsk Press open?", "", text) or FAIL).filler == "4 March 1931"


FAIL = Answering("", "")


def test_a_list_of_people_is_answered_by_the_sentence_naming_the_most():
    # "成员有哪些" asks for people: a sentence naming one of them beside two countries is
    # outranked by the one that names all three.
    question = "青禾七号飞船的成员有哪些"
    evidence = [
        item(1, "中国宣布青禾七号飞船将于10月发射，德国媒体称其中包括女航天员林秋雁。"),
        item(2, "青禾七号飞船成功发射，航天员：周定远、林秋雁、许若兰。"),
    ]
    quotes = chain(question, evidence)
    assert quotes and quotes[0].n == 2


def test_a_place_named_within_a_larger_one_and_the_questions_year_decide():
    # "四川成都" names 成都 too, so two reports say 成都 as two say 西安 (of the earlier
    # editions, under a headline of this one); between equals, the sentence dated as the
    # question is quoted.
    question = "2031世界6G大会举办的地点是哪里"
    evidence = [
        item(
            1,
            "2031世界6G大会开幕王林出席并讲话 ... 世界6G大会此前三届举办地分别在西安、武汉、西安。",
        ),
        item(2, "8月10日，一场盛会2031世界6G大会在成都举办。"),
        item(3, "日前在四川成都举办的2031世界6G大会上，六个分论坛与数字产业相关。"),
        item(4, "2031世界6G大会筹备会召开 ... 世界6G大会此前三届的举办地分别在西安、武汉、西安。"),
    ]
    quotes = chain(question, evidence)
    assert quotes and quotes[0].n == 2 and "成都" in quotes[0].text


def test_a_count_of_another_noun_is_no_answer():
    # "来自31个省" counts provinces, not the 本科生 asked for; the report that counts them wins
    # though more chunks say 31. (Made-up figures.)
    question = "深圳大学2025年录取了多少名本科生？"
    provinces = (
        "开学典礼现场（林青/摄影） 数据显示，深圳大学2025级本科新生整体生源质量稳定，"
        "录取的本科生来自31个省、自治区、直辖市，覆盖面广。"
    )
    counted = "荔园迎来了9120名新生，其中包括5236名本科生、3010名硕士生。"
    evidence = [item(1, provinces), item(2, provinces), item(3, f"{provinces}{counted}")]
    quotes = chain(question, evidence)
    assert quotes and quotes[0].n == 3 and "5236名本科生" in quotes[0].text
    # A classifier alone, or a broad counted word, does not rule a number out.
    alone = answering(question, "", "深圳大学2025年录取本科生5236人。")
    assert alone is not None and alone.filler == "5236"
    people = answering("深圳大学有多少人？", "", "深圳大学有9120名学生。")
    assert people is not None and people.filler == "9120"


def test_a_sentence_asking_for_the_noun_does_not_say_it():
    # "想要知道使用了什么处理器" asks what the processor is, in both scripts; the sentence that
    # names it answers.
    for question in ("青禾X9的处理器是什么", "青禾X9的處理器是什麼"):
        asking = "青禾X9是系列的又一个新产品，所以很多用户想要知道使用了什么处理器。"
        stating = "青禾X9采用的是骁龙888Plus手机处理器，是骁龙888的增强版。"
        assert not list(answerings(question, "", asking))
        quotes = chain(question, [item(1, asking), item(2, stating)])
        assert quotes and quotes[0].n == 2


def test_a_follow_up_held_in_the_run_is_answered_as_the_run_is():
    # A partial chunk's follow-up answered by two other chunks of the run: the more precise
    # date of the two, as `corroborated` chooses, not the first in evidence order.
    question = (
        "Ivo Marek provided the voice of the robot on the sitcom that premiered on which date?"
    )
    voice = "Ivo Marek\n\nIvo Marek provided the voice of the robot on the sitcom The Orsk House."
    partial = replace(item(1, voice), followup="The Orsk House premiered on which date?")
    listing = item(2, "The Orsk House is a sitcom, originally airing from 1962–63, then in 1987.")
    report = item(3, "The Orsk House is a sitcom, originally airing from September 23, 1962.")
    quotes = chain(question, [partial, listing, report])
    assert quotes and quotes[0].n == 3 and "September 23, 1962" in quotes[0].text


def test_a_premiere_is_said_as_an_airing_a_debut_or_a_broadcast():
    question = "When did The Orsk House premiere?"
    for said in ("originally airing from", "debuted on", "was first broadcast on"):
        text = f"The Orsk House is a sitcom {said} September 23, 1962."
        found = answering(question, "", text)
        assert found is not None and found.filler == "September 23, 1962", said
    assert answering(question, "", "The Orsk House is a sitcom set in 1962.") is None
