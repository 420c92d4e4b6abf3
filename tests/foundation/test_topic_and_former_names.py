"""A Chinese question's opening noun is what it is about; a former name asked in other words."""

from treerag.reasoning.answering import answering
from treerag.reasoning.called import named_noun
from treerag.reasoning.reading import fold, read_question

SUGAR = "台灣糖業公司，簡稱「台糖」，是一家國營企業，成立於1946年5月1日，總部位於臺南市。"
COLLEGE = (
    "青嵐大學（英語：Qinglan University）是一所位於臺中市的私立大學，由教會出資創辦，"
    "於1957年9月正式開學，是戰後最早成立的私立大學之一。"
)


def test_a_question_naming_no_entity_is_about_the_noun_it_opens_with():
    reading = read_question("台糖是在什麼時候成立的？")
    assert reading.entities == () and reading.topic == "台糖"
    found = answering("台糖是在什麼時候成立的？", "台灣糖業公司", SUGAR)
    assert found is not None and found.candidates == ("1946年5月1日",)


def test_a_chunk_that_never_names_the_topic_does_not_answer():
    # Another founding date, in a chunk that never says 台糖.
    assert answering("台糖是在什麼時候成立的？", "青嵐大學", COLLEGE) is None


def test_a_compound_or_a_time_word_opening_a_question_is_no_topic():
    assert read_question("城市人口是多少").topic == ""
    assert read_question("去年冠軍是誰").topic == ""
    assert read_question("嘉義市在舊時的名稱為何？").topic == ""  # a name: an entity already


def test_a_name_asked_in_the_past_is_a_former_name():
    assert named_noun(fold("嘉義市在舊時的名稱為何？"))[1] == "旧称"
    assert named_noun(fold("濁水溪在過去又被叫做什麼？"))[1] == "旧称"
    assert named_noun(fold("北京冬奧會吉祥物叫什麼"))[1] == "吉祥物"


def test_a_former_name_asked_in_other_words_is_read_after_the_words_a_text_says_it_by():
    text = "嘉義市位於嘉南平原北端。該市舊稱「諸羅山」，民間又稱其為「桃城」。"
    found = answering("嘉義市在舊時的名稱為何？", "嘉義市", text)
    assert found is not None and found.candidates == ("诸罗山",)
    river = "濁水溪舊稱「螺溪」，是臺灣最長的河川，全長186公里。"
    found = answering("濁水溪在過去又被叫做什麼？", "濁水溪", river)
    assert found is not None and found.candidates == ("螺溪",)


def test_a_demonstrative_with_a_kind_of_the_subjects_name_is_framed_by_it():
    from treerag.reasoning.chunk_reading import pronoun_subject

    said = "通車以後，該路帶動了礁溪溫泉與頭城一帶的觀光發展。"
    assert pronoun_subject(said, "宜蘭線鐵路", "") == "宜蘭線鐵路"
    assert pronoun_subject("該市自古就有「風城」的別稱。", "新竹市", "") == "新竹市"
    # A temple in a city's document is not the city; "此外" points at nothing.
    assert pronoun_subject("每年中元節，該廟都會舉行遶境。", "新竹市", "") == ""
    assert pronoun_subject("此外，新竹市的米粉很有名。", "新竹市", "") == ""


def test_a_question_opening_with_a_description_has_no_topic():
    # The second hop's document never names 苍澜轮渡: the description is no topic.
    assert read_question("苍澜轮渡创办人的父亲开设的那家茶楼位于哪条街？").topic == ""


def test_a_reason_asked_is_stated_plainly_by_the_words_that_give_one():
    from treerag.reasoning.fallback import asks_reason, states_asked

    asked = "濁水溪的溪水為何總是一片混濁？"
    assert asks_reason(asked) and asks_reason("集集線最初是做什麼用的？")
    assert asks_reason("Why did the mill close?")
    # 為何 closing a question asks what; 稱為什麼 asks a name.
    assert not asks_reason("嘉義市在舊時的名稱為何？") and not asks_reason("它又被稱為什麼？")
    assert not asks_reason("民間因其城牆的形狀而稱它為什麼？")
    because = "由於上游流經板岩地層，濁水溪終年挾帶大量泥沙，呈現混濁的黃褐色。"
    assert states_asked("thing", because, asked) == 2
    assert states_asked("thing", "濁水溪全長186.6公里，是臺灣最長的河川。", asked) == 0
