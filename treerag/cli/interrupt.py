"""Ctrl-C during a chat turn stops the turn, never the program."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")


class TurnInterrupt:
    """While entered, SIGINT asks the running turn to stop instead of raising KeyboardInterrupt.

    Python's default handler raises KeyboardInterrupt wherever the main thread happens to
    be, e.g. halfway through starting rich's live view; asyncio.Runner's own handler only
    runs once the main thread wakes, and a signal taken by another thread does not wake an
    event loop that is not listening for it. So the handler is the loop's
    (`loop.add_signal_handler`, which wakes the loop through its self-pipe): it records the
    request, and `run` cancels the turn's task and waits at most `grace_s` for it to wind
    down. Enter this before the live view starts and leave it after it ends; outside, Ctrl-C
    raises KeyboardInterrupt again (the prompt relies on that).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, grace_s: float = 5.0):
        """`loop`: the loop the turn runs on; `grace_s`: how long a cancelled turn may take."""
        self.loop = loop
        self.grace_s = grace_s
        self.requested = False
        self._installed = False
        self._event: asyncio.Event | None = None

    def __enter__(self) -> TurnInterrupt:
        """Install the handler (only the main thread may; elsewhere Ctrl-C is not ours)."""
        if threading.current_thread() is threading.main_thread():
            self.loop.add_signal_handler(signal.SIGINT, self._request)
            self._installed = True
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Give SIGINT back to Python's default handler."""
        if self._installed:
            self.loop.remove_signal_handler(signal.SIGINT)
            self._installed = False

    def _request(self) -> None:
        self.requested = True
        if self._event is not None:
            self._event.set()

    async def run(self, coro: Coroutine[Any, Any, T]) -> tuple[bool, T | None]:
        """Run `coro` until it ends or Ctrl-C; return (stopped, its result or None).

        A stopped coroutine is cancelled and may still return a result (what arrived before
        it stopped). If it is not done after `grace_s` it is left to finish on the loop.
        """
        self._event = asyncio.Event()
        if self.requested:  # Ctrl-C came before the loop was running
            self._event.set()
        work = asyncio.ensure_future(coro)
        stop = asyncio.ensure_future(self._event.wait())
        try:
            await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if work.done():
            return False, work.result()
        work.cancel()
        await asyncio.wait({work}, timeout=self.grace_s)
        if work.done() and not work.cancelled() and work.exception() is None:
            return True, work.result()
        if work.done() and not work.cancelled():
            work.exception()  # retrieved: a stopped turn's error is not reported
        return True, None
