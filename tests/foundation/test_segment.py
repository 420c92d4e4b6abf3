"""jieba's dictionary is read from treerag's pickle cache, and segments as jieba's own load does.

Each case runs in a fresh interpreter with its own cache folder: the dictionary is loaded once
per process, so an in-process test would see whatever an earlier test loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SENTENCE = "潮匠行会建造了潮汐号，船长是阿尔杜斯·布伦尼克。"

PROBE = f"""
import json, sys
import jieba
used_jieba_loader = []
original = jieba.dt.initialize
def spy(*args, **kwargs):
    used_jieba_loader.append(True)
    return original(*args, **kwargs)
jieba.dt.initialize = spy
from treerag.segment import jieba as ready
words = ready().lcut({SENTENCE!r})
print(json.dumps({{"words": words, "jieba_loader": bool(used_jieba_loader)}}))
"""


def probe(cache: Path) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def plain_jieba_words() -> list[str]:
    code = f"import json, jieba\nprint(json.dumps(jieba.lcut({SENTENCE!r})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_process_writes_the_cache_and_the_next_reads_it_without_jieba_s_loader(
    tmp_path: Path,
) -> None:
    first = probe(tmp_path)
    cached = list((tmp_path / "treerag").glob("jieba-*-dict.pickle"))
    assert first["jieba_loader"] is True
    assert len(cached) == 1
    second = probe(tmp_path)
    assert second["jieba_loader"] is False
    assert second["words"] == first["words"] == plain_jieba_words()


def test_a_corrupt_cache_falls_back_to_jieba_s_loader_and_is_rewritten(tmp_path: Path) -> None:
    probe(tmp_path)
    cache = next((tmp_path / "treerag").glob("jieba-*-dict.pickle"))
    cache.write_bytes(b"not a pickle")
    again = probe(tmp_path)
    assert again["jieba_loader"] is True
    assert again["words"] == plain_jieba_words()
    assert cache.stat().st_size > 1_000_000
    assert probe(tmp_path)["jieba_loader"] is False


def test_an_unwritable_cache_folder_still_segments(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    result = probe(blocker)
    assert result["jieba_loader"] is True
    assert result["words"] == plain_jieba_words()
