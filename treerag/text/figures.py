"""Years, dates and quantities in text: one set of patterns for every reader of figures.

The question reader (`reasoning.questions`), the answer reader (`reasoning.answering`) and the
comparison of dated values (`reasoning.comparison`) all find years and numbers with these.
They read canonical or raw text alike (digits and Chinese numerals are the same in both;
month names match in any case).
"""

from __future__ import annotations

import re

from treerag.text.script import HAN

YEAR = re.compile(r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)")
"""A year standing alone: 1871, 2022 (not the 2022 of 12022 or of a code)."""

DATE_WORD = re.compile(rf"{YEAR.pattern}|\d{{1,4}}\s*[年月日]")
"""A year, or a number with its Chinese date unit: 1871, 2021年, 3月, 9日."""

YEAR_SCOPE = re.compile(r"(?:1[0-9]{3}|20[0-9]{2})\s*年")
"""A Chinese year with its unit ("2022年"), which scopes what a sentence says after it."""

CENTURY = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)[\s\-]+century\b|(?<!\d)\d{1,2}\s*世纪"
    r"|\b(?:early|mid|late)?[\s\-]*(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
    r"|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth"
    r"|nineteenth|twentieth|twenty[\s\-]first)[\s\-]+century\b",
    re.IGNORECASE,
)
"""A century: "the 19th century", "early twentieth century", 19世纪 (no date gives one)."""

MONTH = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b",
    re.IGNORECASE,
)

MONTH_NAME = re.compile(
    r"\b(January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b"
)
"""A month as raw English text writes it, capitalised ("may" is a verb)."""

_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
)
WHOLE_DATE = re.compile(
    rf"(?:\d{{2,4}}\s*年\s*)?\d{{1,2}}\s*月(?:\s*\d{{1,2}}\s*[日号])?"
    rf"|\b(?:\d{{1,2}}\s+{_MONTHS}|{_MONTHS}\s+\d{{1,2}}(?!\d))(?:,?\s+\d{{4}}\b)?"
    rf"|\b{_MONTHS},?\s+\d{{4}}\b",
    re.IGNORECASE,
)
"""A date written whole, one value: 2022年2月4日, 2月4日, "4 February 2022", "February 4,
2022", "March 1871" (its parts are no values of their own: `DATE_WORD` finds those)."""

_MODERN_YEAR = r"(?<![\d.])(?:1[5-9]|20)\d{2}"
WRITTEN_YEAR = re.compile(rf"{_MODERN_YEAR}(?![\d.%])")
"""A year as written, with or without its unit, not part of a decimal or a percentage:
"2022年", "2022世界5G大会", "in 1871" (not the 2022 of "2022.5" or "2022%")."""
CLASSIFIERS = "名个個位只家所台辆輛件次场場座条條项項篇部张張户戶架艘头頭匹棵本款"
"""Chinese measure words (量词) a count is written with: "7436名本科生", "31个省"."""
EDITION_YEAR = re.compile(
    rf"{_MODERN_YEAR}(?=\s*[{HAN}“\"《])(?!\s*[年月日号级届多余万亿千百人元岁米{CLASSIFIERS}])"
)
"""A Chinese year written into a name, without its unit: the edition "2022世界5G大会" and
"2021“中国旅游文化周”" name (a year with its unit, "2022年8月", dates instead:
`YEAR_SCOPE`; a number with a measure word, "1500名学生", "2000多人", counts)."""
DATING_YEAR = re.compile(f"{YEAR_SCOPE.pattern}|{EDITION_YEAR.pattern}")
"""A Chinese year that dates what follows it: with its unit ("2022年") or written into the
name of an edition ("2021“中国旅游文化周”", "2022世界5G大会")."""

STATED_DATE = re.compile(rf"{YEAR.pattern}|\d{{2,4}}年|\d{{1,2}}月|\d{{1,2}}日")
"""A date as a raw sentence states one: a year, 2021年, 3月, 9日 (not "3年后", a span)."""

DATE_PART = re.compile(
    r"\d{1,4}(?=\s*[年月日号])|\d{1,2}\s*时(?:\s*\d{1,2}\s*分)?|\d{1,2}\s*点\s*(?:\d{1,2}\s*分|半|整|多|许|左右)"
    r"|(?<![\d:])\d{1,2}:[0-5]\d(?![\d:])"
)
"""A number that is part of a date or a time of day (12月10日, 2021年, 2点20分, 10:00): a
count question does not ask it ("23时左右", "14时38分"; "3点" alone may be three points; a
score is written with one digit a side, "4:2")."""

QUANTITY = re.compile(
    r"(?<![a-z\d.,])\d(?:[\d,.]*\d)?(?:\s*%)?"
    r"|(?<=[a-z])\d(?:[\d,.]*\d)?(?=\s*[万亿千百元%])"
    r"|[零一二三四五六七八九十两][零一二三四五六七八九十百千万亿两]*[个人名位座次岁年件场辆亿万]"
)
"""A quantity in canonical text: digits that do not continue a code (the 5735 of "mu5735"
names a flight) or another number (the 85 of "43214.85"), digits after letters when a unit
follows them ("gdp43214.85亿元"), or a Chinese numeral with its measure word."""

NUMERAL = re.compile(r"\d|[一二三四五六七八九十百千万亿两]")
"""One character of a number, in digits or Chinese."""
