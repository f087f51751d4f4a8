"""Progress: the CLI's progress line for long commands (import, re-embedding, replay, consolidate).

Its own module so that every CLI command module can use it without importing the `memubot`
entry point (daemon/cli/main.py), which imports them.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Progress on stderr: a live line on a terminal, a line every 10% otherwise."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        # looked up now, not when this module was imported: a redirected stderr gets the progress
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.start = time.perf_counter()
        self._last_decile = -1

    def __call__(self, done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        line = f"{self.label}: {done}/{total} ({100 * done / max(total, 1):.0f}%) {rate:.0f}/s"
        if self.tty:
            self.stream.write("\r" + line + ("\n" if done >= total else ""))
            self.stream.flush()
            return
        decile = int(10 * done / max(total, 1))
        if decile != self._last_decile:
            self._last_decile = decile
            self.stream.write(line + "\n")
            self.stream.flush()
