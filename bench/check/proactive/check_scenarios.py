#!/usr/bin/env python3
"""Validate a folder of proactive scenarios (blind8, blind9, …) against the scenario format.

usage: python3 bench/check/proactive/check_scenarios.py FOLDER

Checks, per file: parses as JSON; required keys; name == file stem and unique; the timezone
exists; every timestamp has an offset that matches the scenario's timezone at that instant;
start < end, span 2-6 days; 6-14 events, sorted, inside [start, end]; subject/body shape per
event kind (conversation, e-mail, GitHub) and body.scope == scope; event ids unique (across all
files too); quiet hours set and forbidden night by night; expect windows ordered, inside the
scenario, starting and ending outside quiet hours, evidence ids that exist, and no forbid entry
that would also match what an expectation asks for (even ignoring forbid kinds); forbid entries carry a reason.
Prints one line per file and a summary; exits 1 on any error.
"""

import datetime as dt
import glob
import json
import os
import re
import sys
from zoneinfo import ZoneInfo

KINDS = {"reminder", "follow_up", "conflict", "digest", "prefetch"}
TOP = ["name", "scope", "timezone", "start", "end", "config", "events", "forbid"]
CONV = ["id", "scope", "role", "text", "ts"]
MAIL = ["id", "scope", "from", "to", "cc", "subject", "date", "thread", "labels", "text"]
GH = ["id", "scope", "event", "action", "received_at"]
CJK = re.compile(r"[\u4e00-\u9fff]")
HHMM = re.compile(r"^\d{2}:\d{2}$")


def ts(s, tz, errs, where):
    try:
        d = dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except Exception:
        errs.append(f"{where}: bad timestamp {s!r}")
        return None
    if d.tzinfo is None:
        errs.append(f"{where}: timestamp without offset {s!r}")
        return None
    if not s.endswith("Z") and d.utcoffset() != d.astimezone(tz).utcoffset():
        errs.append(
            f"{where}: offset of {s} does not match the scenario timezone ({d.astimezone(tz).utcoffset()})"
        )
    return d


def in_quiet(d, tz, quiet):
    t = d.astimezone(tz).time()
    a, b = (dt.time.fromisoformat(x) for x in quiet)
    return (a <= t or t < b) if a > b else (a <= t < b)


def overlaps(w1, w2):
    return w1[0] < w2[1] and w2[0] < w1[1]


def terms_clash(a, b):
    a = [x.lower() for x in a]
    b = [x.lower() for x in b]
    return any(x in y or y in x for x in a for y in b)


def check(path, seen_ids):
    errs = []
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except Exception as e:
        return [f"does not parse: {e}"], None
    for k in TOP:
        if k not in doc:
            errs.append(f"missing key {k}")
    if errs:
        return errs, None
    if doc["name"] != name:
        errs.append(f"name {doc['name']!r} != file stem {name!r}")
    try:
        tz = ZoneInfo(doc["timezone"])
    except Exception:
        return [f"unknown timezone {doc['timezone']!r}"], None
    start = ts(doc["start"], tz, errs, "start")
    end = ts(doc["end"], tz, errs, "end")
    if not (start and end):
        return errs, None
    span = (end - start).total_seconds() / 86400
    if not start < end:
        errs.append("start is not before end")
    if not 2 <= span <= 6:
        errs.append(f"span {span:.2f} days not within 2-6")
    quiet = doc["config"].get("quiet_hours")
    if not (isinstance(quiet, list) and len(quiet) == 2 and all(HHMM.match(q) for q in quiet)):
        errs.append("config.quiet_hours missing or malformed")
        quiet = None

    # a scope names a bus subject (DESIGN.md): the daemon dead-letters one with "." or a space in it
    if not re.fullmatch(r"[A-Za-z0-9_-]+", str(doc["scope"])):
        errs.append(f"scope {doc['scope']!r} may hold only letters, digits, '_' and '-'")

    events = doc["events"]
    if not 6 <= len(events) <= 14:
        errs.append(f"{len(events)} events, want 6-14")
    ids, prev, user_text = set(), None, []
    for i, ev in enumerate(events):
        w = f"events[{i}]"
        for k in ("at", "subject", "body"):
            if k not in ev:
                errs.append(f"{w}: missing {k}")
        if any(k not in ev for k in ("at", "subject", "body")):
            continue
        at = ts(ev["at"], tz, errs, w + ".at")
        if at is None:
            continue
        if prev and at < prev:
            errs.append(f"{w}: events not sorted by time")
        prev = at
        if not start <= at <= end:
            errs.append(f"{w}: outside [start, end]")
        body, subj = ev["body"], ev["subject"]
        if subj.startswith("memubot.in.conversation."):
            need = CONV
        elif subj == "memubot.in.email":
            need = MAIL
        elif subj == "memubot.in.github":
            need = GH
        else:
            errs.append(f"{w}: unexpected subject {subj}")
            continue
        for k in need:
            if k not in body:
                errs.append(f"{w}: body missing {k}")
        if subj == "memubot.in.github" and "payload" not in body and "payload_file" not in body:
            errs.append(f"{w}: GitHub body has neither payload nor payload_file")
        if subj == "memubot.in.github" and "payload" in body:
            p = body["payload"]
            if p.get("action") != body.get("action"):
                errs.append(f"{w}: payload.action != body.action")
            if "repository" not in p or "sender" not in p:
                errs.append(f"{w}: payload lacks repository/sender")
        if body.get("scope") != doc["scope"]:
            errs.append(f"{w}: body.scope {body.get('scope')!r} != scope {doc['scope']!r}")
        stamp = body.get("ts") or body.get("date") or body.get("received_at")
        if stamp:
            d = ts(stamp, tz, errs, w + ".body time")
            if d and d != at:
                errs.append(f"{w}: body time {stamp} != at {ev['at']}")
        if subj.startswith("memubot.in.conversation.") and body.get("role") not in ("user", "assistant"):
            errs.append(f"{w}: role {body.get('role')!r}")
        if subj.startswith("memubot.in.conversation.") and body.get("role") == "user":
            user_text.append(body.get("text", ""))
        bid = body.get("id")
        if bid in ids:
            errs.append(f"{w}: duplicate event id {bid}")
        if bid in seen_ids:
            errs.append(f"{w}: event id {bid} also used in {seen_ids[bid]}")
        ids.add(bid)
        seen_ids[bid] = name

    def window(obj, where):
        w = obj.get("window")
        if w is None:
            return None
        if not (isinstance(w, list) and len(w) == 2):
            errs.append(f"{where}: window must be [from, to]")
            return None
        a, b = ts(w[0], tz, errs, where + ".window[0]"), ts(w[1], tz, errs, where + ".window[1]")
        if a and b:
            if not a < b:
                errs.append(f"{where}: window not ordered")
            if a < start or b > end:
                errs.append(f"{where}: window outside [start, end]")
            return (a, b)
        return None

    forbids = []
    for i, f in enumerate(doc["forbid"]):
        where = f"forbid[{i}]"
        if not f.get("why"):
            errs.append(f"{where}: no why")
        if "window" not in f and not f.get("mentions_any"):
            errs.append(f"{where}: needs a window or mentions_any")
        if "kind" in f and f["kind"] not in KINDS:
            errs.append(f"{where}: unknown kind {f['kind']}")
        if "mentions_any" in f and not (
            isinstance(f["mentions_any"], list) and all(isinstance(x, str) and x for x in f["mentions_any"])
        ):
            errs.append(f"{where}: mentions_any must be a list of non-empty strings")
        forbids.append((f, window(f, where)))

    expect = doc.get("expect", [])
    for i, e in enumerate(expect):
        where = f"expect[{i}]"
        if e.get("kind") is not None and e["kind"] not in KINDS:
            errs.append(f"{where}: unknown kind {e['kind']}")
        w = window(e, where)
        if w is None:
            errs.append(f"{where}: needs a window")
        m = e.get("mentions_any")
        if not (isinstance(m, list) and m and all(isinstance(x, str) and x for x in m)):
            errs.append(f"{where}: mentions_any must be a non-empty list of strings")
            m = []
        ev_from = e.get("evidence_from", [])
        if not ev_from:
            errs.append(f"{where}: no evidence_from")
        for x in ev_from:
            if x not in ids:
                errs.append(f"{where}: evidence id {x} is not an event id")
        if w and quiet:
            for end_pt, label in ((w[0], "starts"), (w[1], "ends")):
                if in_quiet(end_pt, tz, quiet):
                    errs.append(f"{where}: window {label} in quiet hours")
        for j, (f, fw) in enumerate(forbids):
            if not f.get("mentions_any"):
                continue  # pure windows (quiet hours) are checked through the endpoints above
            if fw and w and not overlaps(w, fw):
                continue
            # kind is deliberately ignored here: a scorer that does not filter forbid entries
            # by kind must still be able to meet the expectation.
            if terms_clash(m, f["mentions_any"]):
                errs.append(f"{where}: forbid[{j}] would also match what this expects")

    # quiet hours forbidden night by night
    if quiet:
        qs, qe = (dt.time.fromisoformat(x) for x in quiet)
        day = start.astimezone(tz).date() - dt.timedelta(days=1)
        while day <= end.astimezone(tz).date():
            a = dt.datetime.combine(day, qs, tz)
            b = dt.datetime.combine(day + dt.timedelta(days=1) if qs > qe else day, qe, tz)
            a, b = max(a, start), min(b, end)
            if a < b and not any(
                fw and not f.get("mentions_any") and not f.get("kind") and fw[0] <= a and fw[1] >= b
                for f, fw in forbids
            ):
                errs.append(f"quiet hours {a.isoformat()} - {b.isoformat()} not forbidden")
            day += dt.timedelta(days=1)

    lang = "zh" if sum(len(CJK.findall(t)) for t in user_text) > 20 else "en"
    info = {
        "lang": lang,
        "events": len(events),
        "expect": len(expect),
        "forbid": len(doc["forbid"]),
        "span": span,
        "tz": doc["timezone"],
        "silent": not expect,
    }
    return errs, info


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__.strip())
        sys.exit(2)
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
    seen, bad, infos = {}, 0, []
    for p in files:
        errs, info = check(p, seen)
        stem = os.path.basename(p)
        if info:
            infos.append(info)
            print(
                f"{'OK  ' if not errs else 'FAIL'} {stem:48s} {info['lang']} {info['tz']:20s} "
                f"{info['span']:.1f}d ev={info['events']:2d} expect={info['expect']} forbid={info['forbid']}"
                f"{'  (silence)' if info['silent'] else ''}"
            )
        else:
            print(f"FAIL {stem}")
        for e in errs:
            print(f"     - {e}")
        bad += bool(errs)
    en = sum(i["lang"] == "en" for i in infos)
    zh = sum(i["lang"] == "zh" for i in infos)
    sil = sum(i["silent"] for i in infos)
    print(
        f"\n{len(files)} files, {len(files) - bad} pass, {bad} fail; EN {en} / ZH {zh}; silence {sil}; "
        f"expectations {sum(i['expect'] for i in infos)}"
    )
    sys.exit(1 if bad or not files else 0)


if __name__ == "__main__":
    main()
