"""`treerag chat` in a pseudo-terminal: in-process on an ingested copy, and against the server."""

from __future__ import annotations

import io
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.clients.server import offline_env

pytestmark = pytest.mark.slow

PROMPT = "you ›"
QUESTION = "Who led the fishers that founded Quillhaven?"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn_chat(data_dir: Path, cwd: Path, *args: str) -> pexpect.spawn:
    # PYTHONFAULTHANDLER: a stuck chat is sent SIGABRT and prints every thread's stack.
    env = offline_env(
        data_dir, COLUMNS="160", LINES="50", TERM="xterm-256color", PYTHONFAULTHANDLER="1"
    )
    child = pexpect.spawn(
        sys.executable,
        ["-m", "treerag", "chat", *args],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        dimensions=(50, 160),
        timeout=120,
    )
    child.logfile_read = io.StringIO()
    return child


def screen(text: str) -> str:
    """What a reader sees of the output: no escape codes, one line per line."""
    return _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")


def expect(child: pexpect.spawn, pattern: Any) -> str:
    """Wait for `pattern`; return the raw output before it, or fail showing the screen."""
    try:
        child.expect(pattern)
    except (pexpect.TIMEOUT, pexpect.EOF) as exc:
        shown = screen(child.logfile_read.getvalue())[-4000:]
        stacks = ""
        if child.isalive():
            child.kill(signal.SIGABRT)
            child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=10)
            stacks = screen(child.before or "").split("Extension modules:")[0][-8000:]
        pytest.fail(
            f"{type(exc).__name__} waiting for {pattern!r}; the terminal showed:\n{shown}"
            f"\n--- threads of the stuck chat ---\n{stacks}"
        )
    return child.before


def ask(child: pexpect.spawn, text: str) -> str:
    child.sendline(text)
    return screen(expect(child, PROMPT))


def quit_chat(child: pexpect.spawn) -> None:
    child.sendline("/quit")
    expect(child, pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, screen(child.logfile_read.getvalue())


def test_terminal_chat_in_process(data_copy, tmp_path):
    child = spawn_chat(data_copy, tmp_path, "--max-depth", "1")
    assert "offline reasoner answers" in screen(expect(child, PROMPT))

    out = ask(child, QUESTION)
    assert "[offline extractive answer]" in out and "Quillhaven" in out
    thread = re.search(r"thread (\w+) · tree (\w+-t1)", out)
    assert thread, out

    child.sendline("/tree")
    raw_tree = expect(child, PROMPT)
    tree = screen(raw_tree)
    assert QUESTION in tree and thread.group(2) in tree and "↳" in tree
    assert "\x1b[32m" in raw_tree or "\x1b[33m" in raw_tree  # scores are coloured

    # Ctrl-C stops the running answer, not the chat.
    child.sendline("Which guild built the ship captained by Aldous Brennick?")
    expect(child, "retrieving")
    child.sendintr()
    expect(child, "stopped")
    expect(child, PROMPT)

    out = ask(child, "/threads")
    assert thread.group(1) in out
    quit_chat(child)


def test_terminal_chat_against_the_server_and_resume(server_url, tmp_path):
    child = spawn_chat(tmp_path / "unused", tmp_path, "--url", server_url, "--max-depth", "1")
    expect(child, PROMPT)
    out = ask(child, QUESTION)
    assert "[offline extractive answer]" in out
    thread = re.search(r"thread ([\w-]+) · tree ([\w-]+-t1)", out)
    assert thread, out
    tree = ask(child, "/tree")
    assert QUESTION in tree and thread.group(2) in tree
    assert thread.group(1) in ask(child, "/threads")
    quit_chat(child)

    child = spawn_chat(
        tmp_path / "unused", tmp_path, "--url", server_url, "--thread-id", thread.group(1)
    )
    history = screen(expect(child, PROMPT))
    assert thread.group(1) in history and QUESTION in history
    assert "/tree" in history  # the help line
    # A resumed session has no folded tree: the server rebuilds it from its checkpoints.
    tree = ask(child, "/tree")
    assert QUESTION in tree and thread.group(2) in tree and "↳" in tree
    quit_chat(child)
