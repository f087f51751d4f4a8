"""The inspector's per-item plot: the item's survival curve from now on, if nobody uses it again.

The curve is the lifecycle score (daemon/memory/lifecycle.py: Weibull survival in the item's
tier, stretched by importance and past use) at each day ahead; an item below the archive floor
while peripheral is archived by the daily consolidation. The template draws it as inline SVG
from these numbers alone, so no memory text ever reaches the plot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from daemon.memory.lifecycle import DAY, LifecycleParams, last_seen_of, lifecycle_score
from daemon.memory.types import TIERS

HORIZON_DAYS = 730
WIDTH, HEIGHT = 160, 36


@dataclass(frozen=True, slots=True)
class Curve:
    days: np.ndarray  # days from now
    score: np.ndarray  # the lifecycle score on each of those days
    floor: float  # the archive floor

    @property
    def points(self) -> str:
        """The SVG polyline's points: x = day, y = score (1 at the top)."""
        xs = self.days / self.days[-1] * WIDTH
        ys = (1.0 - self.score) * HEIGHT
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))

    @property
    def floor_y(self) -> str:
        return f"{(1.0 - self.floor) * HEIGHT:.1f}"

    def at(self, day: float) -> float:
        return float(np.interp(day, self.days, self.score))

    @property
    def archived_after(self) -> int | None:
        """Days until the score falls below the floor (None within the horizon, or evergreen)."""
        below = np.nonzero(self.score < self.floor)[0]
        return int(self.days[below[0]]) if below.size else None


def survival_curve(
    item: dict[str, Any], params: LifecycleParams, now: datetime, days: int = HORIZON_DAYS, points: int = 61
) -> Curve:
    """The item's lifecycle score over the next `days`, assuming no further use."""
    seen_at = item.get("happened_at") or item["created_at"]
    last_access = item.get("last_access")
    seen = last_seen_of(
        np.array([seen_at.timestamp()]), np.array([last_access.timestamp() if last_access else np.nan])
    )
    ahead = np.linspace(0.0, float(days), points)
    one = {
        "access_count": np.array([int(item.get("access_count") or 0)]),
        "importance": np.array([float(item["importance"])]),
        "tier": np.array([TIERS.index(item["tier"])]),
        "evergreen": np.array([bool(item.get("evergreen"))]),
    }
    t0 = now.timestamp()
    score = np.array([lifecycle_score(t0 + d * DAY, seen, p=params, **one)[0] for d in ahead])
    return Curve(days=ahead, score=score, floor=params.archive_floor)
