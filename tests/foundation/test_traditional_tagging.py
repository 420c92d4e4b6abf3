"""Traditional Chinese is tagged as its Simplified form and given back as written (`segment.tag`).

jieba's dictionary is Simplified: on Traditional text as written it cuts 最後 into 最 + 後 (and
tags 後 a person's name) and 葬禮 into 葬 + 禮. A made-up sentence in both scripts.
"""

from jieba import posseg

from treerag.segment import tag
from treerag.text.names import chinese_nouns

TRADITIONAL = "前蘇聯最後一任領導人沈秋禾在雲港去世，葬禮在圓柱大廳舉行。"
SIMPLIFIED = "前苏联最后一任领导人沈秋禾在云港去世，葬礼在圆柱大厅举行。"


def test_every_character_comes_back_as_written_with_the_simplified_tags():
    pairs = tag(TRADITIONAL)
    assert "".join(w for w, _ in pairs) == TRADITIONAL
    assert [f for _, f in pairs] == [f for _, f in tag(SIMPLIFIED)]
    assert ("最後", "f") in pairs and "葬禮" in {w for w, _ in pairs}


def test_simplified_text_is_tagged_as_jieba_tags_it():
    assert tag(SIMPLIFIED) == [(p.word, p.flag) for p in posseg.cut(SIMPLIFIED)]


def test_a_traditional_place_is_read_as_a_place():
    # As written, jieba cuts 克什米爾 into 克什 + 米爾 and tags both a person's name.
    nouns = chinese_nouns("印控克什米爾地區發生一起交通事故。")
    assert ("克什米爾地區", "location", True) in nouns, nouns


def test_traditional_words_are_cut_as_their_simplified_form_is():
    from treerag.segment import tokens

    assert tokens("EMNLP2031的舉辦地") == [("EMNLP2031", 0, 9), ("的", 9, 10), ("舉辦地", 10, 13)]
    assert [w for w, _, _ in tokens("EMNLP2031的举办地")] == ["EMNLP2031", "的", "举办地"]
