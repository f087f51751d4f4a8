"""The soak's report: what was sent against what the daemon's DuckDB file says (the accounting),
the publish → commit latencies around each fault, and the table for docs/benchmarks.md."""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from daemon.memory.store import Store

KINDS = ("turn", "github", "gmail", "email")


@dataclass
class Sent:
    kind: str  # turn / github / gmail / email
    id: str
    t: float  # wall time of the first attempt (an e-mail: when it arrived in the mailbox)
    tries: int = 0
    accepted: float | None = None  # when the bus (or the webhook, 202) took it


@dataclass
class Bad:
    where: str  # bus / github / gmail
    what: str  # deep / invalid / big
    t: float
    id: str
    seq: int | None = None  # the stream sequence of a bus event
    status: int | None = None  # the HTTP answer


@dataclass
class Fault:
    name: str
    injected: float
    recovered: float = 0.0
    note: str = ""


@dataclass(frozen=True)
class DeadLetter:
    event_id: str | None
    stream_seq: int | None
    failed_at: float


@dataclass(frozen=True)
class Db:
    """What a stopped daemon's file holds: the ledger (id → handled_at, outcome), the dead letters,
    and how many resource rows each id has."""

    ledger: dict[str, tuple[float, str]]
    dead: list[DeadLetter]
    resources: Counter[str] = field(default_factory=Counter)


def read_db(path: Path) -> Db:
    store = Store(path, read_only=True)
    try:
        con = store.con
        ledger = {
            r[0]: (float(r[1]), str(r[2]))
            for r in con.execute("SELECT event_id, epoch(handled_at), outcome FROM events").fetchall()
        }
        dead = [
            DeadLetter(r[0], None if r[1] is None else int(r[1]), float(r[2]))
            for r in con.execute("SELECT event_id, stream_seq, epoch(failed_at) FROM dead_letters").fetchall()
        ]
        rows = con.execute("SELECT id, count(*) FROM resources GROUP BY id").fetchall()
    finally:
        store.close()
    return Db(ledger, dead, Counter({r[0]: int(r[1]) for r in rows}))


def account(sent: Collection[Sent], bad: list[Bad], db: Db) -> dict[str, Any]:
    """sent = stored + dead-lettered, nothing twice, bad events refused: `ok` and what failed."""
    ledger, resources = db.ledger, db.resources
    failures: list[str] = []
    dead_by_id: Counter[str] = Counter(d.event_id for d in db.dead if d.event_id)
    dead_by_seq: Counter[int] = Counter(d.stream_seq for d in db.dead if d.stream_seq is not None)
    dead_ids = set(dead_by_id)
    bus_bad = [b for b in bad if b.where == "bus"]
    bad_seqs = {b.seq for b in bus_bad}
    bad_ids = {d.event_id for d in db.dead if d.stream_seq in bad_seqs and d.event_id}
    sent_n = {k: sum(s.kind == k for s in sent) for k in KINDS}
    stored_n = {k: sum(s.kind == k and s.id in ledger for s in sent) for k in KINDS}
    dead_valid = {k: sum(s.kind == k and s.id in dead_ids for s in sent) for k in KINDS}
    lost = [s.id for s in sent if s.id not in ledger and s.id not in dead_ids]
    bad_dead = sum(1 for b in bus_bad if b.seq is not None and dead_by_seq[b.seq] >= 1)
    bad_stored = sorted(bad_ids & set(ledger))
    twice = [f"{i} stored and dead-lettered" for i in sorted(set(ledger) & dead_ids)]
    twice += [f"dead letter twice for id {i}" for i, n in dead_by_id.items() if n > 1]
    twice += [f"dead letter twice for stream seq {q}" for q, n in dead_by_seq.items() if n > 1]
    twice += [f"resource {i} stored {n} times" for i, n in resources.items() if n > 1]
    no_resource = [
        s.id
        for s in sent
        if s.kind in ("turn", "email")
        and s.id in ledger
        and ledger[s.id][1] == "stored"
        and resources[s.id] != 1
    ]
    sent_total = sum(sent_n.values()) + len(bus_bad)
    stored_total = sum(stored_n.values())
    dead_total = sum(dead_valid.values()) + bad_dead
    if sent_total != stored_total + dead_total:
        failures.append(f"sent {sent_total} != stored {stored_total} + dead-lettered {dead_total}")
    if lost:
        failures.append(f"{len(lost)} events neither stored nor dead-lettered, e.g. {lost[:5]}")
    if twice:
        failures.append(f"{len(twice)} things twice, e.g. {twice[:5]}")
    if no_resource:
        failures.append(
            f"{len(no_resource)} stored turns/e-mails without exactly one resource, e.g. {no_resource[:5]}"
        )
    if bad_dead != len(bus_bad):
        failures.append(f"{len(bus_bad) - bad_dead} of {len(bus_bad)} bad bus events are not dead letters")
    if bad_stored:
        failures.append(f"bad events in the ledger: {bad_stored[:5]}")
    http_bad = [b for b in bad if b.where != "bus"]
    wrong = [
        f"{b.where} {b.what}: {b.status}" for b in http_bad if b.status is None or not 400 <= b.status < 500
    ]
    if wrong:
        failures.append(f"bad HTTP requests not answered 4xx: {wrong}")
    return {
        "ok": not failures,
        "failures": failures,
        "sent": sent_total,
        "stored": stored_total,
        "dead_lettered": dead_total,
        "duplicates": len(twice),
        "lost": len(lost),
        "valid_dead_lettered": sum(dead_valid.values()),
        "sent_by_kind": sent_n | {"bad_bus": len(bus_bad)},
        "stored_by_kind": stored_n,
        "dead_lettered_by_kind": dead_valid | {"bad_bus": bad_dead},
        "bad_http": {f"{b.where} {b.what}": b.status for b in http_bad},
        "outcomes": dict(Counter(ledger[s.id][1] for s in sent if s.id in ledger)),
    }


def timings(sent: Collection[Sent], faults: list[Fault], db: Db, t0: float, t_end: float) -> dict[str, Any]:
    """Throughput, and publish → commit (or → dead letter) latencies: the baseline, and for each
    fault the events sent during it and after it, its recovery and when its backlog was drained."""
    commit: dict[str, float] = {i: v[0] for i, v in db.ledger.items()}
    for d in db.dead:
        if d.event_id:
            commit.setdefault(d.event_id, d.failed_at)
    live = [s for s in sent if s.kind != "email" and s.id in commit]

    def window(lo: float, hi: float) -> dict[str, Any]:
        return summary([commit[s.id] - s.t for s in live if lo <= s.t < hi])

    rows: list[dict[str, Any]] = []
    for i, f in enumerate(faults):
        nxt = faults[i + 1].injected if i + 1 < len(faults) else t_end
        # injection → the commit of the last event sent before the fault was over
        drained = max((commit[s.id] for s in live if s.t < f.recovered), default=f.injected) - f.injected
        rows.append(
            {
                "fault": f.name,
                "at_s": f.injected - t0,
                "recovered_s": f.recovered - f.injected,
                "drained_s": max(0.0, drained),
                "during": window(f.injected, f.recovered),
                "after": window(f.recovered, nxt),
                "note": f.note,
            }
        )
    emails = [commit[s.id] - s.t for s in sent if s.kind == "email" and s.id in commit]
    committed = [commit[s.id] for s in sent if s.id in commit]  # every kind, e-mails too
    span = (max(committed) - t0) if committed else 0.0
    return {
        "throughput": {
            "offered_per_s": len(sent) / (t_end - t0),
            "committed_per_s": len(committed) / span if span else 0.0,
            "committed": len(committed),
        },
        "latency": {
            "baseline": window(t0, faults[0].injected if faults else t_end),
            "all": window(t0, t_end),
            "email_arrival_to_commit": summary(emails),
        },
        "faults": rows,
    }


def pct(xs: list[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with at least q of the values at or below it."""
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]


def summary(xs: list[float]) -> dict[str, Any]:
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "p50_s": statistics.median(xs), "p95_s": pct(xs, 0.95), "max_s": max(xs)}


def pattern(line: str) -> str:
    """A finding with its numbers and ids blanked, so that repeats count as one line."""
    line = re.sub(r"^daemon pid \d+: ", "", line)
    return re.sub(r"\d+", "N", line)


# ---- the table ------------------------------------------------------------------------------------


def sec(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{1000 * x:.0f} ms" if x < 1 else f"{x:.1f} s"


def cell(w: dict[str, Any]) -> str:
    if not w.get("n"):
        return "—"
    return f"{sec(w['p50_s'])} / {sec(w['p95_s'])} (n={w['n']})"


def table(r: dict[str, Any]) -> str:
    a, t, lat = r["accounting"], r["throughput"], r["latency"]
    lines = [
        "| fault | recovered | backlog drained | publish → commit p50 / p95 during | after | what happened |",
        "|---|---|---|---|---|---|",
        f"| (baseline, no fault) | — | — | {cell(lat['baseline'])} | — | |",
    ]
    for f in r["faults"]:
        lines.append(
            f"| {f['fault']} at {f['at_s']:.0f} s | {sec(f['recovered_s'])} | {sec(f['drained_s'])} | "
            f"{cell(f['during'])} | {cell(f['after'])} | {f['note']} |"
        )
    sent = ", ".join(f"{k} {v}" for k, v in a["sent_by_kind"].items())
    verdict = "**ok**" if a["ok"] else "**FAILED**: " + "; ".join(a["failures"])
    starts = ", ".join(f"{x:.1f} s" for x in r["daemon_starts_s"])
    return "\n".join(lines) + (
        f"\n\nAccounting {verdict}: sent {a['sent']} ({sent}) = stored {a['stored']} + dead-lettered "
        f"{a['dead_lettered']} (valid events among them: {a['valid_dead_lettered']}); "
        f"lost {a['lost']}, twice {a['duplicates']}. Throughput: "
        f"{t['offered_per_s']:.2f} events/s offered, {t['committed_per_s']:.2f} committed/s over the run; "
        f"all events p50 / p95 {cell(lat['all'])}; e-mail arrival → commit {cell(lat['email_arrival_to_commit'])}. "
        f"Daemon starts (spawn → READY): {starts}."
    )
