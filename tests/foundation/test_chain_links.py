"""The links of a chain a partial chunk holds, read in both languages (made-up documents).

- A Chinese name is read whole by the noun it ends in, the type word of the description
  ("…就讀的學院" → 滄瀾工學院 of "就讀於滄瀾工學院"), where jieba's tags cut it apart.
- A description may point ("…出生的那个镇上") and end in a locative; a noun after a first
  clause that describes the bridge is the bridge's own ("…的學院，創辦人是…" → "X的創辦人").
- A person named after a profession is not glued to its last character (画家 + 葛秋原).
- A chunk walks on to a further link only through a sentence about the entity it walks from.
- Follow-ups about different entities are no duplicates of each other.
- English: a description without its "that" ("the school Edda Vell attended"), an aside
  about another thing ("…, which Hesper Lorn had founded"), an irregular past ("sank").
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.bridging import bridge
from treerag.reasoning.followup_question import followup
from treerag.reasoning.questions import near_duplicate
from treerag.reasoning.text import content_terms, stems


def _asked(question: str, chunk: str, entity: str, title: str = "") -> str:
    return followup(question, stems(content_terms(chunk)), entity, title)


def test_a_chinese_name_is_read_whole_by_the_noun_it_ends_in():
    sentences = ["嚴若谷於1880年出生在霜港。", "他年輕時就讀於滄濤工學院，主修測量。"]
    entity, said = bridge("嚴若谷就讀的學院，創辦人是誰？", sentences)
    assert (entity, said) == ("滄濤工學院", sentences[1])
    sentences = ["1920年，他创办了望川美术学校。"]
    assert bridge("葛远创办的学校在哪里？", sentences)[0] == "望川美术学校"
    # A school pointed at or counted is no name.
    assert bridge("他读书的学校在哪里？", ["他在这所学校读书。"])[0] == ""


def test_a_pointed_description_ending_in_a_locative_is_replaced():
    question = "柳溪出生的那个镇上，石桥是哪年建的？"
    chunk = "柳溪1926年生于青砚镇。"
    assert _asked(question, chunk, "青砚镇", "柳溪") == "青砚镇上，石桥是哪年建的？"


def test_a_noun_after_the_description_is_the_bridges_own():
    question = "嚴若谷就讀的學院，創辦人是哪一年出生的？"
    chunk = "他年輕時就讀於滄濤工學院，主修測量。"
    assert _asked(question, chunk, "滄濤工學院", "嚴若谷") == "滄濤工學院的創辦人是哪一年出生的？"
    # A verb after it says what the bridge did.
    question = "柳溪的老师，出生在哪里？"
    assert _asked(question, "柳溪早年师从葛远。", "葛远", "柳溪") == "葛远出生在哪里？"


def test_a_person_named_after_a_profession_keeps_the_first_character():
    entity, _ = bridge("柳溪的老师是哪一年出生的？", ["她早年师从山水画家葛秋原。"])
    assert entity == "葛秋原"


def test_a_chunk_walks_on_only_from_the_entity_its_sentence_is_about(reasoner):
    question = "柳溪的老师创办的学校是哪一年搬进新校舍的？"
    text = "柳溪是一位水墨画家。她早年师从山水画家葛秋原。后来她在鹭台美术馆举办过三次个展。"
    verdict = reasoner._judge(question, "柳溪", text)
    # Not "鹭台美术馆是哪一年搬进新校舍的？": the gallery is in a sentence about her.
    assert verdict.score == 1 and verdict.followup == "葛秋原创办的学校是哪一年搬进新校舍的？"


def test_follow_ups_about_different_entities_are_no_duplicates():
    asked = "柳溪的老师创办的学校是哪一年搬进新校舍的？"
    assert not near_duplicate("葛秋原创办的学校是哪一年搬进新校舍的？", asked)
    assert near_duplicate("柳溪的老师创办的学校哪一年搬进新校舍？", asked)


def test_a_moving_in_is_said_by_either_verb():
    found = answering(
        "望川美术学校是哪一年搬进新校舍的？", "望川美术学校", "1956年，它迁入新校舍。"
    )
    assert found is not None and found.filler == "1956"


def test_a_description_without_its_that_is_replaced_whole():
    question = "Where was the founder of the school Edda Vell attended born?"
    chunk = "Edda Vell trained at the Senna Point School."
    asked = _asked(question, chunk, "the Senna Point School")
    assert asked == "Where was the founder of the Senna Point School born?"


def test_an_aside_about_another_thing_answers_nothing(reasoner):
    question = "Who founded the shipworks that built the Grey Tern?"
    text = (
        "The Grey Tern was a schooner launched in 1902. It was built by the Selk Shipworks "
        "for the Marran Salt Company, which Hesper Lorn had founded in 1879."
    )
    assert answering(question, "The Grey Tern", text) is None
    verdict = reasoner._judge(question, "The Grey Tern", text)
    assert verdict.score == 1 and verdict.followup == "Who founded the Selk Shipworks?"
    # An aside about the noun the question describes does answer.
    said = "The Grey Tern was built by the Selk Shipworks, which Bram Oake had founded in 1894."
    found = answering(question, "", said)
    assert found is not None and found.filler == "Bram Oake"


def test_an_irregular_past_is_its_verb():
    text = "The Grey Tern was a schooner. It sank off Cape Vorrel in 1919."
    found = answering("What year did the Grey Tern sink?", "The Grey Tern", text)
    assert found is not None and found.filler == "1919"


def test_a_sentence_about_a_relative_is_not_about_the_subject():
    text = (
        "The architect Nora Vell, a native of Dunmoor, studied in Callow. "
        "Her younger sister, Ada, was born in Brackwater."
    )
    found = answering("Where was Nora Vell born?", "Nora Vell", text)
    assert found is not None and found.filler == "Dunmoor"
    zh = "建築師溫若蘭，1921年生於蘆城鎮。她的妹妹溫若梅則是在汐港出生的。"
    found = answering("溫若蘭是在哪裡出生的？", "溫若蘭", zh)
    assert found is not None and "蘆城鎮" in found.sentence


def test_a_noun_the_sentence_goes_on_to_name_is_that_name():
    sentences = ["它的东岸有一座古寺，名为栖霞寺；西岸有一座村庄。"]
    assert bridge("青镜湖东岸的寺院是哪一年创建的？", sentences)[0] == "栖霞寺"


def test_a_name_after_a_preposition_or_a_pronoun_is_read_without_them():
    sentences = ["1931年春，她以澄镜湖为题材写下了交响诗。"]
    assert bridge("柳溪为之写交响诗的那座湖面积有多大？", sentences)[0] == "澄镜湖"
    chunk = f"柳溪 {sentences[0]}"  # the document's subject and its sentence
    asked = _asked("柳溪为之写交响诗的那座湖面积有多大？", chunk, "澄镜湖", "柳溪")
    assert asked == "澄镜湖面积有多大？"


def test_a_person_the_type_word_is_said_to_be():
    # jieba reads 建築師范若溪 as 建築 / 師范 (a normal school) / 若溪.
    sentences = ["她的老師是建築師范若溪，兩人相識於海城美術學院。"]
    assert bridge("莫清的老師是哪一年出生的？", sentences)[0] == "范若溪"


def test_a_pointed_noun_joined_without_de_and_a_later_asking_clause():
    question = "在青岭铁路北端终点那个镇出生的作曲家是谁？"
    asked = _asked(question, "青岭铁路的北端终点是梧桐镇。", "梧桐镇", "青岭铁路")
    assert asked.startswith("梧桐镇出生的作曲家是谁")
    question = "莫清的老師出生的那個鎮上曾有一家紡織廠，它的創辦人是誰"
    asked = _asked(question, "她的老師是建築師溫若蘭。", "溫若蘭", "莫清")
    assert asked == "溫若蘭出生的那個鎮上曾有一家紡織廠，它的創辦人是誰？"


def test_a_count_and_a_locative_are_no_relation_and_a_founder_is_said_by_founding():
    question = "蘆城鎮上曾有一家紡織廠，它的創辦人是誰？"
    text = "永安紡織廠由商人唐伯言於1897年創辦，廠址在蘆城鎮的河畔。"
    found = answering(question, "永安紡織廠", text)
    assert found is not None and found.filler == "唐伯言"


def test_a_name_written_in_traditional_is_kept_as_written():
    from treerag.reasoning.wording import name_in_script

    assert name_in_script("范靜宜", "zh-hant") == "范靜宜"  # s2t would write 範
    assert name_in_script("云纹纸", "zh-hant") == "雲紋紙"


def test_numbers_in_chinese_numerals_and_what_jieba_glues_to_names_and_counts():
    from treerag.reasoning.reading import read_question

    # "青镜湖面积": the lake, and the attribute asked of it.
    assert read_question("青镜湖面积有多大？").entities == ("青镜湖",)
    found = answering("青镜湖面积有多大？", "青镜湖", "青镜湖位于南山北麓，面积约十二平方公里。")
    assert found is not None and found.filler == "十二"
    # "多少首诗": 首 counts the poems; the poems are the term.
    text = "她的第一部诗集《潮声》于1958年出版，共收录诗作六十二首。"
    found = answering("莫清的第一部诗集收录了多少首诗？", "莫清", f"莫清\n\n{text}")
    assert found is not None and found.filler == "六十二"
    # One thing counted is no value: "一座古寺" answers no "how many".
    assert answering("青镜湖有多少名僧人？", "青镜湖", "它的东岸有一座古寺。") is None


def test_an_english_role_is_anchored_by_its_verb_and_an_object_described_by_a_relative():
    sentence = "Velm Glassworks was founded in 1868 by the industrialist Tobin Quarry in the market town of Hadby."
    assert bridge("In which town was the founder of Velm Glassworks born?", [sentence])[0] == (
        "Tobin Quarry"
    )
    question = (
        "What year was the market charter granted to the town where Velm Glassworks was founded?"
    )
    asked = _asked(question, sentence, "Hadby")
    assert asked == "What year was the market charter granted to Hadby?"


def test_a_chinese_founder_teacher_or_birthplace_is_read_by_its_pattern():
    said = "澄濤印書館於1897年由出版家鍾遠昌在蘅州創辦。"
    assert bridge(
        "澄濤印書館的創辦人是哪年出生的？", ["它最初名為「澄濤書局」，僱有四百多名工人。", said]
    )[0] == ("鍾遠昌")
    studied = "他年少時在蘅州求學，師從化學家藺思平，學習油墨的調製。"
    assert bridge("鍾遠昌的老師出生在哪個村？", [studied])[0] == "藺思平"
    born = "指挥家祁远秋1967年4月出生于鹭洲屿，少年时随家人迁居雁川。"
    assert bridge("祁远秋出生的那座岛上，灯塔是哪一年建成的？", [born])[0] == "鹭洲屿"
    # A sentence about her brother is no link of her chain.
    brother = "她的哥哥祁远川是一位大提琴手，1964年生于雁川。"
    assert bridge("祁远秋出生的那座岛上，灯塔是哪一年建成的？", [brother])[0] == ""


def test_a_person_is_not_put_in_the_place_of_a_described_place():
    question = "岚湾乐团首席指挥出生的那座岛上，灯塔是哪一年建成的？"
    chunk = "岚湾乐团 自2003年起，该团的首席指挥由祁远秋担任。"
    asked = _asked(question, chunk, "祁远秋", "岚湾乐团")
    assert asked == "祁远秋出生的那座岛上，灯塔是哪一年建成的？"


def test_what_the_latter_did_and_a_building_said_by_either_verb():
    text = "指挥家祁远秋出生于鹭洲屿。她早年师从指挥家闵叔平，后者生于雁川，曾执掌歌剧院。"
    found = answering("祁远秋是在哪里出生的？", "祁远秋", text)
    assert found is not None and found.filler == "鹭洲屿"
    lighthouse = "鹭洲屿\n\n鹭洲屿是一座小岛。它北端的灯塔建于1893年。"
    found = answering("鹭洲屿上，灯塔是哪一年建成的？", "鹭洲屿", lighthouse)
    assert found is not None and found.filler == "1893"


def test_the_described_noun_the_chunk_says_is_the_bridges_kind():
    question = "鄔清芷的丈夫擔任廠長的那家釀酒廠是哪一年創立的？"
    said = "她的丈夫聶遠舟是麥川釀酒廠的第三任廠長，生於一九三五年。"
    assert bridge(question, [said], {"丈夫", "厂长", "酿酒厂"})[0] == "麥川釀酒廠"
    # A verb before the noun pointed at describes it; a verb in a name after a proper noun.
    question = "临泾村里的那家织布合作社一共有多少名社员？"
    said = "该村以织布闻名，青梭织造合作社就设在村里。"
    assert bridge(question, [said], {"织布", "合作社"})[0] == "青梭织造合作社"


def test_a_captain_a_teacher_after_a_profession_and_a_birthplace_after_its_verb():
    said = "澜江航海学堂是一所学校，由远洋船长岑远舟于1903年创办。"
    assert bridge("澜江航海学堂的创办人是在哪里出生的？", [said])[0] == "岑远舟"
    text = "鄔清芷是一位小提琴製作師。她早年師從老琴匠喬慕言，二十歲時開設了工坊。"
    found = answering("小提琴製作師鄔清芷的老師叫什麼名字？", "鄔清芷", f"鄔清芷\n\n{text}")
    assert found is not None and found.filler == "乔慕言"
    born = "岑远舟\n\n岑远舟是一位远洋船长。他于1861年生于临泾，父亲在那里经营船坞。"
    found = answering("岑远舟是在哪里出生的？", "岑远舟", born)
    assert found is not None and found.filler == "临泾"


def test_a_role_right_after_a_name_is_the_first_link_of_a_longer_chain(reasoner):
    question = "青梧日報創辦人出生的那個村子舊稱什麼？"
    paper = "《青梧日報》是一份地方日報，由報人鍾遠帆於1908年創辦。它的出資人是他的表兄鍾遠舟。"
    # The paper's document names the founder, not his village: the founder is the bridge,
    # and the description of the village goes on after him.
    verdict = reasoner._judge(question, "青梧日報", paper)
    assert verdict.followup == "鍾遠帆出生的那個村子舊稱什麼？"
    # His own document names the village: the next link ("村子" is a 村).
    person = (
        "鍾遠帆（1870年－1941年）是報人。他生於白渠村一個漁戶家庭。1908年他創辦了《青梧日報》。"
    )
    verdict = reasoner._judge(question, "鍾遠帆", person)
    assert verdict.followup == "白渠村舊稱什麼？"


def test_what_is_asked_of_the_place_pointed_at_is_no_part_of_it(reasoner):
    # A one-character place pointed at ends there: its highest peak is what is asked.
    verdict = reasoner._judge(
        "葛秋原出生的那个岛最高峰海拔多少米？", "葛秋原", "葛秋原生於鷺汀島。"
    )
    assert verdict.followup == "鹭汀岛最高峰海拔多少米？"
    # An attribute the chunk happens to say of itself (原名) does not extend the description.
    chunk = "潮聲樂團由大提琴家韋若蘭於1931年創辦，原名「潮聲絃樂社」。"
    verdict = reasoner._judge("潮聲樂團創辦人出生的那座島古稱什麼？", "潮聲樂團", chunk)
    assert verdict.followup == "韋若蘭出生的那座島古稱什麼？"


def test_the_name_the_type_word_gives_beats_a_nearer_one():
    sentence = "潮聲樂團是一支管弦樂團，由大提琴家韋若蘭於1931年創辦，原名「潮聲絃樂社」。"
    assert bridge("潮聲樂團的創辦人是在哪裡出生的？", [sentence])[0] == "韋若蘭"


def test_the_name_a_verb_of_the_question_governs_is_the_bridge():
    sentences = [
        "In 1838 Corvin moved to Wexby, where he married Ada Lorn, a native of Stave End.",
        "He was born at Millhaven, the eldest son of a ropemaker.",
    ]
    question = "how many people lived in the town where Corvin Ashby was born"
    assert bridge(question, sentences, None, "Corvin Ashby")[0] == "Millhaven"
    sentences = [
        "Ada Lorn was a lighthouse keeper on the Wendle coast.",
        "From 1861 she kept Skerry Light.",
    ]
    question = "Which island does the lighthouse Ada Lorn kept stand on?"
    assert bridge(question, sentences, None, "Ada Lorn")[0] == "Skerry Light"


def test_a_preposition_stranded_at_the_end_goes_with_the_description():
    question = "who set up the mill Ada Lorn's father worked at"
    chunk = "Ada Lorn grew up in Wexby. Her father, Sam Lorn, worked as a miller at Wexby Mill."
    assert _asked(question, chunk, "Wexby Mill", "Ada Lorn") == "Who set up Wexby Mill?"


def test_a_place_said_of_the_entity_is_not_its_teacher_s():
    question = "沈秋帆的老师是哪里人？"
    text = "画僧沈秋帆曾在寺中居住十余年，他籍贯栖州，早年师从刻书家柳远山学习版画。"
    assert answering(question, "净云寺", text) is None
    # The teacher is read after 师从 though what was learnt follows his name.
    assert bridge(question, [text])[0] == "柳远山"


def test_a_year_closing_the_question_is_not_the_relative_clause_s():
    question = "how many people lived in the town where Corvin Ashby was born at the 1911 census"
    asked = _asked(question, "Corvin Ashby was born at Millhaven.", "Millhaven", "Corvin Ashby")
    assert asked == "How many people lived in Millhaven at the 1911 census?"


def test_an_english_agent_noun_is_said_by_its_irregular_verb(reasoner):
    text = (
        "Skerry Light is a lighthouse on the isle of Caddow. The tower was designed by the "
        "engineer Ada Venn, and the clockwork that turned its lens was made by the millwright "
        "Corvin Ashby."
    )
    question = "Where was the maker of the clockwork of Skerry Light born?"
    verdict = reasoner._judge(question, "Skerry Light", text)
    assert verdict.followup == "Where was Corvin Ashby born?"
