"""A life-span in parentheses answers when a person was born or died (`reasoning.lifespan`).

Made-up people; the answer quotes the sentence as written, the date is read as its verb.
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.lifespan import spelled
from treerag.reasoning.questions import slot

ENGLISH = (
    'Oswin Marl (Fenmoorish: "Oswyn Marel"; 15 June 1824 – 24 April 1905) was the seventh '
    "Warden of Fenmoor."
)
CHINESE = "林秋雁（1911年12月11日－1979年10月31日），画家，青州人。"


def test_the_first_date_is_the_birth_and_the_second_the_death():
    born = answering("In what year was Oswin Marl born?", "Oswin Marl", ENGLISH)
    died = answering("When did Oswin Marl die?", "Oswin Marl", ENGLISH)
    assert born is not None and born.filler == "1824" and born.sentence == ENGLISH
    # "When" asks the date, written whole; "what year" the year alone.
    assert died is not None and died.filler == "24 April 1905"
    found = answering("林秋雁出生于哪一年？", "林秋雁", CHINESE)
    assert found is not None and found.filler == "1911"
    found = answering("林秋雁哪一年去世？", "林秋雁", CHINESE)
    assert found is not None and found.filler.startswith("1979")


def test_a_life_span_answers_only_when_someone_was_born_or_died():
    # It says dates: no place of birth, and nothing for a question asking neither verb.
    assert answering("Where was Oswin Marl born?", "Oswin Marl", ENGLISH) is None
    assert spelled(ENGLISH, "when was oswin marl warden?") == ENGLISH
    assert spelled("The Warden served two terms.", "when was he born?") == (
        "The Warden served two terms."
    )


def test_a_relative_who_after_a_comma_leaves_the_date_asked():
    # ", who died on which date?" describes the name before it; the question asks a date,
    # which his life-span gives ("October 31, 1887 – April 5, 1975", month first).
    question = "The warden of Fenmoor was Oswin Marl, who died on which date?"
    assert slot(question) == "time"
    assert slot("After the flood, who rebuilt the mill?") == "person"
    text = (
        "Oswin Marl (October 31, 1824 – April 5, 1905), also called Old Marl, was a warden of "
        "Fenmoor."
    )
    found = answering(question, "Oswin Marl", text)
    assert found is not None and found.filler == "April 5, 1905"


def test_a_century_answers_which_century():
    text = "The Fenmoor hound was bred in the Kessel valley during the 19th century."
    found = answering("In which century was the Fenmoor hound bred?", "Fenmoor hound", text)
    assert found is not None and found.filler == "19th century"
    found = answering("青州犬是哪个世纪培育的？", "青州犬", "青州犬于19世纪在青州培育。")
    assert found is not None and found.filler == "19世纪"
