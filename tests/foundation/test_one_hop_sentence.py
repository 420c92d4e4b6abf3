"""The sentence that answers a one-hop Chinese question, where another says nearly as much.

Made-up encyclopedia paragraphs in Traditional script, as the held-out sets write them:
- a school called by its abbreviation (白中 for 白沙高級中學, `named.abbreviations`);
- a figure that describes another thing (全長12.9公里的雪山隧道, `span_bound`);
- what holds now against what held once (目前 for 現在, `compose.corroborated`).
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.comparison import asks_yes_no
from treerag.reasoning.compose import chain
from treerag.reasoning.named import abbreviations, names_title
from treerag.reasoning.span_bound import bounded
from treerag.text import canonical


def item(n: int, text: str, title: str) -> EvidenceItem:
    return EvidenceItem(n=n, chunk_id=f"c{n}", title=title, source="", text=text, score=2)


def test_a_school_is_named_by_its_abbreviation():
    assert abbreviations("國立青嶺高級中學") == ("青中",)
    assert abbreviations("東崁科技大學") == ("东科大", "东崁科大")
    assert abbreviations("青嶺溪") == ()
    assert names_title("青中校園內的鐘樓是哪一年落成的？", "國立青嶺高級中學")
    # 北大 inside another school's whole name is not the school: 東北大學.
    assert not names_title("東北大學位於哪一座城市？", "北京大學")


def test_a_paragraph_of_the_school_answers_a_question_naming_its_abbreviation():
    question = "青中校園內的鐘樓是在哪一年落成的？"
    text = "校內最著名的建築是1931年落成的「鐘樓」，為三層樓的磚造建築。"
    found = answering(question, "青嶺高級中學", text)
    assert found is not None and found.filler == "1931"
    assert answering(question, "青嶺國民小學", text) is None


def test_a_figure_describing_another_thing_is_not_the_entity_s():
    question = canonical("北濱線鐵路的全長為多少公里？")
    tunnel = canonical("2006年國道通車（包含全長12.9公里的霧峰隧道）以後，該路運量下滑。")
    own = canonical("北濱線是一條鐵路幹線，北起港口站，全長93.6公里。")
    assert bounded("全长", question, tunnel) and bounded("公里", question, tunnel)
    assert not bounded("全长", question, own)
    # An attribute of the entity itself, or of what the subject is, describes the subject.
    assert not bounded("全长", question, canonical("全長93.6公里的北濱線於1924年通車。"))
    area = canonical("翠湖的面積有多少平方公里？")
    assert not bounded("面积", area, canonical("翠湖是一座面積約7.9平方公里的湖泊。"))


def test_the_length_of_the_line_not_of_its_tunnel():
    title = "北濱線鐵路"
    tunnel = "2006年國道5號（包含全長12.9公里的霧峰隧道）通車以後，該路的運量一度下滑約兩成。"
    own = "北濱線是臺灣的一條鐵路幹線，北起港口車站，南至蘇灣車站，全長93.6公里。"
    question = "北濱線鐵路的全長為多少公里？"
    assert answering(question, title, tunnel) is None
    quotes = chain(question, [item(1, tunnel, title), item(2, own, title)])
    assert quotes and "93.6" in quotes[0].text


def test_what_holds_now_before_what_held_once():
    title = "青禾糖業公司"
    once = "成立之初，青禾糖的總部設於臺北市，1955年才遷至臺南市，以便管理各地糖廠。"
    now = "青禾糖業股份有限公司，簡稱「青禾糖」，成立於1946年，目前總部位於臺南市東區。"
    question = "青禾糖的總部現在位在哪裡？"
    quotes = chain(question, [item(1, once, title), item(2, now, title)])
    assert quotes and "東區" in quotes[0].text
    # Asked without "now", the evidence order stands.
    first = chain("青禾糖的總部在哪裡？", [item(1, once, title), item(2, now, title)])
    assert first and first[0].n == 1


def test_a_question_ending_in_what_asks_what_not_whether():
    # 什麼 ends in 麼, as a yes/no "…麼？" does: the question naming two documents (霧大 and
    # the person) is no comparison to answer "不是".
    assert not asks_yes_no("黃啟元過世後，家屬把他的藏書捐給霧大圖書館，成立了什麼?")
    assert not asks_yes_no("這座橋為什麼這麼長")
    assert asks_yes_no("他們都是桌遊麼？") and asks_yes_no("他們都是桌遊嗎？")


def test_a_name_after_a_comma_before_its_own_noun_is_no_figure_s_attribute():
    # "，英特爾的表現" is no figure of another thing: no figure stands before 的 (the comma
    # before the name is no thousands separator).
    question = "2031年英特爾全年營收"
    said = "而整個2031年，英特爾的表現同樣慘淡，全年營收爲631億美元，較上年下跌20%。"
    found = answering(question, "", said)
    assert found is not None and found.filler == "631"


def test_years_counted_in_all_are_a_count_not_a_date():
    # 前後 and 一共 say "in all", no relation a sentence must repeat; 30年 is a count of years.
    question = "許文淵擔任他所創辦學校的董事長，前後一共有多少年？"
    said = "他在1966年創辦私立青嶺工業專科學校，並擔任董事長長達30年。"
    found = answering(question, "許文淵", said)
    assert found is not None and found.filler == "30"
    # Asked which year, the year is the answer, not the count.
    year = answering("許文淵在哪一年創辦學校？", "許文淵", said)
    assert year is not None and year.filler == "1966"


def test_a_figure_of_a_place_located_in_the_entity_is_not_the_entity_s():
    # The city's area, in a sentence that names the plain only to place the city.
    question = "青禾平原面積大約有多少？"
    city = "青嶺市是位於臺灣西南部青禾平原北端的一個省轄市，面積約60.03平方公里。"
    assert answering(question, "青嶺市", city) is None
    # The plain's own sentence, placed itself, answers.
    plain = "青禾平原位於臺灣西南部，面積約4550平方公里。"
    found = answering(question, "", plain)
    assert found is not None and found.filler == "4550"
