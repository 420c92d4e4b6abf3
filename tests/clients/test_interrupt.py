"""Ctrl-C during a chat turn: the turn stops, the handler is put back, nothing else raises."""

from __future__ import annotations

import asyncio
import signal
import time

import pytest

from treerag.cli.interrupt import TurnInterrupt


async def _partial_then_stop(seen: list[str]) -> str:
    """Stream two parts, get Ctrl-C, keep what arrived (as the chat's turn does)."""
    try:
        seen.append("first")
        await asyncio.sleep(0)
        signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(30)
        seen.append("never")
    except asyncio.CancelledError:
        return "+".join(seen)
    return "finished"


def test_ctrl_c_stops_the_turn_and_keeps_what_arrived():
    seen: list[str] = []
    with asyncio.Runner() as runner, TurnInterrupt(runner.get_loop()) as ctrl_c:
        start = time.perf_counter()
        stopped, result = runner.run(ctrl_c.run(_partial_then_stop(seen)))
    assert (stopped, result) == (True, "first")
    assert time.perf_counter() - start < 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_before_the_loop_runs_still_stops_the_turn():
    async def work() -> str:
        await asyncio.sleep(30)
        return "finished"

    with asyncio.Runner() as runner, TurnInterrupt(runner.get_loop()) as ctrl_c:
        signal.raise_signal(signal.SIGINT)  # e.g. while the live view is starting
        stopped, result = runner.run(ctrl_c.run(work()))
    assert (stopped, result) == (True, None)


def test_a_turn_that_will_not_stop_is_left_after_the_grace():
    async def stubborn() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(3)  # winding down takes far longer than the grace
        return "late"

    async def interrupted(ctrl_c: TurnInterrupt) -> tuple[bool, str | None]:
        asyncio.get_running_loop().call_later(0.05, signal.raise_signal, signal.SIGINT)
        return await ctrl_c.run(stubborn())

    with asyncio.Runner() as runner, TurnInterrupt(runner.get_loop(), grace_s=0.1) as ctrl_c:
        start = time.perf_counter()
        assert runner.run(interrupted(ctrl_c)) == (True, None)
        assert time.perf_counter() - start < 1.5


def test_without_ctrl_c_the_result_and_errors_come_through():
    async def answer() -> str:
        await asyncio.sleep(0)
        return "answer"

    async def broken() -> str:
        raise RuntimeError("model endpoint refused")

    with asyncio.Runner() as runner, TurnInterrupt(runner.get_loop()) as ctrl_c:
        assert runner.run(ctrl_c.run(answer())) == (False, "answer")
        with pytest.raises(RuntimeError, match="refused"):
            runner.run(ctrl_c.run(broken()))
    # Outside a turn Ctrl-C is the program's again (the prompt relies on it).
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
