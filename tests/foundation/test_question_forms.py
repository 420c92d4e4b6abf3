"""How the judge reads a few forms of question and sentence (made-up documents).

A work's title in 《》 is one name; 第几次 asks; "X是什么Y的" asks X's kind of Y; a team is
named with or without 队; a quotation that holds a clause is speech, not a name; a headline
that asks why is no statement; a file named by an identifier gives no document subject; the
noun whose name is asked is no name of the question; a pronoun in a document about the entity
is quoted with its name.
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.chunk_reading import asks, subjects
from treerag.reasoning.fillers import candidates, titled
from treerag.reasoning.kinds import asked_kind, kinds
from treerag.reasoning.named import names_in
from treerag.reasoning.reading import fold, read_question


def test_a_work_s_title_is_one_name_of_the_question():
    reading = read_question("《青川有了新邻居》是哪个平台的剧？")
    assert "青川有了新邻居" in reading.entities
    # Its words are the name's, not the relation a sentence must hold.
    assert "邻居" not in reading.relation


def test_di_ji_asks_an_ordinal_it_does_not_relate():
    question = "青州杯是白鹭队第几次夺冠"
    assert not any(t.startswith("第几") for t in read_question(question).relation)
    found = answering(question, "", "白鹭最终击败沧江夺冠，这是白鹭第四次在青州杯夺冠。")
    assert found is not None and "四次" in found.candidates


def test_a_team_is_named_with_or_without_dui():
    assert names_in("白鹭队", "白鹭最终击败沧江夺冠")
    assert names_in("白鹭队", "白鹭队最终击败沧江夺冠")
    assert not names_in("鹭队", "白鹭最终夺冠")  # one character left is no name


def test_what_kind_of_thing_is_asked_after_the_copula():
    assert asked_kind(fold("周晓岚是什么项目的")) == "项目"
    assert asked_kind(fold("《潮声》是什么电影")) == "电影"
    # A time, a place, a meaning or a person asked so is another slot.
    assert asked_kind(fold("开幕式是什么时候")) == ""
    assert asked_kind(fold("周晓岚是什么人")) == ""
    assert asked_kind(fold("周晓岚是什么")) == ""


def test_a_kind_is_read_before_the_noun_or_its_head():
    assert kinds("项目", fold("此时周晓岚已扛起了花样滑冰项目的大旗")) == ["花样滑冰"]
    # A determiner or a measure word before the noun is no kind.
    assert kinds("项目", fold("任何项目都有危险")) == []
    assert kinds("项目", fold("练一个项目就要练好")) == []
    # 剧 is the head of 电视剧: "一部悬疑刑侦剧" says the series' kind.
    assert kinds("电视剧", fold("在今年的电视剧市场中，一部悬疑刑侦剧《潮声》走红。")) == [
        "悬疑刑侦"
    ]


def test_a_quotation_holding_a_clause_is_speech_not_a_name():
    assert titled("她说：“任何项目都有危险，练就要练好！”") == []
    assert titled("吉祥物“团团”亮相") == ["团团"]
    assert titled("《潮声，夜》首映") == ["潮声，夜"]  # a work's title is one whatever it holds


def test_a_headline_asking_why_is_no_statement():
    assert asks("只想当厨师的他，为何离开了青州 ...")
    assert asks("相关阅读. 只想当厨师的他，为何离开了青州.")
    assert not asks("他解释了为什么离开青州。")
    assert asks("Why the river floods")
    assert not asks("He explained how the river floods.")


def test_a_file_named_by_an_identifier_gives_no_subject():
    from treerag.reasoning.named import title_of
    from treerag.text.sources import identifier, own_title

    assert identifier("eval_3f9a12bc 7c41d0e9aa12f3b4")
    assert identifier("IMG_2034")
    for name in ("C919", "MU5735", "marta_velik", "Report 2023"):
        assert not identifier(name), name
    # A whole file's title is its stem when it has no heading: an identifier is none.
    chunk = {"title": "b7111315ca0cdbe4", "source": "/docs/b7111315ca0cdbe4.txt"}
    assert title_of(chunk) == ""
    assert subjects(title_of(chunk), "他为何离开青州。") == ()
    assert own_title("marta_velik", "/docs/marta_velik.md") == "marta_velik"
    assert subjects(
        own_title("marta_velik", "/docs/marta_velik.md"), "Marta Velik\n\nShe was born."
    ) == (
        "marta_velik",
        "Marta Velik",
    )


def test_a_definition_asks_no_relation_of_the_place_before_the_name():
    # "What is the Russian Wagner?": 俄罗斯 says which one, not what a sentence must repeat.
    assert read_question("俄罗斯瓦格纳是什么").relation == ()
    assert read_question("俄罗斯瓦格纳是什么").entities == ("瓦格纳",)
    # A question that relates more than a place keeps its relation.
    assert "剧团" in read_question("青州的白鹭剧团是什么").relation


def test_the_noun_asked_after_what_was_done_is_its_kind_not_relation():
    # "What is the banned substance he tested positive for?": the sentence names the
    # substance, not its kind.
    question = "周晓岚被查出的禁用物质是什么"
    assert read_question(question).relation == ("查出",)
    kind_only = "青州体育局表示，禁用物质清单每年更新，运动员赛外也不得使用。"
    assert answering(question, "", kind_only) is None
    found = answering(question, "", "周晓岚在一次赛外检查中被查出美雄酮（MTD）阳性。")
    assert found is not None and "美雄酮" in found.sentence
    # A noun after a name, not after a verb, is the relation: 口号 is said.
    assert "口号" in read_question("青州运动会的口号是什么").relation


def test_a_clock_time_is_no_count():
    question = "2031年青州新能源指标有多少个？"
    assert candidates(read_question(question), "【查询时间】2031年5月26日10:00") == []
    # A score is written with one digit a side: still numbers.
    assert candidates(read_question("比赛比分是多少"), "双方最终以4:2结束比赛") == ["4", "2"]


def test_the_noun_whose_name_is_asked_is_no_name_of_the_question():
    # jieba's dictionary tags 吉祥物 as a person's name ("nr"): asked what it is called, it
    # is what is asked, and the sentence after the one that names the games answers.
    question = "2031年青州杯吉祥物叫什么"
    reading = read_question(question)
    assert "吉祥物" not in reading.entities
    assert "吉祥物" in reading.relation
    text = (
        "今年4月，2031青州杯的吉祥物正式亮相，其灵巧可爱的模样收获了大量粉丝。"
        "这个吉祥物的名字是“鹭鹭”，在当地方言中意为白色的水鸟。"
    )
    found = answering(question, "", text)
    assert found is not None and found.filler == "鹭鹭"


def test_a_pronoun_in_a_document_about_the_entity_is_quoted_with_its_name(reasoner):
    # Nothing answers as a chain; the sentences that say what each did open with a pronoun,
    # in the documents of the people the question names.
    question = (
        "What role did Mira Solt and Jonas Brek perform in their bands, Tern Quartet and Saltwren?"
    )
    evidence = [
        EvidenceItem(
            n=1,
            chunk_id="1",
            title="Mira Solt",
            source="",
            text="Mira Solt (born 3 May 1970) is an English musician. "
            "She is best known as the lead singer of the band Tern Quartet.",
            score=1,
        ),
        EvidenceItem(
            n=2,
            chunk_id="2",
            title="Jonas Brek",
            source="",
            text="Jonas Brek (born 1 June 1968) is a Welsh musician. "
            "He is best known as the drummer of the band Saltwren.",
            score=1,
        ),
    ]
    answer = reasoner.compose(question, evidence)
    assert "Mira Solt: “She is best known as the lead singer of the band Tern Quartet.”" in answer
    assert "Jonas Brek: “He is best known as the drummer of the band Saltwren.”" in answer
