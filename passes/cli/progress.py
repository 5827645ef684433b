"""Progress messages for long command-line work, on stderr (silenced by ``--quiet``).

``with progress.stage("tracing f"):`` prints ``tracing f ...`` when the stage starts and
``tracing f: done in 0.41 s`` when it ends; while a stage runs longer than a couple of seconds a
background ticker prints ``... still tracing f (6 s)`` so that big graphs never look hung.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """Stage messages with elapsed times; a no-op when ``quiet``."""

    def __init__(self, quiet: bool = False, stream: TextIO | None = None, tick_seconds: float = 3.0) -> None:
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.tick_seconds = tick_seconds

    def note(self, message: str) -> None:
        if not self.quiet:
            print(message, file=self.stream, flush=True)

    @contextlib.contextmanager
    def stage(self, what: str) -> Iterator[None]:
        if self.quiet:
            yield
            return
        self.note(f"{what} ...")
        start = time.perf_counter()
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(self.tick_seconds):
                self.note(f"... still {what} ({time.perf_counter() - start:.0f} s)")

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
        self.note(f"{what}: done in {time.perf_counter() - start:.2f} s")
