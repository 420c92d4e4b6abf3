"""A rate the question names (增长率) is said by its verb and a percentage (同比增长4.5%)."""

from __future__ import annotations

from treerag.reasoning.answering import answerings
from treerag.reasoning.relation_held import rate_said

QUESTION = "2023一季度中國GDP增長率"


def test_a_rate_is_said_by_its_verb_and_a_percentage():
    assert rate_said("增长率", "gdp同比增长4.5%,超出预期")
    assert rate_said("增长率", "gdp增长了 0.3 %")
    assert not rate_said("增长率", "gdp增长迅速,达到284997亿元")  # no percentage
    assert not rate_said("增长", "gdp增长4.5%")  # no rate asked


def test_the_percentage_answers_and_not_the_amount_before_it():
    text = "中國2023年一季度國內生產總值（GDP）284997億元，同比增長4.5%，超出市場預期的4%；"
    found = next(answerings(QUESTION, "", text))
    assert found.filler == "4.5%"


def test_growth_without_a_percentage_says_no_rate():
    assert not list(answerings(QUESTION, "", "中國2023年一季度GDP增長迅速，達到284997億元。"))
