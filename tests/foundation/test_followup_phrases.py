"""An English follow-up puts its bridge in the place of a noun phrase, or asks nothing.

Made-up bands, schools and duos. The stretch a chunk covers is the description of the
bridge only where it opens as a noun phrase does: with an article, a possessive or a name.
A stretch opened by a verb ("formed first The Quills") or by a bare common word ("college
preparatory boys' school") is no description, and the bridge put in its place makes a
question that asks nothing. A "that" after a noun opens a relative clause; it is no
reference word for the bridge as "that guild" is.
"""

from treerag.reasoning.followup_question import followup
from treerag.reasoning.text import content_terms, stems


def _asked(question: str, chunk: str, entity: str) -> str:
    return followup(question, stems(content_terms(chunk)), entity)


def test_a_stretch_opened_by_a_verb_is_no_description():
    question = "Which band was formed first, The Quills or Harrow Lane?"
    chunk = "The Quills were formed in Tallin Bay in 1994 by the singer Ada Voss."
    assert _asked(question, chunk, "Tallin Bay") == ""


def test_a_stretch_opened_by_a_bare_common_word_is_no_description():
    question = "Marek Sloan graduated from what college preparatory boys' school?"
    chunk = "Brookfield Academy is a college preparatory school for boys in Vessel County."
    assert _asked(question, chunk, "Vessel County") == ""
    question = "Are Ada Voss and Marek Sloan both film directors?"
    chunk = "Ada Voss is a film director who worked with Ivo Dane."
    assert _asked(question, chunk, "Ivo Dane") == ""


def test_a_description_opened_by_an_article_is_still_replaced():
    question = "Who directed the film that was shot in Orlen Harbour in 1986?"
    chunk = "Salt Winter is a 1986 film shot in Orlen Harbour."
    assert _asked(question, chunk, "Salt Winter") == "Who directed Salt Winter?"


def test_that_after_a_noun_opens_a_relative_clause_not_a_reference():
    # The chunk covers "involved" too, so the stretch opens with a verb and is refused; the
    # "that" of "the quarrel that briefly separated" is then no reference to put Ada Voss in.
    question = "What singers were involved in the quarrel that briefly separated the duo Lark?"
    chunk = "In 2009 the duo Lark briefly separated after a quarrel involving Ada Voss."
    assert _asked(question, chunk, "Ada Voss") == ""
    # A reference word is still one: "that guild" stands for the guild the chunk names.
    question = "Who founded the Amber Fair, and where is that guild based?"
    chunk = "The Amber Fair was founded by the Corder guild, the oldest guild of Pellin."
    assert _asked(question, chunk, "Corder") == "Where is Corder based?"


def test_an_inverted_question_keeps_its_last_verb_after_a_name():
    # "play" closes "What position did … play?": it is the question's verb, though the chunk
    # covers it ("player"), and the bridge does not swallow it.
    question = "What position did the winner of the 2031 Amber Boot play?"
    chunk = (
        "Tarn Rovers player Ivo Dane was given the 2031 Amber Boot as top scorer, "
        "while Kestrel won the Fair Play award."
    )
    assert _asked(question, chunk, "Ivo Dane").endswith("Ivo Dane play?")
    question = "In what year was the founder of Acme Mills born?"
    chunk = "Acme Mills was founded by Ivo Dane, who was born in Tarn."
    assert _asked(question, chunk, "Ivo Dane") == "In what year was Ivo Dane born?"


def test_a_stretch_opened_by_the_question_s_own_name_is_no_description():
    # The chunk is about Ada Voss; what the question says of her is no bridge's description.
    question = "How many times was Ada Voss selected for the all-star game of the Tarn League?"
    chunk = "Ada Voss was selected for the all-star game of the Tarn League (TL) in 2031."
    assert _asked(question, chunk, "TL") == ""
    # Her possessive is a description: "Ada Voss's coach" is the coach the chunk names.
    question = "Where was Ada Voss's coach born?"
    chunk = "Ada Voss's coach was Ivo Dane, who trained her at Tarn."
    assert _asked(question, chunk, "Ivo Dane") == "Where was Ivo Dane born?"


def test_a_question_asking_where_the_described_one_is_from_is_asked_of_the_bridge():
    # "a singer-songwriter from what state": the album's chunk names the singer (initial and
    # all); the follow-up asks where that singer is from.
    question = "Salt Winter is the third studio album by a singer-songwriter from what state?"
    chunk = (
        "Salt Winter, released in 2031, is the third studio album by singer-songwriter K. Orlen."
    )
    assert _asked(question, chunk, "K. Orlen") == "Where is K. Orlen from?"
