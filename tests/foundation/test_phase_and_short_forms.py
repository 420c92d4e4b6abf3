"""Words a document may leave out: a verb's phase, a word's inner character, a name's kind."""

from treerag.reasoning.answering import answering
from treerag.reasoning.named import names_title, title_keys
from treerag.reasoning.reading import fold, read_question
from treerag.reasoning.relation_held import relation_share

LINE = (
    "青溪線鐵路\n\n青溪線是一條沿海的鐵路支線，全長42公里。\n\n"
    "日治時期，總督府為了輸出木材，於1921年3月自港口與山城兩端同時動工興建，"
    "並於1926年全線通車。"
)
RACE = (
    "白鷺灣馬拉松是每年11月舉行的路跑賽事，全程馬拉松的賽程為42.195公里，"
    "起點與終點都設在市政府前的中山廣場。"
)


def test_a_phase_word_before_a_verb_is_no_relation_term():
    assert read_question("青溪線是在哪一年開始施工的？").relation == ("施工",)
    assert "通车" in read_question("青溪線什麼時候正式通車").relation
    assert "正式" not in read_question("青溪線什麼時候正式通車").relation
    # Alone, the phase is the deed asked of.
    assert "开始" in read_question("春運什麼時候開始").relation


def test_a_title_ending_with_its_kind_is_named_without_it():
    assert "青溪线" in title_keys("青溪線鐵路")
    assert names_title("青溪線是在哪一年開始施工的？", "青溪線鐵路")
    assert title_keys("中國鐵路") == ("中国铁路",)  # too short a name left before the kind


def test_a_sentence_of_the_line_says_when_its_works_began():
    found = answering("青溪線是在哪一年的幾月開始施工的？", "青溪線鐵路", LINE)
    assert found is not None and found.candidates[:2] == ("1921", "3月")


def test_a_word_short_of_an_inner_character_is_held_but_for_it():
    reading = read_question("白鷺灣馬拉松的起跑點設於何處？")
    assert reading.relation == ("起跑点",)
    assert relation_share(reading, fold("起点设在中山广场")) == 2 / 3
    assert relation_share(reading, fold("终点设在中山广场")) == 1 / 3
    found = answering("白鷺灣馬拉松的起跑點與終點設於何處？", "白鷺灣馬拉松", RACE)
    assert found is not None and "中山广场" in found.candidates


def test_a_university_asked_for_is_a_school_not_a_short_name_ending_in_its_first_character():
    assert read_question("她是從哪一所大學畢業的？").head == "学"
    assert read_question("他在哪一所中學任教？").head == "学"


def test_a_river_jieba_calls_a_common_noun_is_named_by_its_kind_ending():
    assert read_question("濁水溪的溪水為何總是一片混濁？").entities == ("浊水溪",)
    assert read_question("護城河有多寬").entities == ()


def test_a_demonstrative_and_its_measure_word_relate_nothing():
    relation = read_question("青溪注入的那座湖泊，湖中的小島叫做什麼？").relation
    assert "那座" not in relation and "湖泊" in relation


def test_a_kind_noun_restating_a_name_is_no_relation_term():
    relation = read_question("青溪線這條鐵路是在哪一年完工的？").relation
    assert "铁路" not in relation and "完工" in relation
    # Said of the name, not restating it: the railway's own 铁路 is no apposition.
    assert "铁路" in read_question("青溪線的鐵路是何時興建").relation


def test_a_name_used_before_or_written_of_old_is_a_former_name():
    from treerag.reasoning.called import named_noun

    assert named_noun(fold("青溪線以前曾經使用過什麼名稱?"))[1] == "旧称"
    assert named_noun(fold("青溪在舊時的寫法是什麼?"))[1] == "旧称"
    assert read_question("青溪線以前曾經使用過什麼名稱?").relation == ("旧称",)
    found = answering("青溪線以前曾經使用過什麼名稱?", "青溪線鐵路", "此線舊稱「青溪築港線」。")
    assert found is not None and found.candidates == ("青溪筑港线",)
