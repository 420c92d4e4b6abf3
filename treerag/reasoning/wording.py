"""The system's own words in the question's language and script.

Everything treerag itself writes into an answer (the offline label, "could not find", the
note that a model failed) is said in the language of the question, and a Chinese question
gets it in its own script: Traditional characters for a Traditional question, Simplified for
a Simplified one. For a question written the same in both scripts ("上海2021年的GDP是多少")
the offline answer's label, its "could not find" and the names it frames quotes with take the
script of the documents that answer it; the other sentences (a model's failure, follow-ups)
keep the question's, read as Simplified. Quoted document sentences are never
converted: a citation quotes what the document says, as it says it.

A text's script is read from the characters that tell the two apart: a character that
OpenCC's Traditional-to-Simplified tables change is Traditional (about 2,700 of them: 這, 鐵,
於), one its Simplified-to-Traditional tables change is Simplified (这, 铁). Most characters
are shared (中, 山, 年); a text holding only those reads as Simplified, the common case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from treerag.text import convert, has_han
from treerag.text.script import Script, script_neutral, script_of_text

LABELS: dict[Script, str] = {
    "en": "[offline extractive answer]",
    "zh-hans": "[离线摘录回答]",
    "zh-hant": "[離線摘錄回答]",
}
"""What an offline answer opens with: it quotes the documents, no model wrote it."""

NOT_FOUND: dict[Script, str] = {
    "en": "I could not find an answer to this in the ingested documents.",
    "zh-hans": "在已导入的文档中没有找到这个问题的答案。",
    "zh-hant": "在已匯入的文件中沒有找到這個問題的答案。",
}

MODEL_FAILED: dict[Script, str] = {
    "en": "The answer model failed ({why}); this answer quotes the documents instead.",
    "zh-hans": "回答模型出错（{why}），以下改为直接引用文档。",
    "zh-hant": "回答模型出錯（{why}），以下改為直接引用文件。",
}
"""The one sentence a run says when its chat model could not write the answer."""

JUDGES_FAILED: dict[Script, str] = {
    "en": "The chat model failed on {failed} of {judged} judgements ({why}); the offline "
    "judge's verdicts stand in for them.",
    "zh-hans": "聊天模型在 {judged} 次判断中有 {failed} 次出错（{why}），这些由离线判断代替。",
    "zh-hant": "聊天模型在 {judged} 次判斷中有 {failed} 次出錯（{why}），這些由離線判斷代替。",
}
"""The one sentence a run says when some of its model judges failed."""

STORES_UNREAD: dict[Script, str] = {
    "en": "The {stores} could not be read, so this answer was found without {it}; a rebuild "
    "(the Documents panel, or `treerag docs rebuild`) makes {it} again from the documents.",
    "zh-hans": "{stores}无法读取，本回答未使用{it}；重建（文档面板，或 `treerag docs rebuild`）"
    "可从文档重新生成。",
    "zh-hant": "{stores}無法讀取，本回答未使用{it}；重建（文件面板，或 `treerag docs rebuild`）"
    "可從文件重新生成。",
}
"""The one sentence a run says when a store derived from the documents could not be read."""
_IT: dict[Script, tuple[str, str]] = {
    "en": ("it", "them"),
    "zh-hans": ("它", "它们"),
    "zh-hant": ("它", "它們"),
}
STORE_NAMES: dict[Script, dict[str, str]] = {
    "en": {"keyword_tree": "keyword tree", "knowledge_graph": "knowledge graph"},
    "zh-hans": {"keyword_tree": "关键词树", "knowledge_graph": "知识图谱"},
    "zh-hant": {"keyword_tree": "關鍵詞樹", "knowledge_graph": "知識圖譜"},
}


def in_script(text: str, script: Script) -> str:
    """Write Chinese text in the given script (a no-op for English and Latin text)."""
    if script == "en" or not has_han(text):
        return text
    return convert(text, "s2t" if script == "zh-hant" else "t2s")


def name_in_script(name: str, script: Script) -> str:
    """A name in the given script, kept as written when it already shows that script.

    "范靜宜" in a Traditional document stays as it is: OpenCC's s2t writes the surname 范 as
    範 (the character of 模範), and a name the document writes in Traditional needs no
    conversion; a Simplified name for a Traditional question is converted (`in_script`).
    """
    if script == "zh-hant" and convert(name, "t2s") != name:
        return name
    return in_script(name, script)


def answer_script(question: str, documents: str = "") -> Script:
    """The script the system answers a question in (see the module's docstring).

    The question's, or when a Chinese question is written the same in both scripts, that of
    the `documents` it is answered from.
    """
    script = script_of_text(question)
    if script == "en" or not documents or not script_neutral(question):
        return script
    read = script_of_text(documents)
    return script if read == "en" else read


def label(question: str, documents: str = "") -> str:
    """The offline answer's label in the question's language and script (`answer_script`)."""
    return LABELS[answer_script(question, documents)]


def not_found(question: str, documents: str = "") -> str:
    """Say "I could not find an answer…" in the question's language and script."""
    return NOT_FOUND[answer_script(question, documents)]


UNJUDGED_READ: dict[Script, str] = {
    "en": "No retrieved passage was judged to answer this; the answer reads the closest "
    "passages the search found.",
    "zh-hans": "没有一段检索到的文字被判定能回答这个问题；以下读自检索到的最接近的段落。",
    "zh-hant": "沒有一段檢索到的文字被判定能回答這個問題；以下讀自檢索到的最接近的段落。",
}
"""The one sentence a root run says when its judges found no passage useful and its answer
read the passages its search ranked first instead (`nodes.answer.closest_passages`)."""


def unjudged_read(question: str) -> str:
    """Say that the answer reads passages no judge found useful (`UNJUDGED_READ`)."""
    return UNJUDGED_READ[script_of_text(question)]


SetAside = Literal["language", "chain"]
SET_ASIDE: dict[SetAside, dict[Script, str]] = {
    "language": {
        "en": "it answered in another language",
        "zh-hans": "它用另一种语言作答",
        "zh-hant": "它用另一種語言作答",
    },
    "chain": {
        "en": "its answer did not say what the search tree's chain found",
        "zh-hans": "它的回答没有给出检索链找到的答案",
        "zh-hant": "它的回答沒有給出檢索鏈找到的答案",
    },
}
"""Why a model's answer was set aside (`answer_script`): written in another language than
the question's, or not saying the answer the tree's chain found."""


def set_aside(question: str, why: SetAside) -> str:
    """Why the answer model's answer was not used (`SET_ASIDE`), in the question's script."""
    return SET_ASIDE[why][script_of_text(question)]


def model_failed(question: str, why: str) -> str:
    """The sentence that says the chat model failed and the documents stand in for it."""
    return MODEL_FAILED[script_of_text(question)].format(why=why)


def stores_unread(question: str, stores: Sequence[str]) -> str:
    """The sentence that says which derived stores a run went on without, "" when none."""
    if not stores:
        return ""
    script = script_of_text(question)
    joiner = " and " if script == "en" else "和"
    names = joiner.join(STORE_NAMES[script].get(s, s) for s in stores)
    return STORES_UNREAD[script].format(stores=names, it=_IT[script][len(stores) > 1])


_FILE_STEM = re.compile(r"[a-z]+(?:_[a-z]+)+")
"""A snake-case file name standing for a title: "marta_velik"."""


def framed(name: str, quote: str, question: str) -> str:
    """A quote introduced by the name its pronoun stands for: `Pavel Orsk: “In 1931 he…”`.

    The quote stays as the document writes it; the name before it is the system's, in the
    script of the question or, for a question written alike in both, of the quote.
    """
    script = answer_script(question, quote)
    if _FILE_STEM.fullmatch(name):
        # A document titled by its file's name ("oswin_tallery.txt"): the name it spells.
        name = " ".join(word.capitalize() for word in name.split("_"))
    if script == "en":
        return f"{name}: “{quote}”"
    return f"{name_in_script(name, script)}：「{quote}」"


_FRAMED = re.compile(r"[“「](.+)[”」]\s*$", re.S)


def quoted(text: str) -> str:
    """The document's words in a possibly framed quote (`framed`), else the text itself."""
    match = _FRAMED.search(text)
    return match.group(1) if match else text


def judges_failed(question: str, failed: int, judged: int, why: str) -> str:
    """The sentence that says how many judges failed and that the offline judge stood in."""
    return JUDGES_FAILED[script_of_text(question)].format(failed=failed, judged=judged, why=why)


def strip_label(text: str) -> str:
    """The answer without the offline label, in whichever language it was written."""
    for text_label in LABELS.values():
        text = text.replace(text_label, " ")
    return text


def is_offline_answer(text: str) -> bool:
    """Whether an answer carries the offline label (in any of its languages)."""
    return any(text_label in text for text_label in LABELS.values())
