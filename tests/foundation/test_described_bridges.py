"""A bridge described by a relative clause with names in it, and a chain closed a level up.

Made-up treaties, captains and ships. "the envoy who sealed the Pact of Orvane for Kestrel
Isle" is one description: the envoy the chunk names beside Kestrel Isle is the bridge, not the
first name near "sealed", nor the pact's name in another language; a chunk that does not say
Kestrel Isle names no envoy. A sub-run's open follow-up is answered by a chunk its parent
holds (`compose._completed`). A relative clause whose verb is no term ("the magazine that called
…") is replaced whole by the magazine the chunk names.
"""

from treerag.nodes.answer import build_evidence
from treerag.reasoning.answering import answering_across
from treerag.reasoning.base import EvidenceItem
from treerag.reasoning.bridging import bridge, type_word
from treerag.reasoning.compose import chain
from treerag.reasoning.followup_question import followup
from treerag.reasoning.text import content_terms, stems

QUESTION = (
    "Which yard built the barge steered by the envoy who sealed the Pact of Orvane on behalf "
    "of Kestrel Isle?"
)
PACT = (
    "The league was founded by the Pact of Orvane (奥文盟约), sealed in 1702 in the Salt Hall. "
    "Each isle sent one envoy: Mirren Hask sealed for Fenmoor, Tobiah Crane for Kestrel Isle, "
    "and Oda Lune for the Skerries."
)
SIGNING = "The Salt Hall became famous when the pact that founded the League was sealed there."


def _sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in text.split(". ") if s.strip()]


def test_the_noun_a_relative_clause_describes_is_the_type():
    assert type_word(QUESTION, stems(content_terms(PACT))) == "envoy"
    # No document calls him "the man"; "sealed" is what he did, not what he is.
    question = "Which yard built the barge steered by the man who sealed the Pact of Orvane?"
    assert type_word(question, stems(content_terms(PACT))) == "man"


def test_the_envoy_beside_the_question_s_other_name_is_the_bridge():
    said = _sentences(PACT)
    covered = stems(content_terms(PACT))
    entity, sentence = bridge(QUESTION, said, covered, about="Pact of Orvane")
    assert entity == "Tobiah Crane" and "Kestrel Isle" in sentence
    # Without the pact as the chunk's subject, the gloss 奥文 is still no bridge.
    # A name across a comma is farther than one in the same stretch of the list.
    listed = "Mirren Hask sealed it for Fenmoor, Tobiah Crane sealed it for Kestrel Isle, Oda Lune."
    assert bridge(QUESTION, [listed], covered, about="Pact of Orvane")[0] == "Tobiah Crane"
    # With no list, the type word decides: the engraver is Oda Lune, not the atlas.
    question = "Where was the engraver who worked with Mirren Hask born?"
    sentence = "Oda Lune was an engraver who worked with Mirren Hask on the Salt Atlas."
    assert bridge(question, [sentence], stems(content_terms(sentence)), "Oda Lune")[0] == "Oda Lune"
    entity, _ = bridge(QUESTION, said[:1], covered)
    assert entity and "奥文" not in entity


def test_the_whole_relative_clause_is_replaced(reasoner):
    verdict = reasoner._judge(QUESTION, "The League", PACT)
    assert verdict.score == 1
    assert verdict.followup == "Which yard built the barge steered by Tobiah Crane?"


def test_a_chunk_that_lacks_the_description_s_name_asks_nothing():
    covered = stems(content_terms(SIGNING))
    assert followup(QUESTION, covered, "League") == ""


def _item(n: int, title: str, text: str, depth: int, **extra) -> EvidenceItem:
    return EvidenceItem(n, f"c{n}", title, f"{title}.md", text, 1, depth=depth, **extra)


def test_a_sub_run_s_open_link_is_answered_by_a_chunk_its_parent_holds():
    asked = "Which yard built the barge steered by Tobiah Crane?"
    evidence = [
        _item(1, "The League", PACT, 0, followup=asked),
        _item(
            2,
            "Tobiah Crane",
            "Tobiah Crane was a river pilot. In 1690 he was given the barge Marlwing to steer.",
            1,
            followup=asked,
            asked="Which yard built Marlwing?",
        ),
        _item(
            3,
            "Gull Yard",
            "Gull Yard is a boatyard on the Fen. The best known barge it built is the Marlwing.",
            0,
        ),
    ]
    quotes = chain(QUESTION, evidence)
    # The yard's document names the yard, then the barge it built (its own tie); then the
    # sub-run's tie (his barge), then the run's own (the envoy for Kestrel Isle).
    assert [q.n for q in quotes] == [3, 3, 2, 1]
    assert "Gull Yard" in quotes[0].text and "Marlwing" in quotes[1].text
    assert "given the barge Marlwing" in quotes[2].text
    assert "Tobiah Crane for Kestrel Isle" in quotes[3].text


def test_a_sub_run_s_chunk_that_asked_a_follow_up_is_numbered_first():
    sub = [
        {"chunk_id": f"s{i}", "title": "Tobiah Crane", "text": f"Sentence {i}.", "score": 1}
        for i in range(3)
    ]
    sub[2]["followup"] = "Which yard built Marlwing?"
    chunk = {
        "chunk_id": "c1",
        "title": "The League",
        "text": PACT,
        "score": 1,
        "rank": 1,
        "followup": "Which yard built the barge steered by Tobiah Crane?",
        "sub_evidence": sub,
    }
    evidence = build_evidence([chunk], 10_000)
    assert [e.chunk_id for e in evidence] == ["c1", "s2", "s0"]
    assert evidence[1].asked == "Which yard built Marlwing?" and evidence[2].asked == ""


def test_a_description_is_tied_to_its_person_s_document_across_chunks():
    question = "Where was the first Warden of the Salt League born?"
    identity = "Tobiah Crane (1650–1711) was a river pilot and the first Warden of the Salt League."
    career = "Tobiah Crane\n\nCrane was born in 1650 in Hollin Ford, the son of a ferryman."
    found = answering_across(question, "Tobiah Crane", career, [identity])
    assert found is not None and found.filler == "Hollin Ford" and found.bridge == identity
    evidence = [
        _item(1, "Tobiah Crane", identity, 0),
        _item(2, "Tobiah Crane", career, 0),
    ]
    assert [q.n for q in chain(question, evidence)] == [2, 1]


def test_a_relative_clause_with_a_verb_no_term_is_replaced_whole():
    # "called" is no content term: the covered stretch starts after it, inside the clause
    # that describes the magazine, and the magazine the chunk names takes its whole place.
    question = 'What is the abbreviation of the magazine that called Orwin "a quiet marvel"?'
    chunk = 'In 2031, "Tern Monthly" called Orwin "a quiet marvel". Orwin is a small text editor.'
    asked = followup(question, stems(content_terms(chunk)), "Tern Monthly")
    assert asked == "What is the abbreviation of Tern Monthly?"
