"""The judge's reading: one canonical form, a sentence belongs to its document, the answer slot."""

import pytest

from treerag.reasoning.answering import answering
from treerag.reasoning.chunk_reading import names_kind, statements, subjects
from treerag.reasoning.fillers import adds_a_name
from treerag.reasoning.reading import read_question
from treerag.reasoning.relation_held import present, relation_share, text_stems

MARTA = (
    "Marta Lind\n\n"
    "Marta Lind is a weaver known for her tapestries of the coast. She was born in 1871 in "
    "the town of Aldmoor. She later taught at the Kessel school, where she met Tomas Brandt."
)
TOMAS = (
    "# Tomas Brandt\n\n"
    "Tomas Brandt was an engineer who worked with Marta Lind on the harbour bridge. "
    "He was born in the port city of Vellby. In 1902 he founded the Brandt Works."
)
ALDMOOR = "Aldmoor\n\nAldmoor is a market town. The river Sella flows through the town."


def test_a_pronoun_sentence_belongs_to_its_document_s_subject():
    found = answering("Where was Marta Lind born?", "marta_lind", MARTA)
    assert found is not None and found.sentence.startswith("She was born in 1871")
    assert found.filler == "Aldmoor"
    # Another person's document that names her: its "He was born…" is about its own subject.
    assert answering("Where was Marta Lind born?", "Tomas Brandt", TOMAS) is None


def test_the_subject_is_the_title_or_the_opening_title_line():
    assert subjects("marta_lind", MARTA) == ("marta_lind", "Marta Lind")
    assert subjects("Big Hero 6 (film)", "Big Hero 6 is a film.") == ("Big Hero 6",)
    # Title lines and headings state nothing: they are never a sentence to quote.
    assert statements(TOMAS)[0].startswith("Tomas Brandt was an engineer")
    assert "Aldmoor" not in statements(ALDMOOR)


def test_the_answer_can_be_the_pronoun_s_subject():
    found = answering("Who founded the Brandt Works?", "Tomas Brandt", TOMAS)
    assert found is not None and found.filler == "Tomas Brandt"
    assert found.subject == "Tomas Brandt"  # the answer names him before the quote


def test_a_sentence_needs_the_relation_and_the_asked_for_kind():
    # The town's document says a river flows through it; that is not when it was founded.
    assert answering("When was Aldmoor founded?", "Aldmoor", ALDMOOR) is None
    found = answering("Which river flows through Aldmoor?", "Aldmoor", ALDMOOR)
    assert found is not None and found.filler == "Sella"
    # Two hops: her document gives the town, not the river.
    assert (
        answering(
            "Which river flows through the town where Marta Lind was born?", "Marta Lind", MARTA
        )
        is None
    )


def test_a_question_that_asks_two_things_is_not_answered_by_one_sentence():
    assert answering("Where was Marta Lind born, and who taught her?", "Marta Lind", MARTA) is None
    assert read_question("陳慕言創辦的樂團，首任指揮是誰？").several is False


def test_a_chain_inside_one_chunk_needs_the_bridge_to_carry_part_of_the_question():
    works = "Brandt Works\n\nThe Brandt Works were founded by Tomas Brandt. They built cranes."
    found = answering("Where was the founder of the Brandt Works born?", "Tomas Brandt", TOMAS)
    assert found is not None and found.filler == "Vellby"
    assert found.bridge == "In 1902 he founded the Brandt Works."
    assert (
        answering("Where was the founder of the Brandt Works born?", "Brandt Works", works) is None
    )


@pytest.mark.parametrize(
    ("question", "title", "text", "filler"),
    [
        # Terms are compared in one script: a Traditional question reads a Simplified text…
        (
            "林秋雁出生在哪裡？",
            "林秋雁",
            "林秋雁\n\n林秋雁是一位植物学家。她于1915年出生在青岩镇。",
            "青岩镇",
        ),
        # …and the reverse, and segmentation does not matter (开始 and 动工 in 开始动工兴建).
        ("沪宁铁路在哪一年的时候开始动工?", "", "1905年，滬寧鐵路開始動工興建。", "1905"),
        ("滬寧鐵路在哪一年的時候開始動工?", "", "1905年，滬寧鐵路開始動工興建。", "1905"),
        (
            "潮聲樂團的首任指揮是誰？",
            "潮聲樂團",
            "潮聲樂團\n\n潮聲樂團是一支管弦樂團。樂團的首任指揮是許若蘭。",
            "许若兰",
        ),
    ],
)
def test_chinese_in_both_scripts(question, title, text, filler):
    found = answering(question, title, text)
    assert found is not None and found.filler == filler


def test_a_chinese_relation_term_is_credited_by_its_characters():
    reading = read_question("青石镇坐落在哪条江边？")
    assert reading.head == "江"
    # 坐落 is there; of 江边 only 边 counts (江 is what is asked for), and 江畔 lacks it.
    assert relation_share(reading, "青石镇坐落在白鹭江畔。") == pytest.approx(0.5)
    assert relation_share(reading, "青石镇的石桥建于1763年。") == 0.0


def test_question_words_ask_and_do_not_relate():
    assert (
        read_question("When was the lighthouse built in the town where Pavel Orsk was born?").kind
        == "time"
    )
    assert (
        read_question("Which river flows through the village where Ilse Varga was born?").kind
        == "thing"
    )
    assert read_question("滬寧鐵路在哪一年的時候開始動工?").kind == "time"
    assert read_question("潮聲樂團的首任指揮出生在哪裡？").kind == "place"
    assert "时候" not in read_question("沪宁铁路在哪一年的时候开始动工").relation


def test_a_number_the_question_gives_must_be_in_the_chunk():
    # Another year's box office does not answer this year's question.
    text = "《流浪地球2》成为今年春节档新片上映首日票房冠军，单日票房4亿元。"
    assert answering("2022年春节档首日票房冠军是哪部电影？", "", text) is None
    assert answering("2023年春节档首日票房冠军是哪部电影？", "", "2023年" + text) is not None


def test_a_quantity_needs_the_whole_relation_and_is_no_date():
    revenue = "4月27日，长安汽车披露2021年年度报告，公司营业收入1051.41亿元，同比增长24.33%。"
    assert answering("长安汽车2021年销量同比增长多少？", "", revenue) is None
    said = "12月10日，记者获悉，河南2021年全年粮食总产量为1308.84亿斤。"
    found = answering("河南2021年的粮食总产量是多少？", "", said)
    assert found is not None and found.filler.startswith("1308.84")  # not 12 of 12月10日


def test_a_quantity_may_leave_the_chunk_s_scope_to_the_chunk():
    question = "2021年中国城镇新增就业了多少人"
    text = (
        "1月17日，国家统计局发布2021年中国经济数据。数据显示，就业形势总体稳定。"
        "全年城镇新增就业1269万人，比上年增加83万人。"
    )
    found = answering(question, "", text)
    assert found is not None and found.filler == "1269" and found.sentence.startswith("全年")
    # Without the scope anywhere in the chunk it does not answer; nor does another relation.
    assert answering(question, "", text.replace("2021年中国", "")) is None
    revenue = "长安汽车披露2021年年度报告。公司营业收入1051.41亿元，同比增长24.33%。"
    assert answering("长安汽车2021年销量同比增长多少？", "", revenue) is None
    # The sentence with the whole relation comes before one that leans on the chunk.
    both = "长安汽车2021年年报：销量增长10%。长安汽车2021年营业收入同比增长24.33%。"
    found = answering("长安汽车2021年营业收入同比增长多少？", "", both)
    assert found is not None and found.filler.startswith("24.33")


def test_a_sentence_that_answers_alone_comes_before_a_chain():
    text = (
        "特斯拉发布数据。交付量为17147辆，同比增长46%。"
        "从全年来看，特斯拉2022年产量达到136万辆，交付量达131万辆。"
    )
    found = answering("2022年特斯拉交付量是多少？", "", text)
    assert found is not None and found.sentence.startswith("从全年来看") and not found.bridge


def test_a_code_s_digits_are_no_quantity():
    question = "墜毀的MU5735航班上有多少人"
    assert answering(question, "", "我們對 #MU5735 航班的墜毀深感震驚與悲痛。") is None
    # Nor is a time of day.
    clock = "東航MU5735航班下午1點多從昆明起飛，2點 20分高度急劇下降，最後墜毀在廣西。"
    assert answering(question, "", clock) is None
    # 点 is also a measure word: "3点建议" counts three.
    found = answering("会议一共提出了多少建议", "", "会议一共提出了3点建议。")
    assert found is not None and found.filler == "3"
    found = answering(question, "", "墜毀的MU5735航班上載有132人。")
    assert found is not None and found.filler == "132"


def test_a_name_that_is_the_question_s_word_and_a_common_word_answers_nothing():
    question = "北京冬殘奧會吉祥物是誰"
    assert answering(question, "", "北京冬奧會和冬殘奧會的吉祥物極具深意。") is None
    found = answering(question, "", "北京冬殘奧會吉祥物由曹雪設計。")
    assert found is not None and found.filler == "曹雪"
    # What is left may be a name the dictionary knows: 北京 of "首都北京".
    assert adds_a_name("首都北京", {"中国", "首都"})
    assert not adds_a_name("吉祥物极具", {"北京", "残奥会", "吉祥物"})


def test_a_chinese_name_is_of_the_asked_for_kind_when_it_ends_with_it():
    question = "2022春節檔票房冠軍是哪部電影"
    assert answering(question, "", "據國家電影局數據統計，2022春節檔總票房突破45億。") is None
    found = answering(question, "", "2022春節檔票房冠軍是電影《長津湖之水門橋》。")
    assert found is not None and found.filler == "长津湖之水门桥"
    assert names_kind("盐河（美国）", "河")  # a disambiguator is no part of the name


@pytest.mark.parametrize(
    "question", ["2022年苹果春季发布会的新手机", "2022年蘋果春季發佈會的新手機"]
)
def test_the_noun_a_chinese_question_asks_for_is_no_entity(question):
    # No question word: the noun after the last 的 is what is asked (a phone), not a name
    # the answer must repeat.
    assert read_question(question).entities == ()


def test_a_question_may_open_with_a_one_word_name():
    # A follow-up opens with its bridge: "Tidewater" is the entity, where a document's
    # sentence opening with one capitalised word says nothing ("Among the vessels…").
    assert read_question("Tidewater originally broadcast on what station?").entities == (
        "tidewater",
    )
    assert read_question("Ostvik lies on which river?").entities == ("ostvik",)
    # An adjective or an imperative opening a question is no name.
    assert read_question("Indian film photographer Anil Rao is father to whom?").entities == (
        "anil rao",
    )
    assert "name" not in read_question("Name the mother of Edda Sorn?").entities


def test_the_name_after_the_asked_verb_and_its_article_answers():
    # "broadcast by The Kessel Network": the capital T of the article is no part of the name.
    text = (
        "Tidewater is an American television series. "
        "The series was originally broadcast by The Kessel Network for five seasons."
    )
    found = answering("Tidewater originally broadcast on what station?", "Tidewater", text)
    assert found is not None and found.filler == "Kessel Network"


def test_a_short_verb_is_matched_in_its_inflections_and_a_name_in_its_possessive():
    # "open" is not the six-letter prefix of "opened"; the place follows the verb's object.
    found = answering(
        "In which town did Tobias Renn open his workshop?",
        "Tobias Renn",
        "Tobias Renn was a glass cutter. He grew up in Carrick, where his father kept the "
        "harbour inn. In 1905 he opened a workshop of his own in Lisvane.",
    )
    assert found is not None and found.filler == "Lisvane"
    said = "the glass was cut by maren holt and her apprentice."
    assert present("holt's", said, text_stems(said))
    opened, plural = "he opened it", "in the united states"
    assert present("open", opened, text_stems(opened))
    assert not present("state", plural, text_stems(plural))  # a plural inside a name: no
    hall, bell = "the merchants' hall is a guild house.", "a ship's bell hangs there."
    assert present("merchants'", hall, text_stems(hall))  # a possessive both write
    assert not present("ship", bell, text_stems(bell))  # a ship's bell is no ship


def test_a_title_before_the_documents_subject_is_part_of_the_name():
    # "Bishop" is not relation the answering sentence must say: it is how the question names him.
    text = "Alric Dunmore was bishop of Westmere. He was born in Lisvane."
    found = answering("Where was Bishop Alric Dunmore born?", "Alric Dunmore", text)
    assert found is not None and found.filler == "Lisvane"


def test_a_chinese_noun_before_a_preposition_is_the_verb_and_the_asked_noun_no_relation():
    # jieba tags 毕业 a noun: "唐若梅毕业" is no name. 学校 is what is asked (学院 answers it).
    question = "唐若梅毕业于哪所学校？"
    assert read_question(question).entities == ("唐若梅",)
    text = "唐若梅是一位建筑师。她毕业于北岭工学院，后来定居在石门市。"
    found = answering(question, "唐若梅", text)
    assert found is not None and found.filler == "北岭工学院"


def test_under_whom_asks_for_the_name_the_preposition_leads_not_the_pronouns_subject():
    text = (
        "Lena Korr was an architect. She trained in Sellbrook under the master builder Aron Fisk."
    )
    found = answering("Under whom did Lena Korr train?", "Lena Korr", text)
    assert found is not None and (found.filler, found.subject) == ("Aron Fisk", "")
    # "Who…?" is still answered by the pronoun's subject.
    found = answering("Who trained in Sellbrook?", "Lena Korr", text)
    assert found is not None and found.filler == "Lena Korr"


def test_a_body_of_water_is_the_kind_asked_and_a_place_titled_with_its_kind_is_named_by_name():
    # "which body of water" asks for a kind: "water" is no relation the sentence must say.
    # "empties" is "empty" in its -ies form; "River Teal" is named by "Teal".
    question = "Into which body of water does Teal empty?"
    assert read_question(question).relation == ("empty",)
    text = "River Teal\n\nThe Teal is a short river. It empties into the Grey Sound near Carrick."
    found = answering(question, "River Teal", text)
    assert found is not None and found.filler == "Grey Sound"
    # A member of a named group: the name after "of" is what the sentence must say.
    assert "tern" in read_question("Which member of the Tern Quartet wrote it?").candidates
    # The -ies form is a plural too ("cities"), which the stem of "city" rightly finds.
    cities = "two cities lie on it."
    assert present("city", cities, text_stems(cities))


def test_verb_forms_are_stemmed_alike_from_many_threads():
    # The offline judges read in worker threads; a stemmer shared by them mixes up the
    # words it is given (IndexError from Snowball's stemWord, or a wrong stem).
    import sys
    import threading

    from treerag.reasoning.relation_held import inflected

    stem = inflected.__wrapped__  # past the cache: every call stems
    words = ["opened", "opening", "empties", "nationalization", "generously", "running"] * 300
    expected = [stem(w) for w in words]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures: list[str] = []

    def read() -> None:
        try:
            if [stem(w) for w in words] != expected:
                failures.append("a wrong stem")
        except Exception as exc:  # the race shows as an IndexError
            failures.append(repr(exc))

    try:
        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
