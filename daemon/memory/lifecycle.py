"""The memory lifecycle: forgetting without deleting.

Two decays work on an item, at two time scales:

- **recall weight** (`retrieve.decay`): at query time, an exponential recency (half-life 30 days)
  nudges the ranking; it never removes anything.
- **lifecycle score** (here): a tier-aware Weibull survival S(t) = exp(-(t_eff / λ)^k) that the
  daily consolidation job (`plan`) uses to move items between the tiers peripheral → working →
  core and back, and to archive what nobody has needed for months. Archived items are excluded
  from recall but stay on disk: restoring one is clearing the flag and touching `last_access`
  (so that the next consolidation does not archive it again at once).

The age t is measured from `last_seen` = max(when the item happened or was created, its last
access): every recall that returns an item resets its clock (reinforcement). Access frequency
then stretches the age, importance stretches the scale, and evergreen items (pinned, core
profile) score 1 forever.

Everything is pure and vectorised: arrays in, arrays out, time is an argument in epoch seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from daemon.memory.types import TIERS

DAY = 86400.0
PERIPHERAL, WORKING, CORE = range(len(TIERS))


@dataclass(frozen=True, slots=True)
class LifecycleParams:
    """The knobs of the lifecycle model; defaults tuned for one person's assistant memory.

    With the defaults, an ordinary (importance 0.5) item that is never recalled:

    - peripheral: median life ~164 days; falls below the archive floor after ~1 year (~297 days
      for an assistant turn at importance 0.35, ~420 days at 0.6);
    - working: median ~1 year; falls below `demote_below` after ~1.8 years;
    - core: median ~3.2 years; falls below `demote_below` after ~6.3 years.

    Why a year: on LoCoMo the questions cite turns up to 243 days old (median 99, an ad-hoc count
    over gold.jsonl); a first default that archived after ~3 months took R@10 from 0.78 to 0.22
    in an early bench/locomo.py --consolidate (which consolidated every conversation at the
    latest question time of all, overstating the loss). People ask about last season's trip.
    """

    # Weibull scale λ (days) per tier: the age at which survival is e^-1 ≈ 0.37. Each tier is
    # roughly 2.5-3.5× the one below, so that a promotion changes an item's horizon from months
    # (what was said once) to years (what is in use, who the user is).
    scale_days: tuple[float, float, float] = (210.0, 540.0, 1825.0)
    # Weibull shape k per tier, i.e. how the hazard changes with age:
    # - peripheral k=1.5 > 1, a sharp drop: a long grace period (what was said is asked about
    #   for months), then a rising hazard: what nobody has needed for a year is not needed;
    # - working k=1.0, memoryless: a constant hazard, the same assumption as the recall half-life;
    # - core k=0.8 < 1, a long tail: a falling hazard (Lindy): a fact that has mattered for a
    #   year will likely matter next year.
    # (Because peripheral has k>1, in its first ~32 days it scores marginally above a working
    # item of the same age, and core sits just below working for ~4 days; all are above 0.9
    # then, so no promotion, demotion or archiving depends on it.)
    shape: tuple[float, float, float] = (1.5, 1.0, 0.8)
    # t_eff = age / (1 + access_boost·log1p(accesses)): log1p, because the 10th recall says less
    # than the 2nd. 0.5 → one recall stretches life ×1.35, three ×1.69, ten ×2.2, a hundred ×3.3.
    access_boost: float = 0.5
    # λ_eff = λ · (1 + importance_boost)^(2·importance − 1): symmetric around the ordinary 0.5
    # (×1), so 1.0 → importance 1 lives twice as long, importance 0 half as long, and an
    # assistant turn (0.35) ×0.81.
    importance_boost: float = 1.0
    # Archive below 10% survival: ~1 year for an ordinary, never-recalled peripheral item. Never
    # evergreen, never an item that stays in working or core.
    archive_floor: float = 0.1
    # peripheral → working after 3 recalls (the user keeps coming back to it) or importance 0.7
    # (what the extractor gives to a user's "remember that…" or a stated profile fact).
    promote_working: tuple[int, float] = (3, 0.7)
    # working → core after 10 recalls or importance 0.9 (above anything the rule-based extractor
    # assigns: only an explicit "this matters" from the user or an agent reaches it).
    promote_core: tuple[int, float] = (10, 0.9)
    # A working/core item below 30% survival in its own tier goes down (and is only promoted into
    # a tier where it would score at least this, so that the job never ping-pongs an item).
    demote_below: float = 0.3


def validate(p: LifecycleParams) -> None:
    """Reject parameters that would make the lifecycle meaningless; the message names the field."""
    for name in ("scale_days", "shape"):
        values = getattr(p, name)
        if len(values) != len(TIERS):
            raise ValueError(f"{name} needs one value per tier {TIERS}, got {values!r}")
        if not all(math.isfinite(v) and v > 0 for v in values):
            raise ValueError(f"{name} values must be finite and positive, got {values!r}")
    if list(p.scale_days) != sorted(p.scale_days):
        raise ValueError(f"scale_days must not decrease from peripheral to core, got {p.scale_days!r}")
    for name in ("access_boost", "importance_boost"):
        value = getattr(p, name)
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be finite and at least 0, got {value!r}")
    for name in ("archive_floor", "demote_below"):
        value = getattr(p, name)
        # 1.0 would archive or demote even items that were just seen (and evergreen ones score 1).
        if not 0.0 <= value < 1.0:
            raise ValueError(f"{name} must be within [0, 1), got {value!r}")
    for name in ("promote_working", "promote_core"):
        value = getattr(p, name)
        if len(value) != 2:
            raise ValueError(f"{name} must be (min accesses, min importance), got {value!r}")
        accesses, importance = value
        if isinstance(accesses, bool) or not isinstance(accesses, int) or accesses < 1:
            raise ValueError(f"{name} min accesses must be an int of at least 1, got {accesses!r}")
        # Above 1 disables promotion by importance; 0 or less would promote everything.
        if math.isnan(importance) or importance <= 0:
            raise ValueError(f"{name} min importance must be positive, got {importance!r}")
    if p.promote_core[0] < p.promote_working[0] or p.promote_core[1] < p.promote_working[1]:
        raise ValueError(
            f"promote_core must be at least promote_working on both counts, got {p.promote_core!r}"
            f" < {p.promote_working!r}"
        )


def last_seen_of(occurred: np.ndarray, last_access: np.ndarray) -> np.ndarray:
    """When the item was last seen: max(happened/created, last access); NaN access = never."""
    return np.fmax(np.asarray(occurred, np.float64), np.asarray(last_access, np.float64))


def access_history(times: np.ndarray, access_times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Replay a reinforcement schedule: (last access, access count) as seen at each of `times`.

    An access at exactly t counts at t. Last access is NaN before the first one. This feeds a
    curve of `lifecycle_score` or `retrieve.decay` over time (the decay plot, tests).
    """
    t = np.asarray(times, np.float64)
    acc = np.sort(np.asarray(access_times, np.float64))
    count = np.searchsorted(acc, t, side="right")
    last = np.where(count > 0, acc[np.maximum(count - 1, 0)] if acc.size else np.nan, np.nan)
    return last.astype(np.float64), count.astype(np.int64)


def _tiers(tier: np.ndarray) -> np.ndarray:
    t = np.asarray(tier)
    if t.size and (t.min() < 0 or t.max() >= len(TIERS)):
        raise ValueError(f"tier must index TIERS {TIERS} (0..{len(TIERS) - 1}), got {t.min()}..{t.max()}")
    return t.astype(np.int64)


def _effective_age(now: float, seen: np.ndarray, access_count: np.ndarray, p: LifecycleParams) -> np.ndarray:
    """Days since last seen, shrunk by how often the item has been used."""
    seen = np.asarray(seen, np.float64)
    # A NaN would score NaN and silently demote the item: refuse it (last_seen_of handles "never").
    if not np.isfinite(seen).all():
        raise ValueError("last_seen must be finite epoch seconds (combine with last_seen_of)")
    age = np.clip((now - seen) / DAY, 0.0, None)  # future-dated: age 0
    accesses = np.clip(np.asarray(access_count, np.float64), 0.0, None)
    out: np.ndarray = age / (1.0 + p.access_boost * np.log1p(accesses))
    return out


def _importance_stretch(importance: np.ndarray, p: LifecycleParams) -> np.ndarray:
    """The factor importance applies to the Weibull scale (1 at importance 0.5)."""
    imp = np.clip(np.asarray(importance, np.float64), 0.0, 1.0)
    out: np.ndarray = np.power(1.0 + p.importance_boost, 2.0 * imp - 1.0)
    return out


def _survival(t_eff: np.ndarray, stretch: np.ndarray, tier: np.ndarray, p: LifecycleParams) -> np.ndarray:
    scale = np.asarray(p.scale_days, np.float64)[tier] * stretch
    shape = np.asarray(p.shape, np.float64)[tier]
    out: np.ndarray = np.exp(-np.power(t_eff / scale, shape))
    return out


def lifecycle_score(
    now: float,
    last_seen: np.ndarray,
    access_count: np.ndarray,
    importance: np.ndarray,
    tier: np.ndarray,
    evergreen: np.ndarray,
    p: LifecycleParams,
) -> np.ndarray:
    """The lifecycle score: Weibull survival exp(-(t_eff/λ_tier)^k_tier) in [0, 1].

    `last_seen` is max(happened/created, last access) in epoch seconds (see `last_seen_of`);
    `tier` is an int array indexing TIERS. 1 at age 0, falling with age; evergreen items are 1.
    """
    t_eff = _effective_age(now, last_seen, access_count, p)
    s = _survival(t_eff, _importance_stretch(importance, p), _tiers(tier), p)
    out: np.ndarray = np.where(np.asarray(evergreen, bool), 1.0, s)
    return out


@dataclass(frozen=True, slots=True)
class LifecyclePlan:
    """One consolidation step's decisions, aligned with the input items."""

    tier: np.ndarray  # new tier index per item
    archive: np.ndarray  # bool: archive now
    score: np.ndarray  # lifecycle score in the new tier


def plan(
    now: float,
    last_seen: np.ndarray,
    access_count: np.ndarray,
    importance: np.ndarray,
    tier: np.ndarray,
    evergreen: np.ndarray,
    p: LifecycleParams,
) -> LifecyclePlan:
    """One consolidation step over the active (unarchived) items: promote, demote, archive.

    - promote: peripheral → working when accesses ≥ promote_working[0] or importance ≥
      promote_working[1]; then working → core likewise with promote_core. A promotion only
      happens into a tier where the item is alive (score ≥ demote_below there): an item recalled
      ten times three years ago is not core material, and promoting it would demote it again.
    - demote: a working/core item whose score in its tier is below demote_below goes down one
      tier, repeatedly, until it is alive in its tier or peripheral.
    - archive: an item that ends the step peripheral, not evergreen, with a score below
      archive_floor. An item that stays working or core is never archived. (One unused for so
      long that it falls from working all the way through peripheral is archived in the same step.)

    Every cascade runs to its end within the step, so the result is a fixed point: running
    `plan` again at the same `now` on its output tiers changes nothing (idempotent).
    """
    validate(p)
    cur = _tiers(tier)
    n = cur.shape[0]
    ever = np.asarray(evergreen, bool)
    t_eff = _effective_age(now, last_seen, access_count, p)
    stretch = _importance_stretch(importance, p)
    # The score the item would have in each tier: (tiers, items).
    by_tier = np.stack([_survival(t_eff, stretch, np.full(n, i, np.int64), p) for i in range(len(TIERS))])
    by_tier[:, ever] = 1.0
    alive = by_tier >= p.demote_below
    accesses = np.asarray(access_count, np.float64)
    imp = np.asarray(importance, np.float64)
    earns_working = (accesses >= p.promote_working[0]) | (imp >= p.promote_working[1])
    earns_core = (accesses >= p.promote_core[0]) | (imp >= p.promote_core[1])

    new = cur.copy()
    new[(new == PERIPHERAL) & earns_working & alive[WORKING]] = WORKING
    new[(new == WORKING) & earns_core & alive[CORE]] = CORE
    cols = np.arange(n)
    for _ in range(len(TIERS) - 1):
        new -= ((new > PERIPHERAL) & ~alive[new, cols]).astype(np.int64)

    score = by_tier[new, cols]
    archive = (new == PERIPHERAL) & ~ever & (score < p.archive_floor)
    return LifecyclePlan(tier=new, archive=archive, score=score)
