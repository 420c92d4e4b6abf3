"""A rate or an amount the question names is said by its verb and the value (同比增长4.5%, 发送旅客…人次)."""

from __future__ import annotations

from treerag.reasoning.answering import answerings
from treerag.reasoning.relation_held import said_by_verb

QUESTION = "2023一季度中國GDP增長率"


def test_a_rate_is_said_by_its_verb_and_a_percentage():
    assert said_by_verb("增长率", "gdp同比增长4.5%,超出预期")
    assert said_by_verb("增长率", "gdp增长了 0.3 %")
    assert not said_by_verb("增长率", "gdp增长迅速,达到284997亿元")  # no percentage
    assert not said_by_verb("增长", "gdp增长4.5%")  # no rate asked


def test_the_percentage_answers_and_not_the_amount_before_it():
    text = "中國2023年一季度國內生產總值（GDP）284997億元，同比增長4.5%，超出市場預期的4%；"
    found = next(answerings(QUESTION, "", text))
    assert found.filler == "4.5%"


def test_growth_without_a_percentage_says_no_rate():
    assert not list(answerings(QUESTION, "", "中國2023年一季度GDP增長迅速，達到284997億元。"))


def test_an_amount_is_said_by_its_verb_and_a_number_in_the_clause():
    assert said_by_verb("发送量", "2023年春运首日全国共发送旅客3473.6万人次")
    assert not said_by_verb("发送量", "发送旅客的列车增加,运力3473.6万")  # not in the clause
    found = next(
        answerings(
            "2023春運首日旅客發送量",
            "",
            "1月7日，2023年春運首日全國鐵路、公路、水路、民航共發送旅客3473.6萬人次。",
        )
    )
    assert found.filler == "3473.6万人次" or "3473.6" in found.filler
