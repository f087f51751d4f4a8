#!/usr/bin/env python3
"""Check every blind7 scenario.

For each file: it loads; event ids are unique; evidence ids exist; events and windows lie inside
[start, end]; score(s, []) from the shared scorer runs; and an ideal delivery passes. The ideal
delivery is one message per expectation, at the first minute of its window that hits no forbid,
with kind = the expectation's kind (or "reminder"), title = its first mentions_any and
source_ids = its evidence_from. It must meet every expectation with no violations and no noise.
Also reported (and required): 6–20 events, a span of at most 5 days.

usage: check.py [--scorer PATH]   (default: ../shared/bench/score_proactive.py beside the project)
"""
import argparse
import glob
import importlib.util
import json
import os
import sys
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.dirname(HERE)


def load_scorer(path):
    spec = importlib.util.spec_from_file_location("score_proactive", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def ideal_delivery(s, sp):
    out = []
    for i, rule in enumerate(s.get("expect", [])):
        lo, hi = (t(x) for x in rule["window"])
        cur = lo
        found = None
        while cur <= hi:
            sug = {"kind": rule.get("kind") or "reminder", "title": rule["mentions_any"][0], "body": "",
                   "deliver_at": cur.isoformat(), "source_ids": list(rule.get("evidence_from", []))}
            if not any(sp.matches(sug, f) for f in s.get("forbid", [])):
                found = sug
                break
            cur += timedelta(minutes=1)
        if found is None:
            return None, f"expectation {i}: no minute in its window escapes every forbid"
        out.append(found)
    return out, None


def check(path, sp):
    errs = []
    try:
        s = json.load(open(path, encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        return [f"does not load: {e}"], None
    start, end = t(s["start"]), t(s["end"])
    if end - start > timedelta(days=5):
        errs.append(f"span {end - start} is longer than 5 days")
    evs = s.get("events", [])
    if not 6 <= len(evs) <= 20:
        errs.append(f"{len(evs)} events (want 6–20)")
    ids = [e["body"]["id"] for e in evs]
    if len(ids) != len(set(ids)):
        errs.append("duplicate event ids")
    for e in evs:
        if not start <= t(e["at"]) <= end:
            errs.append(f"event {e['body']['id']} at {e['at']} outside the span")
        b = e["body"]
        if b.get("scope") != s["scope"]:
            errs.append(f"event {b['id']} has scope {b.get('scope')}")
        stamp = b.get("ts") or b.get("date") or b.get("received_at")
        if stamp and t(stamp) != t(e["at"]):
            errs.append(f"event {b['id']} stamp {stamp} differs from at {e['at']}")
    for kind, rules in (("expect", s.get("expect", [])), ("forbid", s.get("forbid", []))):
        for i, r in enumerate(rules):
            for ev in r.get("evidence_from", []):
                if ev not in ids:
                    errs.append(f"{kind} {i}: evidence id {ev} does not exist")
            if "window" in r:
                lo, hi = (t(x) for x in r["window"])
                if not (start <= lo <= hi <= end):
                    errs.append(f"{kind} {i}: window {r['window']} not inside the span")
    for i, r in enumerate(s.get("expect", [])):
        if not r.get("mentions_any"):
            errs.append(f"expect {i}: no mentions_any")
        if "window" not in r:
            errs.append(f"expect {i}: no window")
    try:
        sp.score(s, [])
    except Exception as e:  # noqa: BLE001
        errs.append(f"score(s, []) fails: {e}")
    if errs:
        return errs, s
    ideal, why = ideal_delivery(s, sp)
    if ideal is None:
        return [why], s
    r = sp.score(s, ideal)
    if r["met"] != r["expected"]:
        errs.append(f"ideal delivery meets {r['met']}/{r['expected']}")
    if r["violations"]:
        errs.append(f"ideal delivery violates: {r['violations']}")
    if r["noise"]:
        errs.append(f"ideal delivery has {r['noise']} noise")
    return errs, s


def main():
    ap = argparse.ArgumentParser()
    shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 6, "shared", "bench")
    ap.add_argument("--scorer", default=os.environ.get("SCORE_PROACTIVE",
                                                        os.path.join(os.path.normpath(shared), "score_proactive.py")))
    a = ap.parse_args()
    sp = load_scorer(a.scorer)
    files = sorted(glob.glob(os.path.join(DIR, "*.json")))
    ok, silence, names = 0, 0, set()
    langs = {"en": 0, "zh": 0}
    for f in files:
        errs, s = check(f, sp)
        base = os.path.basename(f)
        if s:
            if s["name"] in names:
                errs.append("duplicate scenario name")
            names.add(s["name"])
            if s["name"] + ".json" != base:
                errs.append("file name differs from scenario name")
            if not s.get("expect"):
                silence += 1
            langs[base[:2]] = langs.get(base[:2], 0) + 1
        if errs:
            print(f"FAIL {base}")
            for e in errs:
                print(f"     {e}")
        else:
            ok += 1
            print(f"ok   {base}  ({len(s['events'])} events, {len(s['expect'])} expected, "
                  f"{len(s['forbid'])} forbids)")
    print(f"files: {len(files)} (en {langs.get('en', 0)}, zh {langs.get('zh', 0)}), silence: {silence}")
    print(f"Result: {ok}/{len(files)} valid")
    sys.exit(0 if ok == len(files) else 1)


if __name__ == "__main__":
    main()
