"""A code ("XQ4410", "KV-37") names one flight, aircraft or event as a proper name does, and a
Latin name in Chinese text is found between Han characters. Made-up codes and flights."""

import pytest

from treerag.reasoning.answering import answering
from treerag.reasoning.named import names_in
from treerag.reasoning.reading import read_question
from treerag.text import canonical

OTHER_FLIGHT = "坠毁的ZK2031航班上载有乘客57人，机组人员6人。"
THIS_FLIGHT = "据通报，坠毁的XQ4410航班上共有88人，其中乘客80人。"


@pytest.mark.parametrize(
    ("question", "code"),
    [
        ("坠毁的XQ4410航班上有多少人", "xq4410"),
        ("墜毀的XQ4410航班上有多少人", "xq4410"),
        ("How many people were on board flight XQ4410?", "xq4410"),
        ("KV-37战斗机的研发国家是哪个？", "kv 37"),
    ],
)
def test_a_code_is_an_entity_of_the_question(question, code):
    reading = read_question(question)
    assert code in reading.entities
    assert not {"xq", "4410", "37"} & set(reading.relation)


@pytest.mark.parametrize(
    "question",
    ["Which band had hits in the 1990s?", "Who ran the 5km race?", "Who came 2nd in the race?"],
)
def test_decades_units_and_ordinals_are_not_codes(question):
    assert read_question(question).entities == ()


@pytest.mark.parametrize(
    ("name", "text", "held"),
    [
        ("xq4410", "东航XQ4410航班", True),
        ("xq4410", "东航XQ44101航班", False),
        ("velmora", "这是Velmora学院", True),
        ("velmora", "Velmorans", False),
        ("vexcon2031", "在VEXCON 2031上发表", True),
        ("kv 37", "KV37战斗机", True),
        ("ilse varga", "Ilse Varga was born", True),
        ("ilse varga", "Ilsevarga", False),
    ],
)
def test_a_latin_name_is_found_as_whole_words_even_between_han(name, text, held):
    assert names_in(name, canonical(text)) is held


def test_another_flights_number_does_not_answer():
    question = "坠毁的XQ4410航班上有多少人"
    assert answering(question, "", OTHER_FLIGHT) is None
    found = answering(question, "", THIS_FLIGHT)
    assert found is not None and found.sentence.startswith("据通报")
