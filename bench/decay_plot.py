#!/usr/bin/env python3
"""The decay demonstration: one item's weight over 90 days (`--days`), per tier, with and without recalls.

usage: python bench/decay_plot.py [--out docs/decay.png] [--days 90] [--recalls 10,25,45 | --every 7]
                                 [--importance 0.5]

Draws (matplotlib, Agg) one panel per tier — peripheral, working, core — with four curves:

- the lifecycle score (`daemon.memory.lifecycle.lifecycle_score`, default `LifecycleParams`),
  the Weibull survival the daily consolidation job uses to demote and archive;
- the recall-time weight (`daemon.memory.read.stages.decay`, default `RecallParams`), the multiplier
  the recall pipeline applies to a hit's score (it has no tier: the same curve in each panel);

each without reinforcement (never recalled) and with recalls that return the item on the days
`--recalls` (default 10, 25 and 45, then silence: the curves show the reset, the slower decay a
used item earns, and the decay resuming) or every `--every` days; each recall resets the item's
clock and counts as an access. The archive floor (and, for
working and core, the demotion threshold) is marked, and so is the day the never-recalled item
crosses it: on the axis if it is within `--days`, as a note in the panel if it is later (with the
default parameters it is months to years later: the lifecycle keeps what was said for about a
year). The peripheral panel also follows the recalled item through the daily consolidation job
(`lifecycle.plan`), which promotes it.

Printed to stdout for docs/memory.md: a table of the values on days 0/7/30/60/90 (those within
`--days`; on a recall day the value is the one just after the recall), and a table of the day on
which a never-recalled item of each tier crosses its threshold: the archive floor (peripheral)
or `demote_below` (working, core), whatever `--days` is.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory import lifecycle as L  # noqa: E402
from daemon.memory.read.stages import RecallParams, decay  # noqa: E402
from daemon.memory.types import TIERS  # noqa: E402

DAY = 86400.0
TABLE_DAYS = (0, 7, 30, 60, 90)


def curves(
    days: np.ndarray, recalls: np.ndarray, tier: int, importance: float, lp: L.LifecycleParams
) -> tuple[np.ndarray, np.ndarray]:
    """(lifecycle score, recall weight) of one item created at day 0, at each of `days`.

    Both functions take one `now`; to evaluate a whole time axis in one call, every time is
    shifted so that "now" is 0 and the item's times are negative (only differences matter).
    """
    t = days * DAY
    last, count = L.access_history(t, recalls * DAY)
    occurred = -t
    last_access = last - t  # NaN (never recalled) stays NaN
    n = t.shape[0]
    imp = np.full(n, importance)
    ever = np.zeros(n, bool)
    score = L.lifecycle_score(
        0.0, L.last_seen_of(occurred, last_access), count, imp, np.full(n, tier), ever, lp
    )
    weight = decay(0.0, occurred, last_access, count.astype(np.float32), imp, ever, RecallParams())
    return score, weight.astype(np.float64)


def consolidated(
    days: np.ndarray, recalls: np.ndarray, importance: float, lp: L.LifecycleParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Follow one item from peripheral through a daily `plan` run (at midnight of each day).

    Returns the lifecycle score in its current tier at each of `days`, the tier index and whether
    it is archived (once archived it stays archived: nothing recalls it any more).
    """
    tier, archived = L.PERIPHERAL, False
    score = np.empty_like(days)
    tiers = np.empty(days.shape, np.int64)
    gone = np.empty(days.shape, bool)
    last_job = -1
    for i, d in enumerate(days):
        last, count = L.access_history(np.array([d * DAY]), recalls * DAY)
        seen = L.last_seen_of(np.array([0.0]), last)
        args = (seen, count, np.array([importance]))
        if int(d) > last_job and not archived:  # the scheduler's daily tick
            last_job = int(d)
            step = L.plan(int(d) * DAY, *args, np.array([tier]), np.array([False]), lp)
            tier, archived = int(step.tier[0]), bool(step.archive[0])
        score[i] = L.lifecycle_score(d * DAY, *args, np.array([tier]), np.array([False]), lp)[0]
        tiers[i], gone[i] = tier, archived
    return score, tiers, gone


def first_day(days: np.ndarray, mask: np.ndarray) -> float | None:
    return float(days[np.argmax(mask)]) if mask.any() else None


def threshold_of(tier: int, lp: L.LifecycleParams) -> tuple[str, float]:
    """What ends a tier for an unused item: archiving (peripheral) or demotion (working, core)."""
    if tier == L.PERIPHERAL:
        return "archive floor", lp.archive_floor
    return "demote_below", lp.demote_below


def crossing_day(tier: int, importance: float, threshold: float, lp: L.LifecycleParams) -> float | None:
    """The exact age (days) at which a never-recalled item's lifecycle score drops below
    `threshold` in `tier` (bisection on `lifecycle_score`, which falls monotonically with age);
    None if it never does within 10,000 years (e.g. a floor of 0)."""

    def below(d: float) -> bool:
        return bool(curves(np.array([d]), np.zeros(0), tier, importance, lp)[0][0] < threshold)

    lo, hi = 0.0, 1.0
    while not below(hi):
        lo, hi = hi, hi * 2.0
        if hi > 3.66e6:
            return None
    for _ in range(60):
        mid = (lo + hi) / 2.0
        lo, hi = (lo, mid) if below(mid) else (mid, hi)
    return hi


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=Path("docs/decay.png"), help="PNG to write")
    ap.add_argument("--days", type=int, default=90, help="length of the time axis in days")
    ap.add_argument(
        "--recalls", default="10,25,45", help="comma-separated days on which a recall returns the item"
    )
    ap.add_argument("--every", type=float, default=0.0, help="instead: a recall every N days")
    ap.add_argument("--importance", type=float, default=0.5, help="the item's importance (0..1)")
    ap.add_argument("--dpi", type=int, default=100)
    args = ap.parse_args(argv)
    if args.days < 1:
        ap.error("--days must be at least 1")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lp = L.LifecycleParams()
    L.validate(lp)
    # 3-hour steps show the saw-tooth; long axes are capped at 4000 steps (the daily job is a loop)
    days = np.linspace(0.0, args.days, min(args.days * 8, 4000) + 1)
    days = np.union1d(days, np.asarray(TABLE_DAYS, np.float64))
    if args.every > 0:
        recalls = np.arange(args.every, args.days + 1e-9, args.every)
        every = f"recalled every {args.every:g} days"
    else:
        recalls = np.asarray([float(x) for x in args.recalls.split(",") if x.strip()])
        every = "recalled on days " + ", ".join(f"{r:g}" for r in recalls)
    none = np.zeros(0)

    rows: list[tuple[str, str, np.ndarray]] = []
    horizons: list[tuple[str, str, float, float | None]] = []
    fig, axes = plt.subplots(1, len(TIERS), figsize=(13.5, 4.4), sharey=True)
    for tier, (ax, name) in enumerate(zip(axes, TIERS, strict=True)):
        s0, w0 = curves(days, none, tier, args.importance, lp)
        s1, w1 = curves(days, recalls, tier, args.importance, lp)
        ax.plot(days, s0, color="C0", lw=2, label="lifecycle score, never recalled")
        ax.plot(days, s1, color="C1", lw=2, label=f"lifecycle score, {every}")
        ax.plot(days, w0, color="C0", ls="--", lw=1.3, label="recall weight (retrieve.decay), never recalled")
        ax.plot(days, w1, color="C1", ls="--", lw=1.3, label=f"recall weight, {every}")
        rows += [
            (name, "lifecycle, never recalled", s0),
            (name, f"lifecycle, {every}", s1),
            (name, "recall weight, never recalled", w0),
            (name, f"recall weight, {every}", w1),
        ]
        for r in recalls:
            ax.axvline(r, color="0.85", lw=0.8, zorder=0)
        ax.axhline(lp.archive_floor, color="C3", ls=":", lw=1.5, label="archive floor (peripheral only)")
        if tier > L.PERIPHERAL:
            ax.axhline(lp.demote_below, color="0.4", ls=":", lw=1.2, label="demote below")
        ax.set_title(f"{name}: Weibull λ={lp.scale_days[tier]:g} d, k={lp.shape[tier]:g}", fontsize=10)
        ax.set_xlabel("days since the item happened")
        ax.set_xlim(0, args.days)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
        what, threshold = threshold_of(tier, lp)
        cross = crossing_day(tier, args.importance, threshold, lp)
        horizons.append((name, what, threshold, cross))
        verb = "archived" if tier == L.PERIPHERAL else "demoted"
        color = "C3" if tier == L.PERIPHERAL else "0.4"
        if cross is not None and cross <= args.days:
            ax.plot([cross], [threshold], "o", color=color)
            ax.annotate(
                f"never recalled: {verb} ≈ day {math.ceil(cross)}",
                (cross, threshold),
                (max(cross - 0.5 * args.days, 0.02 * args.days), threshold + 0.2),
                fontsize=8,
                arrowprops={"arrowstyle": "->", "lw": 0.8},
            )
        else:
            when = "never" if cross is None else f"on day {math.ceil(cross)} (≈{cross / 365.25:.1f} y)"
            ax.text(
                0.03,
                0.22 if tier == L.PERIPHERAL else 0.40,
                f"never recalled: {s0[-1]:.2f} on day {args.days};\n{verb} {when}, beyond this axis",
                transform=ax.transAxes,
                fontsize=8,
                color="C0",
            )
        if tier == L.PERIPHERAL:
            s2, t2, _ = consolidated(days, recalls, args.importance, lp)
            ups = [first_day(days, t2 >= i) for i in (L.WORKING, L.CORE)]
            label = "lifecycle, recalled + daily job: " + ", ".join(
                f"{TIERS[i]} on day {d:.0f}" for i, d in zip((L.WORKING, L.CORE), ups, strict=True) if d
            )
            ax.plot(days, s2, color="C2", lw=1.2, ls="-.", label=label)
            rows.append((name, "lifecycle, recalled + daily job (tier moves)", s2))
    axes[0].set_ylabel("weight")
    handles, labels = [], []
    for ax in axes:  # one legend for the figure, each label once
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle(
        f"An item's weight over {args.days} days (importance {args.importance:g}; "
        "evergreen items stay at 1.0); grey lines: recalls",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=args.dpi)
    plt.close(fig)

    idx = [int(np.flatnonzero(days == d)[0]) for d in TABLE_DAYS if d <= args.days]
    head = " | ".join(f"day {d}" for d in TABLE_DAYS if d <= args.days)
    print(f"| tier | curve | {head} |")
    print("|---|---|" + "---:|" * len(idx))
    for tier_name, curve, values in rows:
        cells = " | ".join(f"{values[i]:.3f}" for i in idx)
        print(f"| {tier_name} | {curve} | {cells} |")
    print(
        f"\n| tier (never recalled, importance {args.importance:g}) | falls below | value | on day | ≈ years |"
    )
    print("|---|---|---:|---:|---:|")
    for tier_name, what, threshold, cross in horizons:
        day, years = ("never", "-") if cross is None else (f"{math.ceil(cross)}", f"{cross / 365.25:.1f}")
        print(f"| {tier_name} | {what} | {threshold:g} | {day} | {years} |")
    print(f"\nwrote {args.out} ({args.out.stat().st_size / 1024:.0f} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
