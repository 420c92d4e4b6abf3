"""The offline reasoner's rules: judge calibration, follow-up questions, answers, condense."""

import re

from treerag.reasoning import EvidenceItem
from treerag.reasoning.questions import is_new, near_duplicate
from treerag.reasoning.text import sentences, squash
from treerag.reasoning.wording import LABELS

LABEL = LABELS["en"]


BRENNICK = (
    "Aldous Brennick (1571–1640) was a sea captain and statesman. In 1599 he was given "
    "command of the Saltwren, a three-masted merchant ship."
)
TIDEWRIGHTS = (
    "The Guild of Tidewrights is the shipbuilders' guild of the Kessavar islands. It has its "
    "seat at the Long Slip, the great covered shipyard of Marrowgate. The guild built the "
    "Saltwren, a three-masted merchant ship completed in 1598."
)
UNRELATED = "Rainfall in the southern valleys peaks in late spring, when the snow melts."
ZH_BRIDGE = "盐鹪号是一艘三桅商船，由潮匠行会建造。"
ZH_COMPLETE = "潮匠行会位于马罗盖特，行会的船坞叫长滑道。"
ZH_UNRELATED = "南部山谷的降雨在晚春达到高峰。"


def test_an_unrelated_chunk_without_question_terms_scores_0(reasoner):
    verdict = reasoner._judge("Which guild built the Saltwren?", "Weather", UNRELATED)
    assert verdict.score == 0 and "0/" in verdict.reason and not verdict.followup
    verdict = reasoner._judge("盐鹪号由哪个行会建造？", "天气", ZH_UNRELATED)
    assert verdict.score == 0


def test_a_bridge_chunk_scores_1_with_a_real_follow_up_question(reasoner):
    question = "Which guild built the ship captained by Aldous Brennick?"
    verdict = reasoner._judge(question, "Aldous Brennick", BRENNICK)
    assert verdict.score == 1
    assert verdict.followup == "Which guild built the Saltwren?"
    assert not near_duplicate(verdict.followup, question)

    verdict = reasoner._judge("盐鹪号由哪个行会建造，该行会位于哪里？", "盐鹪号", ZH_BRIDGE)
    assert verdict.score == 1
    assert verdict.followup == "潮匠行会位于哪里？"


def test_a_chunk_holding_two_links_asks_past_both(reasoner):
    # The chunk names the engraver the question describes and the town he was born in: the
    # follow-up asks about the town, not "the birthplace of Jorund Aske", which the chunk
    # answers and a sub-run (which does not get this chunk back) could not.
    aske = (
        "# Jorund Aske\nJorund Aske was a glazier who worked with Mira Holt on the Salt "
        "Windows. He was born in the mill town of Vessby. In 1902 he opened a workshop."
    )
    question = (
        "At the mouth of which river lies the birthplace of the glazier who worked with Mira Holt?"
    )
    verdict = reasoner._judge(question, "Jorund Aske", aske)
    assert verdict.score == 1
    assert verdict.followup == "At the mouth of which river lies Vessby?"
    # The follow-up the `local` preset falls back on is the judge's own.
    assert reasoner.followup(question, "Jorund Aske", aske) == verdict.followup
    # A chunk with one link asks past that one only.
    holt = "# Mira Holt\nMira Holt was a painter. The glazier Jorund Aske worked with her."
    verdict = reasoner._judge(question, "Mira Holt", holt)
    assert verdict.followup == "At the mouth of which river lies the birthplace of Jorund Aske?"


def test_a_complete_chunk_scores_2(reasoner):
    verdict = reasoner._judge("Which guild built the Saltwren ship?", "Tidewrights", TIDEWRIGHTS)
    assert verdict.score == 2 and not verdict.followup
    verdict = reasoner._judge("潮匠行会位于哪里？", "潮匠行会", ZH_COMPLETE)
    assert verdict.score == 2


def test_near_duplicate_follow_ups_are_not_asked():
    question = "Which guild built the ship captained by Aldous Brennick, and where is it based?"
    asked = [question]
    assert not is_new(f"{question} Tidewrights 潮匠 行会 Kessavar", asked)  # keywords glued on
    assert not is_new(question.upper(), asked)
    assert is_new("Where is the Guild of Tidewrights based?", asked)
    asked.append("Where is the Guild of Tidewrights based?")
    assert not is_new("Where is the Guild of the Tidewrights based", asked)


def test_hard_wrapped_paragraphs_give_whole_sentences():
    text = (
        "# The Vask Refractor\n"
        "Its famous work is the objective lens of the Vask Refractor, finished in 1873 after four\n"
        "years of grinding by Oswin Marl. The lens\nis 61 cm across.\n"
        "\n"
        "- Maker: Hallbeck foundry\n"
        "- Grinder: Oswin Marl\n"
        "\n"
        "Guild of Tidewrights\n"
        "The guild has its seat at the Long Slip.\n"
        "鹤烟灯塔的透镜由烬玻璃行会烧制，透镜在一六三一年由行会的两位大师\n共同完成。\n"
    )
    assert sentences(text) == [
        "Its famous work is the objective lens of the Vask Refractor, finished in 1873 after "
        "four years of grinding by Oswin Marl.",
        "The lens is 61 cm across.",
        "- Maker: Hallbeck foundry",
        "- Grinder: Oswin Marl",
        "Guild of Tidewrights",
        "The guild has its seat at the Long Slip.",
        "鹤烟灯塔的透镜由烬玻璃行会烧制，透镜在一六三一年由行会的两位大师 共同完成。",
    ]


def test_sentences_of_sub_run_evidence_cite_their_own_chunk(reasoner):
    evidence = [
        EvidenceItem(
            1,
            "a",
            "ledger",
            "hallbeck_ledger.pdf",
            "The Hallbeck foundry kept a "
            "ledger. Oswin Marl ground the objective lens of the Vask Refractor.",
            1,
            followup="Where was Oswin Marl born?",
        ),
        EvidenceItem(
            2,
            "b",
            "records",
            "records.jsonl#r2",
            "Oswin Marl, a lens grinder, was born in 1820 in the river town of\nPellisford.",
            1,
            followup="Where was Oswin Marl born?",
            depth=1,
        ),
    ]
    question = "Who ground the objective lens of the Vask Refractor, and where was he born?"
    text = reasoner.compose(question, evidence)
    assert text.startswith(LABEL) and "Pellisford" in text and "Oswin Marl" in text
    by_n = {e.n: squash(e.text) for e in evidence}
    body = text.replace(LABEL, "")
    import re

    for sentence, n in re.findall(r"(.+?)\s*\[(\d+)\]", body):
        assert squash(sentence) in by_n[int(n)]


def test_a_pronoun_follow_up_keeps_the_subject(reasoner):
    history = [
        ("human", "Who ground the objective lens of the Vask Refractor?"),
        (
            "ai",
            f"{LABEL} Oswin Marl ground the objective lens of the Vask Refractor [1]. "
            "Marl worked at the Hallbeck foundry for Oswin Marl's master [2].",
        ),
    ]
    assert reasoner._condense(history, "Where was he born?") == "Where was Oswin Marl born?"
    assert reasoner._condense(history, "What was his trade?") == "What was Oswin Marl's trade?"
    zh = [
        ("human", "盐鹪号由哪个行会建造？"),
        ("ai", f"{LABEL} 盐鹪号由潮匠行会建造 [1]。"),
    ]
    assert reasoner._condense(zh, "它在哪里？") == "潮匠行会在哪里？"


def test_a_pronoun_of_another_kind_than_the_answer_means_the_question_s_entity(reasoner):
    """After a "who" question, "it" cannot be the person the answer named."""
    history = [
        ("human", "Who led the fishers that founded Quillhaven?"),
        ("ai", f"{LABEL} Brannoc Hale led the fishers from Skellow who settled Quillhaven [1]."),
    ]
    assert reasoner._condense(history, "When was it founded?") == "When was Quillhaven founded?"
    assert reasoner._condense(history, "Where was he born?") == "Where was Brannoc Hale born?"


def test_the_answer_follows_the_chain_and_quotes_nothing_else(reasoner):
    """The follow-up's answer first, then the bridge that ties it to the question; no padding."""
    question = "Which guild built the Saltwren, and where is that guild's seat?"
    own = [
        EvidenceItem(
            1,
            "a",
            "Saltwren",
            "ships.md",
            "The Saltwren was built by the Guild "
            "of Tidewrights. The Saltwren is a three-masted merchant ship. The "
            "Saltwren sailed around the islands.",
            1,
            followup="Where is the seat of the Guild of Tidewrights?",
        ),
        EvidenceItem(
            2,
            "b",
            "Brennick",
            "people.md",
            "Aldous Brennick commanded the Saltwren for the guild from 1599.",
            1,
        ),
    ]
    finds = [
        EvidenceItem(
            3 + i,
            f"f{i}",
            "Tidewrights",
            "guilds.md",
            text,
            1,
            followup="Where is the seat of the Guild of Tidewrights?",
            depth=1,
        )
        for i, text in enumerate(
            [
                "The Guild of Tidewrights was founded by shipwrights.",
                "The seat of the Guild of Tidewrights is at the Long Slip in Marrowgate.",
            ]
        )
    ]
    text = reasoner.compose(question, own + finds)
    assert text == (
        f"{LABEL} The seat of the Guild of Tidewrights is at the Long Slip in Marrowgate. [4] "
        "The Saltwren was built by the Guild of Tidewrights. [1]"
    )
    # Without what the sub-run found there is no chain: the answer quotes two sentences that
    # carry the question's names or terms, the plainest statement of a guild first.
    alone = reasoner.compose(question, own)
    cited = re.findall(r"(.+?)\s*\[(\d)\]", alone.replace(LABEL, ""))
    assert len(cited) == 2 and "Guild of Tidewrights" in cited[0][0]


def test_a_sub_run_s_chain_is_carried_up_and_quoted_first(reasoner):
    from treerag.reasoning.base import Quote

    question = "Which river flows through the village where Ilse Varga was born?"
    bridge = EvidenceItem(
        1,
        "a",
        "Ilse Varga",
        "ilse.txt",
        "Ilse Varga\n\nIlse Varga is a cartographer. She was born in 1902 in the village of "
        "Brennholt. She studied at the Academy of Tessaly.",
        1,
        followup="Which river flows through Brennholt?",
        chain=[Quote(2, "The river Amsel flows through the village.")],
    )
    found = EvidenceItem(
        2,
        "b",
        "Brennholt",
        "brennholt.txt",
        "Brennholt\n\nBrennholt is a village. The river Amsel flows through the village.",
        2,
        followup="Which river flows through Brennholt?",
        depth=1,
    )
    # The bridge's pronoun is framed by whom it stands for: quoted alone, "She" says no one.
    assert reasoner.compose(question, [bridge, found]) == (
        f"{LABEL} The river Amsel flows through the village. [2] "
        "Ilse Varga: “She was born in 1902 in the village of Brennholt.” [1]"
    )


def test_question_words_and_traditional_stop_words_are_not_content_terms():
    from treerag.reasoning.text import content_terms

    assert content_terms("RCEP具体包括哪些国家") == ["rcep", "具体", "包括", "国家"]
    assert content_terms("RCEP具體包括哪些國家") == ["rcep", "具體", "包括", "國家"]
    # 什麼 and 誰 are the Traditional forms of stop words: they go as their Simplified ones do.
    assert content_terms("航母的名字是什麼？誰設計的？") == ["航母", "名字", "設計"]
    assert content_terms("航母的名字是什么？谁设计的？") == ["航母", "名字", "设计"]


def test_a_question_in_a_document_is_never_quoted_as_the_answer(reasoner):
    """A headline that asks ("…是如何诞生的？") names the topic without saying it."""
    question = "北京冬奥会口号是什么"
    evidence = [
        EvidenceItem(
            1,
            "a",
            "冬奥百问",
            "faq.md",
            "第5期 冬奥百问丨北京冬奥会口号是如何诞生的？ 北京冬奥会的口号是“一起向未来”。",
            1,
        ),
        EvidenceItem(2, "b", "冬奥会", "games.md", "北京冬奥会口号的征集持续了一年多。", 1),
    ]
    text = reasoner.compose(question, evidence)
    first = re.findall(r"(.+?)\s*\[\d\]", text.replace(LABELS["zh-hans"], ""))[0]
    assert "一起向未来" in first, text
    assert "如何诞生" not in text


def test_a_clause_before_a_question_mark_states_and_chinese_sentences_end_at_their_mark():
    from treerag.reasoning.chunk_reading import asks

    assert asks("北京冬奥会口号是如何诞生的？") and asks("Why does the river flood?")
    # Only the last clause asks: the price before it is stated.
    assert not asks("原标题：iPhone SE3起售价3499元，凭这就能挖动10亿安卓用户？")
    # After 。 a sentence has ended, even when the next opens in lower case ("iPhone").
    text = "发布会后，苹果同步更新产品价格。 iPhone SE3成为焦点，起售价定为3499元。"
    assert sentences(text) == [
        "发布会后，苹果同步更新产品价格。",
        "iPhone SE3成为焦点，起售价定为3499元。",
    ]
    assert sentences("Pick Me Up! is a British magazine.") == ["Pick Me Up! is a British magazine."]
    # A closing quotation mark after 。 ends the quoted sentence; the next opens clean.
    text = "市长宣布“青州马拉松火炬接力开始。”他把火炬交给陆远舟。她说：「好。」"
    assert sentences(text) == [
        "市长宣布“青州马拉松火炬接力开始。”",
        "他把火炬交给陆远舟。",
        "她说：「好。」",
    ]
    # A question mark inside a parenthesis ends no sentence, and the pieces it cut are joined
    # as the document wrote them: a quote of the sentence is found in its chunk.
    text = '最大的模型突破了50%的大关（见图 "更好吗？"）。 资料来源：文献2.'
    assert sentences(text) == ['最大的模型突破了50%的大关（见图 "更好吗？"）。', "资料来源：文献2."]
    assert sentences("Giuliani (; born 1944) is a man.") == ["Giuliani (; born 1944) is a man."]


async def test_a_sentence_two_chunks_hold_is_quoted_once(reasoner):
    # Two copies of one report, differing only in whitespace: the answer is said once.
    copy = "规模投入要保持 \u3000\u3000科技部数据显示，2031年鹤城研发经费投入达3087亿元。"
    evidence = [
        EvidenceItem(n, str(n), "", f"report{n}.txt", text, 2)
        for n, text in ((1, copy), (2, copy.replace(" ", "  ")))
    ]
    question = "2031年鹤城研发经费投入是多少"
    for text in (
        reasoner.compose(question, evidence),
        await reasoner.answer(question, evidence, ""),
    ):
        assert text.count("3087亿元") == 1 and "[1]" in text and "[2]" not in text, text
