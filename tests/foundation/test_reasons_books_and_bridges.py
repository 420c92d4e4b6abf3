"""Why-questions, a book asked for, a section of the bridge's document, a sentence of no bridge.

Made-up encyclopedia paragraphs in Traditional script (a river, a marathon, a printer, a
temple and the painter who decorated it), read as the offline reasoner reads them.
"""

from treerag.nodes.answer import build_evidence
from treerag.reasoning.answering import answering
from treerag.reasoning.bridging import bridge
from treerag.reasoning.compose import chain
from treerag.reasoning.fallback import explained, states_asked
from treerag.reasoning.questions import slot
from treerag.reasoning.reading import read_question

MUDDY = "青蘆溪的溪水為何總是一片混濁？"
RACE = "2021年的澄州馬拉松為什麼要減少參賽的人數？"


def test_a_why_question_asks_the_reason_of_what_follows_its_question_word():
    assert explained(MUDDY) == ("总是", "一片", "混浊")
    assert explained(RACE) == ("减少", "参赛", "人数")
    assert explained("青蘆溪全長多少公里？") == ()


def test_a_reason_is_plain_when_it_explains_what_the_question_asks():
    kind = slot(MUDDY)
    its_mud = "由於上游流經易崩解的頁岩地層，此河的河水終年挾帶大量泥沙，呈現混濁的黃褐色。"
    its_power = "由於水量豐沛且落差大，青蘆溪被開發為水力發電的水源。"
    assert states_asked(kind, its_mud, MUDDY) == 2
    # A reason of another thing of the river: no plain statement of this one.
    assert states_asked(kind, its_power, MUDDY) == 1
    assert states_asked(kind, "青蘆溪全長約96公里。", MUDDY) == 0


def test_a_purpose_clause_is_not_what_it_explains():
    kind = slot(RACE)
    cut = "2021年因應疫情，主辦單位將參賽人數縮減為約1萬人。"
    traffic = "為了減少賽事對市區交通的衝擊，主辦單位每年都實施分段交通管制。"
    assert states_asked(kind, cut, RACE) == 2
    # 減少 is the purpose's own word here, not the runners' number cut.
    assert states_asked(kind, traffic, RACE) == 1


BOOK = "顧遠山發明銅活字的經過被記錄在哪一本書裡？"
PRINTING = (
    "銅活字\n\n"
    "最早的銅活字由工匠顧遠山於1320年前後發明，這項發明被學者蘇明儀詳細記錄在他所著的"
    "《澄江筆錄》之中。"
    "後來，農學家丁允改以木材製作活字，並把這套方法記錄於所著的《耕書》之中。"
)


def test_in_which_book_asks_for_a_thing_not_a_place():
    assert slot(BOOK) == "thing"
    assert slot("這座廟在哪裡？") == "place"
    # 本書 is the kind counted, not a word the answering sentence must say.
    assert not any("书" in t for t in read_question(BOOK).relation)


def test_the_book_the_sentence_names_for_the_question_s_invention_answers():
    found = answering(BOOK, "銅活字", PRINTING)
    assert found is not None and found.filler == "澄江笔录"


QUESTION = "1931年替青蘆慈雲宮繪製門神彩繪的那位女畫家，是在哪一年辭世的？"


def test_a_sentence_that_says_nothing_the_question_says_names_no_bridge():
    procession = "每年農曆三月，慈雲宮都會舉行為期5天的遶境活動，路線涵蓋青蘆鎮與白沙鎮共28個村里。"
    assert bridge(QUESTION, [procession], set(), "青蘆慈雲宮") == ("", "")
    painted = "1931年，剛從日本學成返臺的畫家林秋雁應邀為廟內的門神繪製彩繪。"
    entity, sentence = bridge(QUESTION, [procession, painted], set(), "青蘆慈雲宮")
    assert entity == "林秋雁" and sentence == painted


TOWN = "How many people lived in the town where Abel Worrin was born at the 1901 census?"
FOLLOWUP = "How many people lived in Stoneleigh at the 1901 census?"
CENSUS = "Stoneleigh\n\nThe census of 1901 recorded 3,140 inhabitants, and the town now has 5,200."


def test_a_population_is_said_by_its_inhabitants():
    found = answering(FOLLOWUP, "Stoneleigh", CENSUS)
    assert found is not None and found.filler == "3,140"


def test_a_kind_said_before_a_name_names_it_of_that_kind():
    light = "Hallow Light\n\nHallow Light is a lighthouse on the island of Carrow, off the coast."
    found = answering("Which island does Hallow Light stand on?", "Hallow Light", light)
    assert found is not None and found.filler == "Carrow"
    # Only where the question asks nothing but where its entity is: her birthplace is no town
    # her apprentice opened a workshop in.
    born = "Wenna Holt\n\nBorn in the mill town of Ashby in 1867, she later moved to the capital."
    assert (
        answering(
            "In which town did Wenna Holt's apprentice open his workshop?", "Wenna Holt", born
        )
        is None
    )


def test_a_chunk_of_the_run_answers_the_follow_up_its_sub_run_did_not():
    born = {
        "chunk_id": "born",
        "score": 1,
        "rank": 1,
        "title": "Abel Worrin",
        "text": "Abel Worrin was a ropemaker. He was born at Stoneleigh in 1840.",
        "followup": FOLLOWUP,
        # The sub-run found another paragraph of the town's document, not the census.
        "sub_evidence": [
            {
                "chunk_id": "rope",
                "score": 1,
                "depth": 1,
                "title": "Stoneleigh",
                "text": "Stoneleigh\n\nStoneleigh was known for its rope walks.",
            }
        ],
        "sub_answer": "Stoneleigh was known for its rope walks. [1]",
    }
    census = {"chunk_id": "census", "score": 0, "rank": 2, "title": "Stoneleigh", "text": CENSUS}
    evidence = build_evidence([born, census], 10_000)
    assert [e.chunk_id for e in evidence] == ["born", "rope", "census"]
    quotes = chain(TOWN, evidence)
    assert quotes and quotes[0].n == 3 and "3,140" in quotes[0].text


def test_a_name_asked_of_old_times_is_a_former_name():
    creek = "青蘆溪\n\n青蘆溪發源於鹿角山。此溪古稱「加禮溪」，清代文獻中亦寫作「佳里溪」。"
    found = answering("青蘆溪古時候被稱為什麼？", "青蘆溪", creek)
    assert found is not None and found.filler == "加礼溪"


def test_the_bridge_takes_the_description_s_place_before_a_word_of_time():
    from treerag.reasoning.followup_question import followup
    from treerag.reasoning.reading import fold
    from treerag.reasoning.relation_held import text_stems, with_equivalents

    question = "柳灣線這條森林鐵道所沿著爬升的那條溪流，古時候被稱為什麼？"
    said = "柳灣線起點為雙溪口站，沿青蘆溪左岸向東北爬升，終點為鹿鳴站。"
    covered = with_equivalents(text_stems(fold(f"柳灣線 {said}")))
    assert followup(question, covered, "青蘆溪", "柳灣線") == "青蘆溪古時候被稱為什麼？"


def test_the_question_asked_of_another_name_is_no_hop():
    from treerag.reasoning.partial_followup import asked_of_another

    question = "柳灣線這條森林鐵道所沿著爬升的那條溪流，古時候被稱為什麼？"
    swapped = "石流這條森林鐵道所沿著爬升的那條溪流，古時候被稱為什麼？"
    assert asked_of_another(question, swapped, "石流", "柳灣線")
    assert not asked_of_another(question, "青蘆溪古時候被稱為什麼？", "青蘆溪", "柳灣線")


TEMPLE_QUESTION = "被視為全臺城隍之首的那座廟宇所在的城市，自古有什麼別稱？"


def test_this_temple_in_a_temple_s_document_is_the_temple_the_question_describes(reasoner):
    paragraph = (
        "光緒十七年，巡撫在青州舉行大型法會，事後奏請清廷，將該廟的城隍爺晉封為「都城隍」，"
        "使它的位階高於一般府縣城隍，因此被視為全臺城隍之首。"
    )
    asked = reasoner.followup(TEMPLE_QUESTION, "青州都城隍廟", paragraph)
    assert asked == "青州都城隍廟所在的城市，自古有什麼別稱？"


def test_a_name_of_another_kind_is_no_bridge_of_this_kind(reasoner):
    paragraph = "廟方於2010年成立文化志工隊，並定期開設城隍信仰與廟宇建築的研習課程。"
    assert bridge(TEMPLE_QUESTION, [paragraph], set(), "城隍") == ("", "")
    assert reasoner.followup(TEMPLE_QUESTION, "青州都城隍廟", paragraph) == ""


def test_a_city_is_named_by_its_ending_before_the_county_it_belonged_to():
    question = "與青州市在同一天升格為省轄市的那座城市，民間因其城牆的形狀而稱它為什麼？"
    said = "戰後，青州市一度降為青州縣的縣轄市，到了1982年7月1日才與柳川市同時升格為省轄市。"
    assert bridge(question, [said], set(), "青州市")[0] == "柳川市"


def test_the_question_of_another_name_without_its_preposition_is_no_hop():
    from treerag.reasoning.partial_followup import asked_of_another

    question = "與青州市在同一天升格為省轄市的那座城市，民間因其城牆的形狀而稱它為什麼？"
    swapped = "青州科學園區在同一天升格為省轄市的那座城市，民間因其城牆的形狀而稱它為什麼？"
    assert asked_of_another(question, swapped, "青州科學園區", "青州市")
    # A description replaced is a hop, though the words after the names agree.
    assert not asked_of_another(
        "Where was the wife of Tam Orrey born?",
        "Where was Ida Orrey born?",
        "Ida Orrey",
        "Tam Orrey",
    )


def test_a_rank_asked_is_answered_by_the_sentence_that_says_the_rank():
    lake = (
        "青潭\n\n青潭周邊原為原住民族鷺族的傳統領域，族人以捕魚維生。"
        "2003年，行政院正式認定鷺族為臺灣原住民族的第十二族，目前族人約有600人。"
    )
    found = answering("青潭周邊的原住民族被認定為臺灣原住民族的第幾族？", "青潭", lake)
    assert found is not None and found.filler == "第十二族"


def test_a_station_asked_is_named_by_its_station_not_by_a_train():
    assert read_question("青灣線最東邊的終點站是哪一個車站？").head == "站"
    line = (
        "青灣線\n\n1997年推出「青灣線觀光列車」，使青灣線轉型為觀光鐵道。"
        "青灣線西起二溪車站，東至水社車站，全長29.7公里。"
    )
    found = answering("青灣線的終點站是哪一個車站？", "青灣線", line)
    assert found is not None and "車站" in found.sentence and "列車" not in found.sentence


def test_a_profession_before_the_name_is_of_the_description(reasoner):
    question = "畫家林秋雁以第一屆學生身分就讀的那所學校，當初是由哪一位米商捐地設立的？"
    paragraph = "1921年她進入剛創立的青浦實業補習學校就讀，是該校的第一屆學生。"
    asked = reasoner.followup(question, "林秋雁", paragraph)
    assert asked == "青浦實業補習學校當初是由哪一位米商捐地設立的？"


def test_the_name_given_the_asked_noun_with_its_qualifier_answers():
    scholar = (
        "黃仲川\n\n黃仲川是臺灣最早研究茶業經濟的學者之一，代表著作為《臺灣茶業經濟論》，"
        "影響深遠。1936年他另出版《山城雜記》。"
    )
    found = answering("黃仲川最具代表性的學術著作叫做什麼？", "黃仲川", scholar)
    assert found is not None and found.filler == "台湾茶业经济论"
