"""A model's answer in the question's language and script (`treerag.reasoning.answer_script`)."""

from __future__ import annotations

import pytest

from tests.fakes import ScriptedChatModel
from treerag.reasoning.answer_script import OffChain, ScriptedAnswer, WrongLanguage
from treerag.reasoning.base import EvidenceItem, ModelFailure, Quote
from treerag.reasoning.llm import LLMReasoner, format_chain, format_evidence

ORCHESTRA = EvidenceItem(1, "c1", "許若蘭", "x.txt", "許若蘭是一位指揮家。她出生於松嶺鎮。", 2)
PRESS = EvidenceItem(1, "c1", "Orsk Press", "o.md", "It was founded by Pavel Orsk in 1931.", 2)


def _streamed(script: str, pieces: list[str]) -> tuple[list[str], str]:
    scripted = ScriptedAnswer(script)  # type: ignore[arg-type]
    shown = [scripted.feed(p) for p in pieces]
    return shown, "".join(shown) + scripted.flush()


def test_a_chinese_answer_is_written_in_the_questions_script() -> None:
    pieces = ["许若兰出生於", "松嶺鎮，后来在", "海灣市教授音乐。", " [1]"]
    shown, whole = _streamed("zh-hant", pieces)
    assert whole == "許若蘭出生於松嶺鎮，後來在海灣市教授音樂。 [1]"
    assert shown[0] == ""  # held back until its language is decided
    _, simplified = _streamed("zh-hans", ["許若蘭出生於松嶺鎮，後來在海灣市教授音樂。"])
    assert simplified == "许若兰出生于松岭镇，后来在海湾市教授音乐。"


def test_an_answer_in_the_other_language_is_refused_before_anything_is_shown() -> None:
    scripted = ScriptedAnswer("zh-hant")
    assert scripted.feed("The ancient temple ") == ""
    with pytest.raises(WrongLanguage):
        scripted.feed("in Cloud Village was built in 1702. [1]")
    with pytest.raises(WrongLanguage):
        _streamed("en", ["陳慕言出生在雲溪村。"])  # short: decided when the model ends
    # A Chinese answer may open with a code or a name in Latin letters.
    assert _streamed("zh-hans", ["MU5735航班", "共有132人。"])[1] == "MU5735航班共有132人。"
    assert _streamed("en", ["Lin Qiuyan (林秋雁) was born in Qingyan."])[1].startswith("Lin")


async def test_the_llm_answer_in_english_to_a_chinese_question_fails_in_the_questions_script() -> (
    None
):
    model = ScriptedChatModel(answer_text="She was born in Songling. [1]")
    with pytest.raises(ModelFailure) as failed:
        await LLMReasoner(model, 30.0, 0).answer("許若蘭出生在哪裡？", [ORCHESTRA], "")
    assert str(failed.value) == "它用另一種語言作答"
    model = ScriptedChatModel(answer_text="许若兰出生於松嶺鎮。[1]")
    answer = await LLMReasoner(model, 30.0, 0).answer("許若蘭出生在哪裡？", [ORCHESTRA], "")
    assert answer == "許若蘭出生於松嶺鎮。[1]"
    assert "Traditional Chinese" in model.prompts[-1]


def test_the_chain_shows_each_sentences_document_and_what_it_answers() -> None:
    chain = [Quote(1, "It was founded by Pavel Orsk in 1931.", "", "Pavel Orsk")]
    shown = format_chain(chain, [PRESS])
    assert "[1] Orsk Press: It was founded by Pavel Orsk in 1931." in shown
    assert "What the chain gives for the question: Pavel Orsk [1]" in shown
    bridge_only = format_chain([Quote(1, "It was founded by Pavel Orsk in 1931.")], [PRESS])
    assert "What the chain gives" not in bridge_only
    assert format_chain([], [PRESS]) == ""


def test_a_sub_answer_reaches_the_model_without_the_offline_label() -> None:
    item = EvidenceItem(
        1,
        "c1",
        "周怀远",
        "z.md",
        "周怀远是一位画家。他出生在渡口县。",
        1,
        followup="渡口县位于哪条江的下游？",
        sub_answer="[离线摘录回答] 渡口县位于沧江下游。 [1]",
    )
    shown = format_evidence([item])
    assert "Follow-up answer:\n<<<\n渡口县位于沧江下游。\n>>>" in shown
    assert "离线摘录回答" not in shown


def test_a_first_sentence_that_does_not_say_the_chains_answer_is_refused() -> None:
    scripted = ScriptedAnswer("zh-hans", "渡口縣")  # compared in either script
    assert scripted.feed("与林秋雁合著《山花图谱》的画家，") == ""
    with pytest.raises(OffChain):
        scripted.feed("出生在青岩镇。她是一位植物学家。 [1]")
    with pytest.raises(OffChain):
        _streamed_to(
            "en", "Amsel", ["The river is the Noor. It flows", " through the Amsel valley."]
        )
    said = ["The river that flows through ", "the village where she was born is the Amsel.", " [1]"]
    assert _streamed_to("en", "Amsel", said) == "".join(said)
    # "St." and an initial do not end the first sentence.
    said = ["It stands in St. Edda's parish, by A. Brenn, on the Amsel. [1]"]
    assert _streamed_to("en", "Amsel", said) == said[0]


def _streamed_to(script: str, expected: str, pieces: list[str]) -> str:
    scripted = ScriptedAnswer(script, expected)  # type: ignore[arg-type]
    return "".join(scripted.feed(p) for p in pieces) + scripted.flush()


async def test_the_local_models_answer_against_the_chain_gives_way_to_the_offline_one() -> None:
    from treerag.context import Context
    from treerag.reasoning.local import LocalReasoner
    from treerag.reasoning.offline import OfflineReasoner

    painter = EvidenceItem(2, "c2", "周怀远", "z.md", "周怀远是一位画家。他出生在渡口县。", 1)
    chain = [Quote(2, "他出生在渡口县。", "", "渡口县")]
    question = "与林秋雁合著《山花图谱》的画家出生在哪里？"
    local = LocalReasoner(Context(chat_model="local"), OfflineReasoner(embeddings=None))
    local.model = ScriptedChatModel(answer_text="与林秋雁合著《山花图谱》的画家出生在青岩镇。[1]")
    with pytest.raises(ModelFailure) as failed:
        await local.answer(question, [painter], "", chain)
    assert str(failed.value) == "它的回答没有给出检索链找到的答案"
    local.model = ScriptedChatModel(answer_text="画家周怀远出生在渡口县。[2]")
    assert await local.answer(question, [painter], "", chain) == "画家周怀远出生在渡口县。[2]"
    # A model of any size that is not held to the chain answers as it will.
    plain = LLMReasoner(ScriptedChatModel(answer_text="他出生在青岩镇。[2]"), 30.0, 0)
    assert await plain.answer(question, [painter], "", chain) == "他出生在青岩镇。[2]"
