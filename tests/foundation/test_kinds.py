""" "什么类型的电影", "What kind of ship…": the kind is the words a defining sentence puts
before the noun. Made-up films and ships."""

import pytest

from treerag.reasoning.answering import answering
from treerag.reasoning.fallback import states_asked
from treerag.reasoning.kinds import asked_kind
from treerag.reasoning.reading import fold

FILM = "《青石谣》是什么类型的电影"


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        (FILM, "电影"),
        ("《青石謠》是什麼類型的電影？", "电影"),
        ("潮声是哪种类型的音乐？", "音乐"),
        ("What kind of ship is the Saltwren?", "ship"),
        ("哪种动物最大", ""),  # which animal: a name, not a kind
        ("《青石谣》的导演是谁", ""),
    ],
)
def test_what_a_kind_question_asks_the_kind_of(question, noun):
    assert asked_kind(fold(question)) == noun


@pytest.mark.parametrize(
    ("question", "text", "kind"),
    [
        (FILM, "《青石谣》是由林秋雁执导、许若兰主演的悬疑电影，于2031年上映。", "悬疑"),
        ("《青石謠》是什麼類型的電影？", "《青石謠》是由林秋雁執導的懸疑電影。", "悬疑"),
        (
            "What kind of ship is the Saltwren?",
            "The Saltwren is a three-masted trading ship built by the Guild of Tidewrights.",
            "three-masted trading",
        ),
    ],
)
def test_the_words_before_the_noun_answer(question, text, kind):
    found = answering(question, "", text)
    assert found is not None and found.filler == kind


@pytest.mark.parametrize(
    "text",
    [
        "看了片名就有些抗拒，毕竟这一类型的电影大多票房惨淡。",  # no kind before the noun
        "《长津湖》是一部战争电影。",  # another film
        "《青石谣》于2031年上映。",  # no kind said
    ],
)
def test_no_kind_no_answer(text):
    assert answering(FILM, "", text) is None


def test_a_kind_before_its_noun_is_stated_plainly():
    assert states_asked("thing", "《青石谣》是一部悬疑电影。", FILM) == 2
    assert states_asked("thing", "《青石谣》于2031年上映。", FILM) == 0


def test_a_sentence_with_no_kind_does_not_answer_through_a_bridge():
    text = "《青石谣》由林秋雁执导。看了片名就有些抗拒，毕竟这一类型的电影大多票房惨淡。"
    assert answering(FILM, "", text) is None
