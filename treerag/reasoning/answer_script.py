"""A model's answer, as it streams, written in the question's language and script.

A chat model writes its answer in its own words, and those are the system's words: the
question's language, and for a Chinese question its script (`wording`). Measured with the
bundled 1.5B model, a Traditional question got an answer mixing the scripts ("许若兰出生於松嶺鎮")
and another an answer in English. So, piece by piece as the model streams:

- the answer's opening decides its language: once it holds `DECIDING_LETTERS` letters, a
  Chinese question's answer with no Chinese character in them, or an English question's
  answer with more Chinese characters than Latin letters, is refused (`WrongLanguage`): the
  offline answer stands in, as for any failed model answer. Nothing of it has been streamed:
  the opening is held back until it is decided;
- a Chinese answer is converted to the question's script (OpenCC), a clause at a time, so
  that a phrase the conversion reads whole is not cut between two pieces. Citation marks are
  ASCII and pass unchanged;
- given the answer the tree's chain found (`expected`, for a model too small to be trusted
  against it), the first sentence is held back until it ends and must say that answer, in
  either script (`canonical`): the 1.5B model, shown "他出生在渡口县" as the chain's answer,
  still wrote the birthplace of the question's own entity. One that does not is refused
  (`OffChain`), and the offline answer, which quotes the chain, stands in.
"""

from __future__ import annotations

import re

from treerag.reasoning.wording import in_script
from treerag.text import HAN_CHAR, canonical
from treerag.text.script import Script

DECIDING_LETTERS = 24
"""Letters (Chinese characters and Latin letters) that decide an answer's language."""

_LATIN_LETTER = re.compile(r"[A-Za-z]")
_BOUNDARY = re.compile(r"[\s,.;:!?，。；：！？、）)\]」』”]")
"""Where a piece of converted text may end: a space or a punctuation mark."""


_SENTENCE_END = re.compile(r"[。！？!?]|\.(?=\s|$)(?<!\b[A-Z]\.)(?<!\bSt\.)")
"""The end of a first sentence: a full stop before a space (not an initial's, not "St.")."""


class WrongLanguage(ValueError):
    """The model answered in another language than the question's."""


class OffChain(ValueError):
    """The model's first sentence does not say the answer the tree's chain found."""


class ScriptedAnswer:
    """Feed a streamed answer piece by piece; get back what may be shown, in the right script."""

    def __init__(self, script: Script, expected: str = ""):
        """Write for a question of `script` ("en", "zh-hans" or "zh-hant").

        Args:
            script: The question's script.
            expected: The chain's answer the first sentence must say ("": none checked).
        """
        self.script = script
        self.expected = canonical(expected)
        self.decided = False
        self._pending = ""

    def feed(self, piece: str) -> str:
        """The text that can be shown now (converted), "" while it is held back.

        Raises:
            WrongLanguage: The answer's opening is in the other language.
            OffChain: Its first sentence does not say the chain's answer.
        """
        self._pending += piece
        if not self.decided:
            if _letters(self._pending) < DECIDING_LETTERS:
                return ""
            self._decide()
        if self.expected:
            end = _SENTENCE_END.search(self._pending)
            if end is None:
                return ""
            self._check(self._pending[: end.end()])
        cut = max((m.end() for m in _BOUNDARY.finditer(self._pending)), default=0)
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        return in_script(ready, self.script)

    def flush(self) -> str:
        """The rest of the answer, once the model has finished.

        Raises:
            WrongLanguage: The whole answer is in the other language.
            OffChain: It does not say the chain's answer.
        """
        if not self.decided and _letters(self._pending):
            self._decide()
        if self.expected:
            self._check(self._pending)
        rest, self._pending = self._pending, ""
        return in_script(rest, self.script)

    def _decide(self) -> None:
        han = len(HAN_CHAR.findall(self._pending))
        latin = len(_LATIN_LETTER.findall(self._pending))
        if (self.script != "en" and not han) or (self.script == "en" and han > latin):
            raise WrongLanguage(self._pending.strip()[:60])
        self.decided = True

    def _check(self, first: str) -> None:
        if self.expected not in canonical(first):
            raise OffChain(first.strip()[:80])
        self.expected = ""  # said: the rest streams as it comes


def _letters(text: str) -> int:
    return len(HAN_CHAR.findall(text)) + len(_LATIN_LETTER.findall(text))
