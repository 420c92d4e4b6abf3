"""Which date a sentence gives the asked event, and names as a user types them (made up).

- A planned date ("due to be launched in 1877", 原定于…, 将于…) and the date a work was begun
  (始建, "laid down") are no values for when it happened, where the sentence says that too.
- Of several dates, the one in the clause of the asked verb comes first.
- A lower-case question is read with the names its documents write ("jasper quill").
- A title opening with "The" is named without it; a former name glued to a Chinese name
  (柳湾镇旧称) is what is asked, not part of the name.
"""

from treerag.reasoning.answering import answering
from treerag.reasoning.named import names_title
from treerag.reasoning.reading import read_question
from treerag.text.cased import with_names_cased


def _filler(question: str, text: str, title: str = "") -> str:
    found = answering(question, title, text)
    return found.filler if found else ""


def test_a_planned_date_is_no_value_where_the_sentence_says_what_happened():
    text = "It was due to open in 1880, but the station opened in 1882 after a flood."
    assert _filler("When did the station open?", text, "Tarrow Station") == "1882"
    text = "该馆原定于1954年开放，因故推迟，直到1957年才正式开放。"
    assert _filler("该馆是哪一年开放的？", text, "青梧博物馆") == "1957"
    found = answering("When did the station open?", "Tarrow Station", text.replace("1957", "X"))
    assert found is None or found.filler != "1954"


def test_news_of_what_is_to_come_gives_the_plan_as_the_event_s_date():
    # The only fact is the announcement's day, outside the clause of the asked verb.
    text = "5月23日下午，联赛官方宣布2022赛季联赛将于6月3日在三大赛区开赛。"
    assert _filler("2022赛季联赛开赛时间是什么时候？", text) == "6月3日"


def test_a_question_asking_for_the_plan_gets_it():
    text = "The bridge was scheduled to open in 1880 and opened in 1882."
    found = answering("When was the bridge scheduled to open?", "Carrow Bridge", text)
    assert found is not None and "1880" in found.candidates


def test_a_begun_work_s_date_is_not_its_completion():
    text = "它始建于1893年，直到1896年才落成。"
    assert _filler("望江桥是哪一年建成的？", text, "望江桥") == "1896"
    text = "She was laid down in 1876 and launched in 1878."
    assert _filler("In what year was the Grey Gull launched?", text, "The Grey Gull") == "1878"
    assert _filler("望江桥是哪一年开工的？", "它于1893年开工，1896年建成。", "望江桥") == "1893"


def test_the_asked_verb_s_clause_holds_its_date():
    text = "The school was founded in 1871, moved in 1888."
    assert _filler("When was the school founded?", text, "Lowfield School") == "1871"
    text = "The school moved in 1888, and was founded in 1871 by Ada Venn."
    assert _filler("When was the school founded?", text, "Lowfield School") == "1871"


def test_a_lower_case_question_is_read_with_the_names_its_documents_write():
    names = ["Jasper Quill", "Wrenfold Academy", "Thrennick", "Crane", "Among"]
    question = "in which town was the founder of the school jasper quill attended born"
    assert with_names_cased(question, names) == (
        "in which town was the founder of the school Jasper Quill attended born"
    )
    assert with_names_cased("which river flows through thrennick", names).endswith("Thrennick")
    # A single English word is a word, whatever a document capitalises.
    assert with_names_cased("who owned the crane", names) == "who owned the crane"
    assert with_names_cased("柳湾镇旧称什么？", names) == "柳湾镇旧称什么？"
    # A name the documents also write in lower case is a word there.
    texts = ["Soundtrack of the Sea is the soundtrack to the film."]
    question = "who produced the soundtrack of the film"
    assert with_names_cased(question, ["Soundtrack"], texts) == question
    assert with_names_cased("where was jasper quill born", names, texts).endswith(
        "Jasper Quill born"
    )


def test_a_title_opening_with_the_is_named_without_it():
    assert names_title("In what year was Marrow Lark launched?", "The Marrow Lark")
    assert not names_title("In what year was the lark launched?", "The Marrow Lark")


def test_a_former_name_glued_to_a_chinese_name_is_what_is_asked():
    reading = read_question("柳湾镇旧称什么？")
    assert reading.entities == ("柳湾镇",) and reading.relation == ("旧称",)
    text = "柳湾镇是一个古镇，以染织业闻名。该镇旧称“柳家湾”，清乾隆年间改为今名。"
    assert _filler("柳湾镇旧称什么？", text, "柳湾镇") == "柳家湾"
    text = "石渠村是一座村落。該村舊稱「下渠莊」，清道光年間改用今名。"
    assert _filler("石渠村原名叫什麼？", text, "石渠村") == "下渠庄"


def test_a_lower_case_two_hop_question_is_answered_along_its_chain(tmp_path):
    import asyncio

    from treerag.api import ask
    from treerag.context import Context
    from treerag.ingest.indexer import ingest

    docs = {
        "mirabel_oakhurst.txt": "Mirabel Oakhurst\nMirabel Oakhurst (1838–1909) was a "
        "schoolmistress. She was born in Thrennick in 1838, but she grew up in Lowmarsh.\n",
        "thrennick.txt": "Thrennick\nThrennick is a market town. The River Soale flows through it.\n",
        "lowmarsh.txt": "Lowmarsh\nLowmarsh is a fishing port. The Wend Brook flows past it.\n",
    }
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in docs.items():
        (root / name).write_text(text, encoding="utf-8")
    ctx = Context(data_dir=str(tmp_path / "data"), collection="lower")
    ingest([root], ctx)
    question = "which river flows through the town where mirabel oakhurst was born"
    answer = asyncio.run(ask(question, ctx))["answer"]
    # The last hop's answer, then the bridge that ties it to the woman asked about, each
    # framed by whom or what its pronoun stands for.
    assert "Thrennick: “The River Soale flows through it.”" in answer
    assert "Mirabel Oakhurst: “She was born in Thrennick" in answer
    assert answer.index("Soale") < answer.index("born in Thrennick")


def test_a_frame_spells_a_file_named_title_as_a_name():
    from treerag.reasoning.wording import framed

    question = "Where was Oswin Tallery born?"
    said = framed("oswin_tallery", "He was born at Harrowmere.", question)
    assert said == "Oswin Tallery: “He was born at Harrowmere.”"
    assert framed("Ilse Varga", "She was born.", question).startswith("Ilse Varga: ")
