""" "what Australian city", "which Canadian actress": the word before the asked noun says the
answer's kind, not a name the chunk must give or a relation it must state. Made-up places."""

from treerag.reasoning.answering import answering
from treerag.reasoning.questions import slot
from treerag.reasoning.reading import read_question

QUESTION = "Brannoch Hall is a residence in a college located in what Kessan city?"
COLLEGE = (
    "Velmora College is a public college located in Harrowby, the seat of the Kessan diet. "
    "It was founded in 1911."
)


def test_a_qualified_noun_asks_its_kind():
    assert slot(QUESTION) == "place"
    assert slot("Which Kessan town lies on the Noor?") == "place"
    reading = read_question(QUESTION)
    assert reading.head == "city"
    assert "kessan" not in reading.entities and "kessan" not in reading.relation


def test_the_name_after_the_asked_verb_answers_though_it_opens_a_clause():
    found = answering("Velmora College is located in what Kessan city?", "Velmora College", COLLEGE)
    assert found is not None and found.filler == "Harrowby"


def test_the_follow_up_says_what_the_participle_described():
    from treerag.context import Context
    from treerag.models import get_embeddings
    from treerag.reasoning.offline import OfflineReasoner

    reasoner = OfflineReasoner(get_embeddings(Context()))
    hall = "Brannoch Hall is a residence in Velmora College, opened in 1974."
    verdict = reasoner._judge(QUESTION, "Brannoch Hall", hall)
    assert verdict.score == 1
    assert verdict.followup == "Velmora College is located in what Kessan city?"
