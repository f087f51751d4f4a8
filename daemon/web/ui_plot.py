"""The inspector's per-item plot: the item's survival curve, and where on it the item is now.

The curve is the lifecycle score (daemon/memory/lifecycle.py: Weibull survival in the item's
tier, stretched by importance and past use) against the days since the item was last seen —
when it was said, or last used — exactly what the daily consolidation computes; an item below
the archive floor while peripheral is archived by it. A marker shows today on the curve, and the
numbers beside it read "now" and "in a year" from the same function, assuming no further use.

Last seen is when the item was *said* (`observed_at`), as in the consolidation, not when what it
tells happened (`happened_at`): "I graduated in 2010", said today, is a fresh memory. Drawing
from the happening put every such item, and every imported conversation, at the far end of its
curve, and the plot read "0.00 → 0.00". The axes are the same for every item (two years, score
0-1), so two plots side by side compare. The template draws it as inline SVG from these numbers
alone, so no memory text ever reaches the plot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from daemon.memory.lifecycle import DAY, LifecycleParams, last_seen_of, lifecycle_score
from daemon.memory.types import TIERS

HORIZON_DAYS = 730  # the plot's x axis: two years since last seen
WIDTH, HEIGHT = 200, 48


@dataclass(frozen=True, slots=True)
class Curve:
    ages: np.ndarray  # days since last seen, 0 … HORIZON_DAYS
    score: np.ndarray  # the lifecycle score at each of those ages
    floor: float  # the archive floor
    age_now: float  # days since last seen, today
    score_at_age: Callable[[np.ndarray], np.ndarray]

    @property
    def points(self) -> str:
        """The SVG polyline's points: x = days since last seen, y = score (1 at the top)."""
        xs = self.ages / HORIZON_DAYS * WIDTH
        ys = (1.0 - self.score) * HEIGHT
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))

    @property
    def floor_y(self) -> str:
        return f"{(1.0 - self.floor) * HEIGHT:.1f}"

    @property
    def now_x(self) -> str:
        """Where today is on the x axis (at the right edge when the item is older than that)."""
        return f"{min(self.age_now, HORIZON_DAYS) / HORIZON_DAYS * WIDTH:.1f}"

    @property
    def now_y(self) -> str:
        return f"{(1.0 - self.at(0)) * HEIGHT:.1f}"

    @property
    def off_axis(self) -> bool:
        """Last seen longer ago than the axis reaches."""
        return self.age_now > HORIZON_DAYS

    def at(self, day: float) -> float:
        """The score `day` days from now, if nobody uses the item until then."""
        return float(self.score_at_age(np.array([self.age_now + day]))[0])

    @property
    def archived_after(self) -> int | None:
        """Days from now until the score falls below the floor: 0 when it already has, None
        when it does not within two years from now (or the item is evergreen)."""
        ahead = np.arange(0.0, HORIZON_DAYS + 1.0)
        below = np.nonzero(self.score_at_age(self.age_now + ahead) < self.floor)[0]
        return int(ahead[below[0]]) if below.size else None


def survival_curve(item: dict[str, Any], params: LifecycleParams, now: datetime, points: int = 97) -> Curve:
    """The item's lifecycle score against days since last seen, and where it is `now`."""
    said = item.get("observed_at") or item.get("happened_at") or item["created_at"]
    last_access = item.get("last_access")
    seen = float(
        last_seen_of(
            np.array([said.timestamp()]), np.array([last_access.timestamp() if last_access else np.nan])
        )[0]
    )
    one = {
        "access_count": np.array([int(item.get("access_count") or 0)]),
        "importance": np.array([float(item["importance"])]),
        "tier": np.array([TIERS.index(item["tier"])]),
        "evergreen": np.array([bool(item.get("evergreen"))]),
    }

    def score_at_age(ages: np.ndarray) -> np.ndarray:
        # the model's own function: "now" is `age` days after the item was last seen
        ages = np.asarray(ages, np.float64)
        out: np.ndarray = lifecycle_score(seen, seen - ages * DAY, p=params, **one)
        return out

    ages = np.linspace(0.0, float(HORIZON_DAYS), points)
    age_now = max(0.0, (now.timestamp() - seen) / DAY)
    return Curve(
        ages=ages,
        score=score_at_age(ages),
        floor=params.archive_floor,
        age_now=age_now,
        score_at_age=score_at_age,
    )
