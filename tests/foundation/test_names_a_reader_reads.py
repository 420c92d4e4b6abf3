"""Names and words read in one canonical form: a person jieba cuts apart, a Traditional
question's words, a name said with 的 inside it, a described noun after 那項."""

from treerag.reasoning.answering import answering
from treerag.reasoning.bridging import bridge, type_word
from treerag.reasoning.followup_question import followup
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import text_stems, with_equivalents
from treerag.reasoning.text import content_terms
from treerag.text import READING, proper_names

SCHOOL = "白沙高級中學\n\n白沙高級中學是位於白沙鎮的一所公立高級中學，簡稱「白中」。"
PAINTER = (
    "林秋月\n\n林秋月是臺灣的女性西洋畫家。"
    "1926年，她隻身前往日本東京，就讀女子美術專門學校西洋畫科。"
)


def test_a_person_opening_a_question_is_its_entity_where_jieba_cuts_the_name_apart():
    assert read_question("林秋月到東京留學時進入的是哪一所學校？").entities == ("林秋月",)
    assert read_question("許明哲擔任他所創辦學校的董事長多少年？").entities[0] == "许明哲"
    # A word jieba knows whole is no surname and given name: 林口 is a place.
    assert read_question("林口是在哪个县").entities == ()
    assert read_question("黄金的价格是多少").entities == ()


def test_the_school_a_person_entered_is_read_in_her_document_not_in_another_school_s():
    question = "林秋月到東京留學時進入的是哪一所學校？"
    assert answering(question, "白沙高級中學", SCHOOL) is None
    found = answering(question, "林秋月", PAINTER)  # 就讀 says 進入 of a school
    assert found is not None and "女子美术专门学校西洋画科" in found.candidates


def test_a_traditional_question_s_words_are_the_simplified_question_s():
    traditional = "以濁水溪作為濁幹線水源的那項灌溉工程，其設計者是誰？"
    simplified = "以浊水溪作为浊干线水源的那项灌溉工程，其设计者是谁？"
    assert [fold(t) for t in content_terms(traditional)] == content_terms(simplified)
    assert "灌溉工程" in content_terms(simplified)


def test_the_noun_a_demonstrative_and_its_measure_word_point_at_is_the_bridge_s_kind():
    question = "以濁水溪作為濁幹線水源的那項灌溉工程，其設計者是誰？"
    assert type_word(question, set(), "") == "灌溉工程"
    assert "那幅" not in read_question("林秋月入選臺展的那幅油畫描繪哪條河？").relation


def test_a_name_of_the_question_said_with_de_inside_it_singles_out_the_bridge_s_sentence():
    question = "以濁水溪作為濁幹線水源的那項水利設施，位於哪個縣？"
    sentences = [
        "上游的萬大水庫則以發電為主，由臺灣電力公司管理。",
        "中下游的嘉南大圳，以濁水溪作為濁幹線的水源，灌溉雲林一帶的農田。",
    ]
    entity, sentence = bridge(question, sentences, set(), "濁水溪")
    assert sentence == sentences[1]


def test_a_name_jieba_reads_as_common_words_and_morphemes_opening_a_question_is_its_entity():
    reading = read_question("東崁科技大學在剛創立時的校名是什麼？")
    assert reading.entities == ("东崁科技大学",)
    assert reading.relation == ("创立", "校名")
    assert read_question("楓林文昌祠是在清朝哪一個皇帝年號興建的？").entities == ("枫林文昌祠",)
    # A name already read in the phrase stays the entity: the document says 白沙高級中學.
    assert read_question("白沙高中的划船隊都在什麼地方訓練？").entities == ("白沙",)
    assert read_question("城市人口最多的是哪个").entities == ()


def test_how_long_and_about_are_no_relation_a_sentence_must_say():
    relation = read_question("臨港線改建成自行車道的部分大約有幾公里長？").relation
    assert "大约" not in relation and "改建" in relation
    assert "多久" not in read_question("翠峰湖是在多久以前形成的？").relation
    # A verb of naming is what a question for another name asks (又稱, 稱為).
    assert "称为" in read_question("臺北國際馬拉松又被稱為什麼?").relation


def test_a_person_jieba_cuts_apart_is_read_whole_in_a_sentence():
    sentence = "1931年，剛從日本學成返臺的畫家林秋月應邀為廟內的門神繪製彩繪。"
    assert "林秋月" in proper_names(sentence, READING)
    question = "1931年替霧溪慈雲宮繪製門神彩繪的那位女畫家，是在哪一年辭世的？"
    assert bridge(question, [sentence], set(), "霧溪慈雲宮")[0] == "林秋月"


def _asked(question: str, chunk: str, entity: str, named: str) -> str:
    return followup(question, with_equivalents(text_stems(fold(chunk))), entity, named)


def test_the_bridge_takes_the_place_of_the_whole_description_it_answers():
    # A date and a preposition before the name the description is built on are of it.
    question = "1931年替霧溪慈雲宮繪製門神彩繪的那位女畫家，是在哪一年辭世的？"
    chunk = "林秋月 返臺後的1931年，她應霧溪慈雲宮之邀，為廟內的門神繪製彩繪。"
    assert _asked(question, chunk, "林秋月", "霧溪慈雲宮") == "林秋月是在哪一年辭世的？"
    # A temple is named by its kind's last character (祠 for 祠廟).
    question = "陳文瀾小時候讀漢文的那座祠廟，祠前廣場上的惜字亭是哪一年建造的？"
    chunk = "楓林文昌祠 出身楓林的技師陳文瀾幼年即在這裡讀書，學習了6年的漢文。"
    asked = _asked(question, chunk, "楓林文昌祠", "陳文瀾")
    assert asked == "楓林文昌祠祠前廣場上的惜字亭是哪一年建造的？"
    # A description built on the noun described, where the chunk says the words between.
    question = "林秋月1929年入選臺展的那幅油畫所描繪的河流，主流全長大約是多少?"
    chunk = "林秋月 1929年，她以描繪霧溪渡船景象的油畫《霧溪晨舟》入選臺展。"
    assert _asked(question, chunk, "霧溪", "林秋月") == "霧溪主流全長大約是多少？"


def test_a_river_named_by_its_ending_is_the_river_a_description_asks_for():
    question = "林秋月1929年入選臺展的那幅油畫所描繪的河流，主流全長大約是多少?"
    sentence = "1929年，她以描繪霧溪下游渡船景象的油畫《霧溪晨舟》入選臺灣美術展覽會。"
    assert type_word(question, set(), sentence) == "河流"
    assert bridge(question, [sentence], set(), "林秋月")[0] == "霧溪"


def test_a_place_in_a_clause_about_a_relative_is_no_link_of_the_subject_s_chain():
    sentence = (
        "他出生于鹤汀渡西街的一户茶商人家，父亲柳成章常年往来于桐川府贩茶，母亲吴氏则出生于栖州。"
    )
    entity, _ = bridge("柳知远出生的那个镇在哪条河边？", [sentence], set(), "柳知远")
    assert entity.startswith("鹤汀")


def test_a_question_that_describes_nothing_is_not_answered_through_a_tributary():
    tributary = (
        "東崁溪\n\n東崁溪是霧溪流程最長的支流，在霧溪鎮東郊匯入霧溪主流。"
        "近年此溪上游成為登山地點，東崁溪步道全長約9.6公里。"
    )
    found = answering("霧溪主流全長大約是多少？", "東崁溪", tributary)
    assert found is None or found.scoped
    # A thing the question says there is ("…曾有一家紡織廠，它…") is a description the chain
    # answers through.
    mill = "永綸紡織廠\n\n永綸紡織廠的廠址在蘆汀鎮的河畔。全盛時期，該廠僱有工人約兩千三百名。"
    found = answering("蘆汀鎮上曾有一家紡織廠，它全盛時期僱有多少工人？", "永綸紡織廠", mill)
    assert found is not None and found.filler == "两千三百名"
    river = "霧溪\n\n霧溪是清原縣最大的河川。主流全長約78.4公里，流域面積達612平方公里。"
    found = answering("霧溪主流全長大約是多少？", "霧溪", river)
    assert found is not None and found.filler == "78.4"


def test_here_in_a_temple_s_document_is_the_temple_the_question_describes(reasoner):
    question = "陳文瀾小時候讀漢文的那座祠廟，祠前廣場上的惜字亭是哪一年建造的？"
    paragraph = (
        "光緒年間，出身楓林的鐵道技師陳文瀾幼年即在這裡讀書，"
        "據說他在此學習了6年的漢文，打下深厚的學問基礎。"
    )
    asked = reasoner.followup(question, "楓林文昌祠", paragraph)
    assert asked == "楓林文昌祠祠前廣場上的惜字亭是哪一年建造的？"
