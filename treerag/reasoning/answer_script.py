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
  ASCII and pass unchanged.
"""

from __future__ import annotations

import re

from treerag.reasoning.wording import in_script
from treerag.text import HAN_CHAR
from treerag.text.script import Script

DECIDING_LETTERS = 24
"""Letters (Chinese characters and Latin letters) that decide an answer's language."""

_LATIN_LETTER = re.compile(r"[A-Za-z]")
_BOUNDARY = re.compile(r"[\s,.;:!?，。；：！？、）)\]」』”]")
"""Where a piece of converted text may end: a space or a punctuation mark."""


class WrongLanguage(ValueError):
    """The model answered in another language than the question's."""


class ScriptedAnswer:
    """Feed a streamed answer piece by piece; get back what may be shown, in the right script."""

    def __init__(self, script: Script):
        """Write for a question of `script` ("en", "zh-hans" or "zh-hant")."""
        self.script = script
        self.decided = False
        self._pending = ""

    def feed(self, piece: str) -> str:
        """The text that can be shown now (converted), "" while it is held back.

        Raises:
            WrongLanguage: The answer's opening is in the other language.
        """
        self._pending += piece
        if not self.decided:
            if _letters(self._pending) < DECIDING_LETTERS:
                return ""
            self._decide()
        cut = max((m.end() for m in _BOUNDARY.finditer(self._pending)), default=0)
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        return in_script(ready, self.script)

    def flush(self) -> str:
        """The rest of the answer, once the model has finished.

        Raises:
            WrongLanguage: The whole answer is in the other language.
        """
        if not self.decided and _letters(self._pending):
            self._decide()
        rest, self._pending = self._pending, ""
        return in_script(rest, self.script)

    def _decide(self) -> None:
        han = len(HAN_CHAR.findall(self._pending))
        latin = len(_LATIN_LETTER.findall(self._pending))
        if (self.script != "en" and not han) or (self.script == "en" and han > latin):
            raise WrongLanguage(self._pending.strip()[:60])
        self.decided = True


def _letters(text: str) -> int:
    return len(HAN_CHAR.findall(text)) + len(_LATIN_LETTER.findall(text))
