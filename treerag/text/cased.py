"""A question typed in lower case, read with the names its documents write (`with_names_cased`).

"in which town was the founder of the school jasper quill attended born" names Jasper Quill,
but names are told from words by their capitals (`proper_names`), so nothing in it reads as a
name: its description is not read and no follow-up can name the bridge. The retrieved
documents write the names the asker meant ("Jasper Quill (1860–1921) was…"): where a name
they write stands in the question in lower case, as whole words, it is put back as written.

- A name of two words or more ("jasper quill" → "Jasper Quill", "wrenfold academy") is one
  wherever it stands: two words that a document capitalises together are a name.
- A single word only when it is no English word (LemmInflect's lexicon, from the
  Automatically Generated Inflection Database, https://github.com/bjascob/LemmInflect):
  "thrennick" is a place, "crane" and "lark" stay words.
- A name the documents also write in lower case is a word there ("the soundtrack to the
  film"), and stays one.
- Chinese has no case: nothing changes. Nor does a name the question already capitalises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_LATIN_WORDS = re.compile(r"^[A-Za-z][A-Za-z'\-]*(?:\s+[A-Za-z][A-Za-z'\-]*)*$")
_MIN_WORD = 4
"""A single word shorter than this is too likely a word or an initial to be read as a name."""


@lru_cache(maxsize=8192)
def _is_english_word(word: str) -> bool:
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word.lower()))


def _casable(name: str) -> bool:
    if not _LATIN_WORDS.match(name) or name == name.lower():
        return False
    words = name.split()
    if len(words) > 1:
        return True
    return len(name) >= _MIN_WORD and not _is_english_word(name)


def with_names_cased(question: str, names: Iterable[str], texts: Iterable[str] = ()) -> str:
    """The question with the lower-case spelling of each of `names` written as the name is.

    `names` are the names the retrieved documents write (titles, `proper_names`), `texts`
    those documents: a name they also write in lower case ("the soundtrack to the film" of
    the title "Soundtrack") is a word there, and stays one. The longest name is put back
    first, so "wrenfold academy" is one name before "wrenfold" is read.
    """
    said = " ".join(texts)
    out = question
    for name in sorted({n.strip() for n in names if _casable(n.strip())}, key=len, reverse=True):
        pattern = re.compile(rf"(?<![\w'\-]){re.escape(name.lower())}(?![\w'\-])")
        if pattern.search(out) and not pattern.search(said):
            out = pattern.sub(name, out)
    return out
