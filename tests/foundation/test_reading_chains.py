"""Reading rules for multi-hop and comparison questions: chains across chunks, comparisons,
the asked-for thing after its verb, relative clauses. Made-up documents, both languages."""

from treerag.reasoning.answering import answering, answering_across
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.comparison import decide
from treerag.reasoning.compose import across, chain
from treerag.reasoning.questions import slot
from treerag.reasoning.reading import read_question


def item(n: int, title: str, text: str, score: int = 1) -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", title=title, source="", text=text, score=score)


BRENNICK = (
    "Aldous Brennick\n\nAldous Brennick was a sea captain from Vellby. "
    "He captained the Saltwren for twenty years."
)
SALTWREN = (
    "Saltwren\n\nThe Saltwren is a cargo ship built by Harrow Yards in 1898. "
    "It sank off the Noor estuary in 1931."
)
KESTREL = "Kestrel\n\nThe Kestrel is a cargo ship built by Molde Yards in 1902."


def test_the_name_after_the_asked_verb_fills_which_company():
    # "company" is not in the sentence; the name after "built by" is what is asked.
    found = answering("Which company built the Saltwren?", "Saltwren", SALTWREN)
    assert found is not None and found.filler == "Harrow Yards"


def test_a_chain_held_in_two_chunks_is_answered_last_hop_first():
    question = "The ship captained by Aldous Brennick was built by what company?"
    # The ship's document does not name the captain: alone, it does not answer.
    assert answering(question, "Saltwren", SALTWREN) is None
    bridge = "He captained the Saltwren for twenty years."
    found = answering_across(question, "Saltwren", SALTWREN, [bridge])
    assert found is not None and found.sentence.startswith("The Saltwren is a cargo ship")
    assert found.bridge == bridge
    evidence = [item(1, "Aldous Brennick", BRENNICK), item(2, "Saltwren", SALTWREN)]
    quotes = chain(question, evidence)
    assert [(q.n, q.text[:16]) for q in quotes] == [
        (2, "The Saltwren is "),
        (1, "He captained the"),
    ]
    # A ship no bridge names is a distractor, however alike its sentence.
    assert (
        across(question, [item(1, "Aldous Brennick", BRENNICK), item(2, "Kestrel", KESTREL)]) == []
    )


def test_a_chinese_chain_held_in_two_chunks():
    lin = "林秋雁\n\n林秋雁是一位画家。她的第一次个展在晨光画廊举行。"
    gallery = "晨光画廊\n\n晨光画廊位于海湾市。该画廊由周怀远于1921年创办。"
    question = "林秋雁第一次个展所在的画廊是谁创办的？"
    quotes = chain(question, [item(1, "林秋雁", lin), item(2, "晨光画廊", gallery)])
    assert quotes and quotes[0].n == 2 and "周怀远" in quotes[0].text
    assert quotes[1].n == 1 and "晨光画廊" in quotes[1].text


def test_a_relative_who_does_not_ask():
    assert slot("Tomas Brandt is an engineer who worked with the mayor of what city?") == "place"
    assert slot("Who founded the Orsk Press?") == "person"
    assert slot("The press was founded by a printer whose apprentice is whom?") == "person"
    reading = read_question("The film stars an actress who starred in what for seven years?")
    assert reading.kind == "thing" and reading.asked == "starred"


MEDWIN = "Medwin Hall\n\nMedwin Hall is a museum of clocks in Vellby. It opened in 1911."
CORRAN = "Corran Gallery\n\nThe Corran Gallery is an art museum in Aldmoor."
KESSEL = "Kessel Rooms\n\nThe Kessel Rooms are a concert hall in Aldmoor."


def test_a_yes_no_comparison_reads_both_sides():
    both = [item(1, "Medwin Hall", MEDWIN), item(2, "Corran Gallery", CORRAN)]
    quotes = decide("Are Medwin Hall and Corran Gallery both museums?", both)
    assert quotes[0].said == "Yes" and {q.n for q in quotes} == {1, 2}
    one = [item(1, "Medwin Hall", MEDWIN), item(2, "Kessel Rooms", KESSEL)]
    quotes = decide("Are Medwin Hall and the Kessel Rooms both museums?", one)
    # "No" leads with the side that is not one.
    assert quotes[0].said == "No" and quotes[0].n == 2


ORSK = "Orsk Press\n\nThe Orsk Press is a publisher founded in 1931 by Pavel Orsk."
BRANDT = "Brandt Works\n\nThe Brandt Works is a foundry in Vellby, founded in 1902."


def test_a_which_comparison_chooses_by_year_or_by_property():
    sides = [item(1, "Orsk Press", ORSK), item(2, "Brandt Works", BRANDT)]
    quotes = decide("Which was founded first, the Orsk Press or the Brandt Works?", sides)
    assert quotes[0].said == "Brandt Works" and quotes[0].n == 2
    quotes = decide("Which was founded later, the Orsk Press or the Brandt Works?", sides)
    assert quotes[0].said == "Orsk Press"
    quotes = decide("Which is a foundry, the Orsk Press or the Brandt Works?", sides)
    assert quotes[0].said == "Brandt Works"
    # A comparison with nothing to decide on is left undecided.
    assert decide("Which is larger, the Orsk Press or the Brandt Works?", sides) == []
    # A question that names one side does not compare.
    assert decide("When was the Orsk Press founded?", sides[:1]) == []


def test_chinese_comparisons():
    chao = "潮声乐团\n\n潮声乐团是一支交响乐团，成立于1931年。"
    yun = "云溪剧社\n\n云溪剧社是一个话剧团体，成立于1926年。"
    sides = [item(1, "潮声乐团", chao), item(2, "云溪剧社", yun)]
    quotes = decide("潮声乐团和云溪剧社哪个更早成立？", sides)
    assert quotes[0].said == "云溪剧社" and quotes[0].n == 2
    quotes = decide("潮聲樂團還是雲溪劇社更晚成立？", sides)
    assert quotes[0].said == "潮声乐团"
    qing = "青石镇\n\n青石镇是沧江边的一个港口小镇。"
    bai = "白鹭镇\n\n白鹭镇是山区的一个农业小镇。"
    quotes = decide(
        "青石镇和白鹭镇都是港口小镇吗？", [item(1, "青石镇", qing), item(2, "白鹭镇", bai)]
    )
    assert quotes[0].said == "不是" and quotes[0].n == 2


def test_a_chinese_noun_phrase_naming_a_quantity_asks_a_number():
    assert slot("2023年青岩镇茶叶产量") == "number"
    assert slot("青岩镇小学的入学率") == "number"
    assert slot("2023年青岩镇龙舟赛冠军") == "thing"


def test_a_year_a_chinese_question_opens_with_scopes_the_chunk():
    text = (
        "2023年青岩镇龙舟赛\n\n"
        "2023年青岩镇龙舟赛于端午节举行。今年决赛的冠军是白鹭队，亚军是沧江队。"
    )
    found = answering("2023年青岩镇龙舟赛决赛冠军", "2023年青岩镇龙舟赛", text)
    assert found is not None and "白鹭队" in found.sentence
    # The chunk must still hold the year.
    assert answering("2024年青岩镇龙舟赛决赛冠军", "青岩镇龙舟赛", text) is None


def test_a_quoted_title_is_the_thing_asked_and_beats_a_common_word():
    text = (
        "海湾市电影节\n\n"
        "海湾市电影节首日观众达到三万人次。"
        "首日放映场次最多的影片是《潮汐之城》，共放映四十场。"
    )
    found = answering("海湾市电影节首日放映场次最多的影片是哪部", "海湾市电影节", text)
    assert found is not None and found.filler == "潮汐之城"
    marta = (
        "Marta Lind\n\nMarta Lind is a weaver. She starred in the play "
        '"Salt and Tide" for seven years.'
    )
    question = "Marta Lind starred in what for seven years?"
    found = answering(question, "Marta Lind", marta)
    assert found is not None and found.filler == "Salt and Tide"


def test_wo_guo_reads_as_china():
    text = "人口统计\n\n2025年全年出生人口900万人，中国人口出生率为6.10‰。"
    found = answering("我国2025年人口出生率", "人口统计", text)
    assert found is not None and "6.10" in found.sentence


def test_a_sentence_dated_another_year_does_not_answer():
    text = "人口统计\n\n2024年中国人口出生率为6.39‰。2025年中国全年出生人口900万人，人口出生率为6.10‰。"
    found = answering("2025年中国人口出生率", "人口统计", text)
    assert found is not None and "6.10" in found.sentence


def test_a_sentence_about_another_edition_does_not_answer_nor_the_one_that_goes_on():
    # An edition's year written into its name ("2025“中国青禾文化周”") dates the sentence as
    # a year with its unit does; the sentence after it, naming no year, goes on in that year.
    other = (
        "中国青禾文化周\n\n由两国政府共同主办的2025“中国青禾文化周”启动仪式暨临川专场活动启幕。"
        "据悉，这也是“中国青禾文化周”首次在临川市举办。"
    )
    question = "2026年“中国青禾文化周”在哪里举办？"
    assert answering(question, "", f"{other}2026年也将举办。") is None
    found = answering(question, "", f"{other}2026年“中国青禾文化周”将在泰国举办。")
    assert found is not None and found.filler == "泰国"


def test_a_count_is_no_edition_year():
    found = answering(
        "2026年青禾中学录取了多少名新生？",
        "青禾中学",
        "青禾中学\n\n2026年，青禾中学共有1800名学生报名，录取新生1500名。",
    )
    # "1800名" counts: it is no year that would date the 1500 after it.
    assert found is not None and found.filler == "1500"


def test_a_year_that_opens_the_entity_s_name_is_no_time_of_it():
    question = "青禾峰会举办时间"
    # "2026年世界青禾峰会" names the 2026 edition; the sentence does not say when it is held.
    named = "会上，秘书长介绍了2026年世界青禾峰会举办情况和取得的成果。"
    assert answering(question, "", named) is None
    found = answering(question, "", "2026年世界青禾峰会将于11月9日举办。")
    assert found is not None and found.filler == "11月9日"
    found = answering(question, "", "临川市于2026年举办青禾峰会。")  # the year the holding
    assert found is not None and found.filler == "2026"
