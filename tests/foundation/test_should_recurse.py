"""One "should this level recurse?" on every reasoner, each by the rules of whoever judges."""

from __future__ import annotations

from treerag.context import Context
from treerag.reasoning.base import ANSWERED_HERE, RECURSE
from treerag.reasoning.llm import LLMReasoner
from treerag.reasoning.local import LocalReasoner
from treerag.reasoning.offline import OfflineReasoner

from ..fakes import ScriptedChatModel

QUESTION = "Which river flows through the city where Aldous Brennick was born?"
BRENNICK = {
    "chunk_id": "a",
    "rank": 1,
    "title": "Aldous Brennick",
    "source": "brennick.md",
    "text": "Aldous Brennick was a sea captain. He was born in the city of Port Veyra.",
    "score": 1,
    "followup": "Which river flows through Port Veyra?",
}
VEYRA = {
    "chunk_id": "b",
    "rank": 2,
    "title": "Port Veyra",
    "source": "veyra.md",
    "text": "Port Veyra is a city of the coast. The river Ambrel flows through the city.",
    "score": 1,
}
SUFFICIENT = {**VEYRA, "chunk_id": "c", "score": 2}
HELD = "the chunks hold the question's chain: Aldous Brennick → Port Veyra"


def offline() -> OfflineReasoner:
    return OfflineReasoner(embeddings=None)  # its stopping rules read text, not vectors


def test_the_offline_judge_stops_at_a_2_and_at_a_chain_it_holds():
    reasoner = offline()
    assert reasoner.should_recurse(QUESTION, [BRENNICK, SUFFICIENT]) == (False, ANSWERED_HERE)
    assert reasoner.should_recurse(QUESTION, [BRENNICK, VEYRA]) == (False, HELD)
    assert reasoner.should_recurse(QUESTION, [BRENNICK]) == RECURSE


def test_a_model_judge_trusts_its_own_verdicts():
    reasoner = LLMReasoner(ScriptedChatModel(), timeout_s=1, retries=0)
    assert reasoner.should_recurse(QUESTION, [BRENNICK, SUFFICIENT]) == (False, ANSWERED_HERE)
    # Two partial chunks that hold the chain between them: the model said partial, it goes on.
    assert reasoner.should_recurse(QUESTION, [BRENNICK, VEYRA]) == RECURSE


def test_a_local_model_with_the_offline_judge_keeps_the_offline_stopping_rules():
    with_offline_judge = LocalReasoner(
        Context(chat_model="local", local_judge="offline"), offline()
    )
    assert with_offline_judge.should_recurse(QUESTION, [BRENNICK, VEYRA]) == (False, HELD)
    judging_itself = LocalReasoner(Context(chat_model="local", local_judge="model"), offline())
    assert judging_itself.should_recurse(QUESTION, [BRENNICK, VEYRA]) == RECURSE
    assert judging_itself.should_recurse(QUESTION, [SUFFICIENT]) == (False, ANSWERED_HERE)
