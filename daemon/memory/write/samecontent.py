"""Stage 1's exact match, kept beside a scope index: rows by category, speaker and content hash.

Dedup's exact candidate for a draft is the lowest id among the scope's active items of the same
category and speaker whose one-line text has the same hash (`writeplan.item_hash`). Asking
DuckDB for them on every batch scanned the scope; here every row is filed under its key once
(a row's text, category and speaker never change) and activity is read from the index at lookup.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from daemon.memory.write.plan import item_hash

Key = tuple[str, str, str]  # (category, speaker or "", content hash)


class SameContent:
    """Rows of a scope index by (category, speaker, content hash), brought up to date per batch."""

    def __init__(self) -> None:
        self._rows: dict[Key, list[int]] = {}
        self._covered = 0  # index rows filed so far

    def refresh(self, l0: list[str], categories: list[str], speakers: list[str | None]) -> None:
        """File the rows added since the last refresh."""
        for row in range(self._covered, len(l0)):
            key = (categories[row], speakers[row] or "", item_hash(l0[row]))
            self._rows.setdefault(key, []).append(row)
        self._covered = len(l0)

    def find(self, keys: Iterable[Key], ids: list[str], active: np.ndarray) -> dict[Key, str]:
        """key → the lowest id of an active row filed under it (keys without one are left out)."""
        out: dict[Key, str] = {}
        for key in set(keys):
            live = [ids[r] for r in self._rows.get(key, ()) if active[r]]
            if live:
                out[key] = min(live)
        return out
