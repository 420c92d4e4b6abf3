"""jieba (Chinese word segmentation), ready to use, with its dictionary loaded fast.

jieba reads its prefix dictionary (about 500,000 entries) from a `marshal` cache in the temp
folder. On a 2-core machine that load alone took 0.75 s of CPU, a third of `treerag search`.
The same tuple read back with `pickle` took 0.25 s, so the first process to need jieba writes
a pickle copy beside treerag's other caches ($XDG_CACHE_HOME/treerag, ~/.cache/treerag) and
later ones read that. Only the default dictionary is cached so; anything unusual (a user
dictionary set on jieba, an unreadable or stale cache) falls back to jieba's own loading.

Milvus Lite's BM25 analyzer for Chinese fields calls the same `jieba` module in this process,
so loading here first also speeds up what the store does with a Chinese query or chunk.
"""

from __future__ import annotations

import functools
import logging
import os
import pickle
import tempfile
from pathlib import Path
from types import ModuleType

log = logging.getLogger(__name__)


def cache_file(version: str) -> Path:
    """Where the pickled dictionary of this jieba version is kept."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "treerag" / f"jieba-{version}-dict.pickle"


@functools.cache
def jieba() -> ModuleType:
    """Return the `jieba` module with its default dictionary loaded, quietly."""
    import jieba as module

    module.setLogLevel(logging.WARNING)
    load_dictionary(module)
    return module


def posseg() -> ModuleType:
    """Return `jieba.posseg` (part-of-speech tagging) over the loaded dictionary."""
    import importlib

    jieba()
    return importlib.import_module("jieba.posseg")


def load_dictionary(module: ModuleType) -> None:
    """Load the default tokenizer's dictionary from the pickle cache, writing it if missing."""
    tokenizer = module.dt
    with tokenizer.lock:
        if tokenizer.initialized or tokenizer.dictionary != module.DEFAULT_DICT:
            return
        path = cache_file(module.__version__)
        try:
            with path.open("rb") as fh:
                freq, total = pickle.load(fh)
            if not isinstance(freq, dict) or not isinstance(total, int):
                raise ValueError("not a jieba dictionary")
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
            tokenizer.initialize()
            write_cache(path, (tokenizer.FREQ, tokenizer.total))
            return
        tokenizer.FREQ, tokenizer.total = freq, total
        tokenizer.initialized = True


def write_cache(path: Path, value: tuple[dict[str, int], int]) -> None:
    """Write the cache atomically (a temp file renamed into place); a failure only logs."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".jieba-")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError as exc:
        log.debug("jieba dictionary cache not written to %s: %s", path, exc)


def tag(text: str) -> list[tuple[str, str]]:
    """The (word, part of speech) pairs jieba gives a text, read in Simplified script.

    A foreign name jieba cuts into pieces is given back whole (`transliteration`).

    jieba's dictionary and its HMM for unknown words are Simplified: Traditional text falls
    through to the HMM a character at a time, which is slow (0.4 s for a 170-character news
    passage of rgb_zh_300 converted by OpenCC, 0.02 s for the same passage in Simplified) and
    finds fewer words. The text is tagged in Simplified and each word is given back as the
    text writes it, by position: OpenCC's t2s keeps a text's length, and where it would not,
    the text is tagged as written.
    """
    from treerag.text.canonical import to_simplified

    simple = to_simplified(text)
    same_length = len(simple) == len(text)
    pairs = joined([(p.word, p.flag) for p in posseg().cut(simple if same_length else text)])
    if simple == text or not same_length:
        return pairs
    out: list[tuple[str, str]] = []
    at = 0
    for word, flag in pairs:
        out.append((text[at : at + len(word)], flag))
        at += len(word)
    return out


def word_tag(word: str) -> str:
    """The part of speech jieba's dictionary gives a (Simplified) word, "" when it has none."""
    return str(_word_tags().get(word, ""))


@functools.cache
def _word_tags() -> dict[str, str]:
    """The part of speech of each word of jieba's dictionary (looked up word by word)."""
    return posseg().dt.word_tag_tab


def tokens(text: str) -> list[tuple[str, int, int]]:
    """The words jieba cuts a text into, as (word as written, start, end), read in Simplified.

    A foreign name jieba cuts into pieces is one word (`transliteration`).

    As `tag` does, for the same reason: Traditional text as written is cut a character at a
    time where the dictionary has the word ("舉辦地" is 舉辦 / 地, "举办地" one word).
    """
    from treerag.text.canonical import to_simplified

    simple = to_simplified(text)
    read = simple if len(simple) == len(text) else text
    words = joined_words(jieba().lcut(read))
    out, at = [], 0
    for word in words:
        out.append((text[at : at + len(word)], at, at + len(word)))
        at += len(word)
    return out


def joined_words(words: list[str]) -> list[str]:
    """The words jieba cut a text into, the pieces of a foreign name joined (`transliteration`).

    The words may be Traditional: they are read in Simplified, as the dictionary is.
    """
    from treerag.text.canonical import to_simplified
    from treerag.transliteration import may_join

    text = "".join(words)
    simple_text = to_simplified(text)
    if len(simple_text) != len(text):
        return words
    simple, at = [], 0
    for word in words:
        simple.append(simple_text[at : at + len(word)])
        at += len(word)
    if not may_join(simple):
        return words
    out, at = [], 0
    for word, _ in joined([(w, word_tag(w)) for w in simple]):
        out.append(text[at : at + len(word)])
        at += len(word)
    return out


def joined(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(word, tag) pairs of Simplified text with foreign names whole (`transliteration`)."""
    from treerag.transliteration import join_foreign_names

    return join_foreign_names(pairs)
