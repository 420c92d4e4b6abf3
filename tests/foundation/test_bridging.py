"""A follow-up replaces a description of the bridge, never the question's own name (`followup_question`).

Made-up flights, films and towns; a partial chunk about the question's own entity asks no
follow-up, and a count before a noun ("9名机组人员") names no bridge.
"""

from treerag.reasoning.bridging import bridge
from treerag.reasoning.fallback import carries


def test_a_chunk_about_the_question_s_own_flight_asks_no_follow_up(reasoner):
    # The chunk names the flight and its crew, not the crash: partial, but there is no bridge
    # to ask about. "ZX9031航班" is the question's entity, not a description of another.
    text = "“3·21”东航ZX9031航班上123名乘客和9名机组人员已全部遇难。图为发布会现场。"
    for question in ("坠毁的ZX9031航班上有多少人", "墜毀的ZX9031航班上有多少人"):
        verdict = reasoner._judge(question, "", text)
        assert verdict.score == 1 and verdict.followup == ""


def test_a_film_s_own_title_is_not_replaced(reasoner):
    text = "1992年，一部名为《青州夜谈》的纪录片上映，导演是陆远舟。"
    verdict = reasoner._judge("《青州夜谈》是什么类型的电影", "", text)
    assert "《" not in verdict.followup.replace("《青州夜谈》", "")
    assert verdict.followup == ""


def test_a_relative_clause_is_still_the_bridge_s_description(reasoner):
    # The rule keeps the two-hop follow-up: "李明远出生的小镇" is a description, with 的.
    text = "李明远是一位造纸匠人，他出生在青石镇。"
    verdict = reasoner._judge("李明远出生的小镇坐落在哪条江边？", "李明远", text)
    assert verdict.score == 1 and verdict.followup == "青石镇坐落在哪条江边？"


def test_a_count_before_a_noun_names_no_bridge():
    # Read as written, jieba takes "名機組人員" of "9名機組人員" for a name; it is a count.
    sentence = "機長所在的9名機組人員中，陸遠舟最年長。"
    entity, _ = bridge("事故航班的機長出生在哪裡？", [sentence])
    assert entity == "陸遠舟"


def test_a_fragment_of_the_question_s_own_words_carries_nothing():
    question = "《青州夜谈》是什么类型的电影"
    assert not carries(question, "《青州夜谈》;")
    assert carries(question, "《青州夜谈》是一部纪录电影。")


def test_a_preposition_before_a_name_stays_and_one_of_is_no_count(reasoner):
    text = "李明远是一位造纸匠人，他出生在青石镇。"
    verdict = reasoner._judge("从李明远出生的小镇出发的列车开往哪里？", "李明远", text)
    assert verdict.followup == "从青石镇出发的列车开往哪里？"
    entity, _ = bridge(
        "《青州夜谈》的编剧出生在哪里？", ["《青州夜谈》的编剧之一陆远舟出生于青州。"]
    )
    assert entity == "陆远舟"


def test_an_english_question_holding_a_chinese_name_is_read_as_english(reasoner):
    # "the ship commanded by 沈秋禾" has no 的, and needs none: the clause is English.
    text = (
        "沈秋禾 was a sea captain. In 1599 she was given command of the Saltwren, a merchant ship."
    )
    verdict = reasoner._judge("Which guild built the ship commanded by 沈秋禾?", "沈秋禾", text)
    assert verdict.followup == "Which guild built the Saltwren?"


def test_a_description_of_the_question_s_own_flight_is_no_bridge(reasoner):
    # "一起青州客机坠毁事故" describes the crash of ZX9031 itself: "坠毁的ZX9031航班" names
    # the flight (its name after the last 的), so there is nothing else to ask about.
    text = (
        "青州航空ZX9031号班机空难，是发生于2030年3月21日的一起青州客机坠毁事故。"
        "失事飞机是由青州航空执飞的客机，自云港飞往青州，航班号为ZX9031。"
    )
    for question in ("坠毁的ZX9031航班上有多少人", "墜毀的ZX9031航班上有多少人"):
        verdict = reasoner._judge(question, "", text)
        assert verdict.followup == "", verdict.followup


# A follow-up is a question about the bridge: the description it replaces describes another
# thing, and what is left of the question still asks something. Each case below was a
# follow-up these rules now refuse ("哪个国家主办了王思平？", "王思平收为多少？").


def test_a_description_holding_what_is_asked_is_no_bridge(reasoner):
    # "…的营收为多少": the revenue is what is asked; a name put in its place asks nothing.
    text = "云岭药业上半年财报显示，王思平出任总裁。"
    assert reasoner._judge("云岭药业上半年的营收为多少？", "", text).followup == ""
    # The noun after the description's 的 is another thing, asked about: a bridge.
    town = "李明远是一位造纸匠人，他出生在青石镇。"
    verdict = reasoner._judge("李明远出生的小镇的镇长是谁？", "李明远", town)
    assert verdict.followup == "青石镇的镇长是谁？"


def test_a_date_alone_before_de_describes_nothing(reasoner):
    # "2031年的青州文化周" is the festival of that year, not a thing found by a relation.
    for question, text in (
        ("2031年的青州文化周在哪个城市举办？", "2031年青州文化周由云岭大学承办，王思平担任主席。"),
        ("2031年的青州文化周在哪個城市舉辦？", "2031年青州文化周由雲嶺大學承辦，王思平擔任主席。"),
    ):
        assert reasoner._judge(question, "", text).followup == ""


def test_a_quoted_name_after_de_is_the_question_s_own(reasoner):
    text = "云岭大学“海棠文化周”启动仪式在青州举行，王思平致辞。"
    assert reasoner._judge("哪个国家主办了云岭大学的“海棠文化周”？", "", text).followup == ""


def test_common_words_tagged_nouns_are_no_bridge(reasoner):
    # jieba tags 基本 and 持平 nouns; together they are no name to ask about.
    text = "李明远出生的小镇去年人口基本持平。"
    assert reasoner._judge("李明远出生的小镇坐落在哪条江边？", "", text).followup == ""


def test_a_follow_up_never_ends_inside_a_title(reasoner):
    # The description ran into 《山花图谱》: what is left would open a title it never closes.
    text = "《山花图谱》是一部植物图谱，1948年由怀远画社出版。"
    question = "与林秋雁合著《山花图谱》的画家出生在哪里？"
    verdict = reasoner._judge(question, "山花图谱", text)
    assert verdict.followup.count("《") == verdict.followup.count("》"), verdict.followup


def test_a_noun_a_relative_clause_describes_is_replaced_with_the_clause(reasoner):
    # "The river Salt flows through the village": not the village where Marta Lind was born.
    # The description is "the village where Marta Lind was born", and this chunk names
    # no village of hers; the verb before it ("flows through") stays in the question.
    question = "Which river flows through the village where Marta Lind was born?"
    text = "Ostvik is a village in the Kessel valley. The river Salt flows through the village."
    assert reasoner._judge(question, "Ostvik", text).followup == ""
    own = "Marta Lind was a weaver. She was born in the village of Ostvik."
    verdict = reasoner._judge(question, "Marta Lind", own)
    assert verdict.followup == "Which river flows through Ostvik?"


def test_a_follow_up_keeps_the_question_word(reasoner):
    # The open clause is the statement before the question: a name put into it asks nothing.
    question = (
        'Lantern Night is the third episode of the first season of "Harbor Lights". '
        "What recurring character makes his first appearance in this episode?"
    )
    text = (
        "Harbor Lights is an American comedy series. "
        "The third episode of the first season was written by Ada Quill."
    )
    assert reasoner._judge(question, "Harbor Lights", text).followup == ""


def test_a_relative_clause_that_asks_is_asked_of_the_bridge(reasoner):
    # All before "that" describes the series; the clause after it asks, now of Harbor Lights.
    question = "Ada Quill starred in a series that originally broadcast on what station?"
    text = (
        "Ada Quill is an American actress. She is known for her role in the series Harbor Lights."
    )
    verdict = reasoner._judge(question, "Ada Quill", text)
    assert verdict.followup == "Harbor Lights originally broadcast on what station?"


def test_an_inverted_question_keeps_its_verb_and_the_bridge_is_a_name(reasoner):
    # "In what year was <the man that resigned as …> born?": the relative clause describes the
    # man and ends before "born", the question's own verb. The bridge is the name without
    # its possessive, and "July" of the date is no name.
    question = (
        "In what year was the man that resigned as the warden of Fenmoor before the Fenmoor "
        "council election, 1890 born?"
    )
    text = (
        "Elections for the Warden of Fenmoor were held by the council on 3 July 1890, "
        "following Oswin Marl's resignation."
    )
    verdict = reasoner._judge(question, "Fenmoor council election, 1890", text)
    assert verdict.followup == "In what year was Oswin Marl born?"


def test_a_role_s_holder_takes_the_place_of_the_whole_description(reasoner):
    # "served as the first warden": a role is no entity; the man who held it is the bridge.
    question = "In what year was the man who served as the first warden of Fenmoor born?"
    text = "Fenmoor is a salt town. Tobiah Crane was the first warden of Fenmoor."
    verdict = reasoner._judge(question, "Fenmoor", text)
    assert verdict.followup == "In what year was Tobiah Crane born?"
    # An entity inside a relative clause is replaced alone: the player is still asked about.
    question = "What position did the player who plays for the capital of Veyra play?"
    verdict = reasoner._judge(question, "Port Calder", "Port Calder is the capital of Veyra.")
    assert verdict.followup == "What position did the player who plays for Port Calder play?"


def test_a_participle_that_asks_is_asked_of_the_bridge_the_governing_verb_names(reasoner):
    # "…hit a province named after which river?": the province is what the storm hit, so the
    # bridge is the name after "hit", not the "United Provinces" the chunk also names, and
    # the participle phrase is asked of it.
    question = "The first storm of the 1871 Fenmoor gales hit a province named after which river?"
    text = (
        "The 1871 Fenmoor gales crossed the northern half of the United Provinces. The first "
        "storm, including the Marl squall, hit eastern Kessel Vale on the night of 3 May."
    )
    verdict = reasoner._judge(question, "1871 Fenmoor gales", text)
    assert verdict.followup == "Kessel Vale is named after which river?"


def test_a_stretch_takes_the_question_s_name_whole():
    from treerag.reasoning.followup_question import _whole_names

    clause = "Toad Hall is a residential hall in a college"
    assert _whole_names(clause, clause.index("Hall"), len(clause)) == (0, len(clause))
    assert _whole_names(clause, clause.index("residential"), len(clause)) == (
        clause.index("residential"),
        len(clause),
    )


def test_a_participle_after_the_question_word_asks_nothing_of_the_bridge(reasoner):
    # "When was the lighthouse built in the town where…": "when" asks of the lighthouse; the
    # "where" in the participle phrase is a relative word, and the town is the bridge.
    question = "When was the lighthouse built in the town where Pavel Orsk was born?"
    text = "Pavel Orsk was an engraver. He was born in the harbour town of Duneport."
    verdict = reasoner._judge(question, "Pavel Orsk", text)
    assert verdict.followup == "When was the lighthouse built in Duneport?"
    # A town's document that does not name Pavel Orsk asks nothing ("Lorne is built in…").
    text = (
        "Duneport is a harbour town at the mouth of the river Lorne. Its lighthouse was built "
        "in 1854."
    )
    assert reasoner._judge(question, "Duneport", text).followup == ""


def test_a_possessive_description_is_replaced_by_the_name_beside_it(reasoner):
    text = (
        "The Lantern Window is a stained-glass window, made in 1899. The glass was cut by "
        "Maren Holt and her apprentice, Tobias Renn."
    )
    question = "In which town did Maren Holt's apprentice open his workshop?"
    verdict = reasoner._judge(question, "The Lantern Window", text)
    assert verdict.score == 1
    assert verdict.followup == "In which town did Tobias Renn open his workshop?"


def test_a_chinese_description_ends_before_the_verb(reasoner):
    text = "望川大桥横跨青川江，1958年建成通车。大桥的设计者是建筑师唐若梅。"
    verdict = reasoner._judge("望川大桥的设计者毕业于哪所学校？", "望川大桥", text)
    assert verdict.followup == "唐若梅毕业于哪所学校？"


def test_the_words_that_qualify_the_described_noun_go_with_the_description(reasoner):
    # "the home port of Lena Korr" is Halvey: "home" goes with it ("…in the home Halvey?").
    question = "When was the customs house built in the home port of Lena Korr?"
    text = "Lena Korr was an architect from the port of Halvey."
    verdict = reasoner._judge(question, "Lena Korr", text)
    assert verdict.followup == "When was the customs house built in Halvey?"


def test_a_demonym_before_a_noun_is_no_bridge():
    # "Canadian actor" says what kind of actor he is; the actor is the bridge.
    question = 'Who did the actor who starred as Constable Tam Reyes in "Harbour Lights" marry?'
    sentence = "The character is portrayed by Canadian actor Lio Vance."
    assert bridge(question, [sentence])[0] == "Lio Vance"


def test_another_form_of_the_question_s_own_name_is_no_bridge():
    # Her document opens with her names at birth and in full; the town she was born in is
    # the bridge.
    question = (
        "At the 2031 census, what was the population of the town where Ida Vell-Marsh was born?"
    )
    sentences = [
        "Ida-Rose Vell-Marsh, born Ida Vell AM (born 2 June 1961) is a retired race walker.",
        "She was born in Tarrow, Kessland and grew up in Brill, Kessland.",
    ]
    assert bridge(question, sentences)[0] == "Tarrow"


def test_a_name_with_an_initial_is_the_bridge(reasoner):
    # "K. Orlen" was read as no name at all (the initial's full stop ended it), and the tree
    # asked about the next name of the chunk instead.
    question = "Salt Winter is the third studio album by a singer-songwriter from what state?"
    text = (
        "Salt Winter, released in 2031, is the third studio album by singer-songwriter K. "
        "Orlen. The title alludes to the life of Vesna Hale, a close friend to Orlen."
    )
    verdict = reasoner._judge(question, "Salt Winter", text)
    assert verdict.score == 1
    assert verdict.followup == "Where is K. Orlen from?"
