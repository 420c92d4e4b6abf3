"""A Chinese "where" is answered by the place of the asked event (`reasoning.place_slot`).

Made-up reports: each sentence names more places than the one asked for, and the place of
the asked event is said in its verb's locative phrase (在…举行, 举办于…, 地点在…), or not at
all when that phrase holds a date.
"""

import pytest

from treerag.reasoning.answering import answering
from treerag.reasoning.fillers import candidates
from treerag.reasoning.place_slot import located, not_where, place_spans, within
from treerag.reasoning.reading import fold, read_question

QUESTION = "沈秋禾的告别仪式将在哪里举行？"


def test_the_place_is_the_one_the_verb_s_phrase_holds():
    text = "前青州市长沈秋禾在云港去世，她的告别仪式将于5月3日在青州会堂举行。"
    found_names = candidates(read_question(QUESTION), text)
    assert found_names[0] == "青州会堂" and "云港" not in found_names, found_names
    found = answering(QUESTION, "", text)
    assert found is not None and found.filler == "青州会堂"


def test_a_date_in_the_verb_s_phrase_says_no_place():
    # 云港 is where she died, 青州 what she led: neither is where the ceremony is.
    text = "前青州市长沈秋禾在云港去世，她的告别仪式将于5月3日举行，并对公众开放。"
    assert candidates(read_question(QUESTION), text) == []
    assert answering(QUESTION, "", text) is None


def test_a_traditional_question_reads_a_traditional_report():
    question = "沈秋禾的告別儀式將在哪裏舉行？"
    dated = "前青州市長沈秋禾在雲港去世，她的告別儀式將於5月3日舉行。"
    placed = "沈秋禾的告別儀式於5月3日上午舉行，地點在青州會堂。"
    assert answering(question, "", dated) is None
    found = answering(question, "", placed)
    assert found is not None and found.filler == "青州会堂"


@pytest.mark.parametrize(
    ("asked", "sentence", "place"),
    [
        ("举行", "告别仪式在青州会堂举行", "青州会堂"),  # a locative before the verb
        ("成立", "鹤鸣书社成立于青州", "青州"),  # after it
        ("总部", "鹤鸣书社总部位于云港", "云港"),  # after the asked noun
        ("举行", "仪式上午举行,地点在青州会堂", "青州会堂"),  # after a noun naming the place
    ],
)
def test_each_locative_phrase_is_read(asked, sentence, place):
    folded = fold(sentence)
    spans = place_spans((asked,), folded)
    assert spans is not None and within(place, folded, spans)


def test_a_sentence_without_a_locative_phrase_is_not_read():
    # "正在" and "由于" are no locatives; the sentence is left to the other rules.
    assert place_spans(("举行",), fold("由于天气原因，青州正在举行的庙会推迟")) is None
    assert place_spans(("举行",), fold("青州会堂举行了告别仪式")) is None


def test_a_place_a_locative_leads_is_not_who_did_it():
    question = "谁袭击了沈秋禾？"
    text = "这是一宗发生在云港市青石镇的袭击案件，沈秋禾受伤。"
    assert answering(question, "", text) is None
    led = "在林远的带领下，青石镇的渔民袭击了沈秋禾的船队。"
    assert "林远" in candidates(read_question(question), led)
    assert located("云港市青石镇", fold(text)) and not located("林远", fold(led))


def test_who_holds_it_and_what_is_held_are_not_where():
    # 由 leads the organiser; the name after "举办的" is the event; neither is a place.
    question = "2024青州诗会在哪举办？"
    text = "由鹤鸣文学社举办的青州诗会征文结果揭晓。"
    folded = fold(text)
    others = not_where(("举办",), folded)
    assert within("鹤鸣文学社", folded, others) and within("青州诗会", folded, others)
    assert answering(question, "", "2024年，" + text) is None
    # A locative after the organiser still says where.
    held = "2024年，由鹤鸣文学社在云港会堂举办的青州诗会开幕。"
    found = answering(question, "", held)
    assert found is not None and found.filler == "云港会堂"


def test_where_it_is_held_reads_either_word():
    # 举行 says what 举办 asks; "在哪举办" asks no kind of thing (举 is no noun).
    question = "2024青州诗会在哪举办？"
    reading = read_question(question)
    assert reading.head == "" and reading.asked == "举办"
    found = answering(question, "", "2024青州诗会将于5月3日在美国的鹤城举行。")
    assert found is not None and "鹤城" in found.sentence


def test_without_a_locative_a_place_is_one_by_its_words():
    # No 在/于 phrase: a common noun (城市) or a run of common words is no place.
    question = "2024青州诗会在哪举办？"
    assert answering(question, "", "最终2024青州诗会举办城市确定。") is None
    found = answering(question, "", "2024年，云港市举办青州诗会。")
    assert found is not None and found.filler == "云港市"
