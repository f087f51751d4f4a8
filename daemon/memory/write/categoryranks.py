"""Category summaries of one scope, kept beside its index instead of ranked in DuckDB per write.

A category's summary (`Store.write_categories`) is the count of its active items and its `top`
active items by importance (highest first), then creation time (newest first), then id: the
order `Store.refresh_categories` ranks the scope's items in. Ranking them in DuckDB after every
write batch scanned the scope, so a write cost more as the scope grew. Here each category's
active rows are kept in that order, patched as rows are added, absorb a restatement (a new
importance), are retired or archived, and are restored; a summary is then the first `top` rows
of a list. A category's items never change category, creation time or text.

Filled on the first write after the index is built (one query for every row's exact importance
and creation time: the index keeps importance as float32, the summary orders by the stored
double), then kept in step by the index's patch methods.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_us(at: datetime) -> int:
    """Microseconds since the epoch, exact (as DuckDB's `epoch_us` of a TIMESTAMPTZ)."""
    return (at - _EPOCH) // timedelta(microseconds=1)


class CategoryRanks:
    """Each category's active rows in summary order; rows are the scope index's."""

    def __init__(self, ids: list[str], categories: list[str]) -> None:
        self._ids = ids  # the index's lists, shared: rows are appended there first
        self._categories = categories
        self._importance: list[float] = []
        self._created: list[int] = []
        self._order: dict[str, list[int]] = {}

    def _key(self, row: int) -> tuple[float, int, str]:
        return (-self._importance[row], -self._created[row], self._ids[row])

    @classmethod
    def build(
        cls,
        ids: list[str],
        categories: list[str],
        active: Sequence[bool],
        importance: Sequence[float],
        created: Sequence[int],
    ) -> CategoryRanks:
        """From every row's exact importance and creation time (epoch µs), aligned with `ids`."""
        ranks = cls(ids, categories)
        ranks._importance = [float(x) for x in importance]
        ranks._created = [int(x) for x in created]
        members: dict[str, list[int]] = {}
        for row, on in enumerate(active):
            if on:
                members.setdefault(categories[row], []).append(row)
        ranks._order = {name: sorted(rows, key=ranks._key) for name, rows in members.items()}
        return ranks

    def _find(self, row: int) -> int | None:
        order = self._order.get(self._categories[row], [])
        at = bisect_left(order, self._key(row), key=self._key)
        return at if at < len(order) and order[at] == row else None

    def _insert(self, row: int) -> None:
        if self._find(row) is None:
            insort(self._order.setdefault(self._categories[row], []), row, key=self._key)

    def add(self, row: int, importance: float, created: int, active: bool = True) -> None:
        """A row appended to the index (its id and category are there already)."""
        assert row == len(self._importance), "rows are added in order"
        self._importance.append(float(importance))
        self._created.append(int(created))
        if active:
            self._insert(row)

    def set_importance(self, row: int, importance: float) -> None:
        """A restatement was absorbed: the row moves to its place for the new importance."""
        at = self._find(row)
        if at is not None:
            del self._order[self._categories[row]][at]
        self._importance[row] = float(importance)
        if at is not None:
            self._insert(row)

    def deactivate(self, row: int) -> None:
        """Retired (superseded) or archived: no longer in its category's summary."""
        at = self._find(row)
        if at is not None:
            del self._order[self._categories[row]][at]

    def activate(self, row: int) -> None:
        """Restored."""
        self._insert(row)

    def summary(self, category: str, top: int) -> tuple[int, list[int]]:
        """(active items of the category, its first `top` rows in summary order)."""
        order = self._order.get(category, [])
        return len(order), order[: max(top, 0)]
