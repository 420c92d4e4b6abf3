"""A Chinese question asking for a work is answered by a title in 《》 (`answering`).

Made-up box-office reports: the common words around the title are never the film.
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.fillers import candidates
from treerag.reasoning.reading import read_question


def test_which_film_is_answered_by_its_title_not_by_the_words_around_it():
    question = "2031年青州电影节票房冠军是哪部电影？"
    hype = "2031年青州电影节前，大量观影群体的期待也被市场给予厚望，认为是票房冠军的有力竞争者。"
    assert answering(question, "", hype) is None
    found = answering(question, "", "2031年青州电影节落幕，《潮声之夜》成为票房冠军。")
    assert found is not None and found.filler == "潮声之夜"
    traditional = answering(
        "2031年青州電影節票房冠軍是哪部電影？",
        "",
        "2031年青州電影節落幕，《潮聲之夜》成為票房冠軍。",
    )
    assert traditional is not None and traditional.filler == "潮声之夜"


def test_only_a_question_for_a_work_wants_a_title():
    sentence = "青州电影节由陆远舟创办，开幕影片是《潮声之夜》。"
    assert candidates(read_question("哪部电影是青州电影节的开幕影片？"), sentence) == ["潮声之夜"]
    # Who founded it is a person, whatever titles the sentence holds.
    assert "陆远舟" in candidates(read_question("谁创办了青州电影节？"), sentence)


def test_a_word_built_on_a_work_s_name_is_no_work():
    # 游戏公司, 电影节, 歌手: what is asked is a company, a festival, a singer.
    found = answering("哪个游戏公司开发了《潮声》？", "", "《潮声》由青州游戏公司开发。")
    assert found is not None and found.filler != "潮声"
