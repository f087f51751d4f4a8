"""What the inspector's templates show, made readable: times, structured fields, summaries,
recall stage scores and signed notices. Pure functions over plain values; no memory text is
ever marked safe here — the templates escape everything these return.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

# l1 keys the card shows on its own line already (who said it, as which role)
SHOWN_ELSEWHERE = frozenset({"speaker", "role"})
_REF = re.compile(r"\s*\[ref:([^\]\s]+)\]\s*$")


def as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def when(value: Any, tz: tzinfo, date_only: bool = False) -> str:
    """A time as a person reads it, in the memory's time zone: "8 May 2023, 13:58"."""
    t = as_datetime(value)
    if t is None:
        return "" if value is None else str(value)
    if t.tzinfo is not None:
        t = t.astimezone(tz)
    day = f"{t.day} {t:%b %Y}"
    return day if date_only or (t.hour, t.minute, t.second) == (0, 0, 0) else f"{day}, {t:%H:%M}"


def ago(days: float) -> str:
    """A span of days as a person says it: "3 days", "5 months", "2.4 years"."""
    if days < 1:
        return "today"
    if days < 60:
        return f"{days:.0f} day{'s' if round(days) != 1 else ''}"
    if days < 700:
        return f"{days / 30.44:.0f} months"
    return f"{days / 365.25:.1f} years"


def _value(v: Any, tz: tzinfo) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(_value(x, tz) for x in v if x not in (None, ""))
    if isinstance(v, dict):
        return "; ".join(
            f"{k.replace('_', ' ')}: {_value(x, tz)}" for k, x in v.items() if x not in (None, "")
        )
    if isinstance(v, str) and as_datetime(v) is not None and len(v) >= 10 and v[4] == "-":
        return when(v, tz)
    return str(v)


def l1_fields(item: dict[str, Any], tz: tzinfo) -> list[tuple[str, str]]:
    """An item's structured fields (`l1`) as (label, value) pairs; never the raw JSON.

    What the card shows already is left out: empty fields, who said it, a text the statement
    contains (`what`), a `who` that is only the speaker, a `when` that is when it was said or its due
    time. Nested
    values become "key: value" text; times are read as times.
    """
    l1, l0, speaker = item.get("l1"), str(item.get("l0") or ""), item.get("speaker")
    said = item.get("observed_at") or item.get("happened_at") or item.get("created_at")
    shown_times = {when(t, tz) for t in (said, item.get("due_at")) if t is not None}
    if isinstance(l1, str):
        try:
            data = json.loads(l1)
        except ValueError:
            return [("details", l1)] if l1.strip() else []
    else:
        data = l1
    if not data:
        return []
    if not isinstance(data, dict):
        return [("details", _value(data, tz))]
    out = []
    for key, v in data.items():
        if key in SHOWN_ELSEWHERE or v in (None, "", [], {}):
            continue
        if isinstance(v, str) and len(v.strip()) >= 24 and v.strip() in l0:
            continue  # the statement says it already ("what", a habit's "behavior")
        if key == "who" and v in ([speaker], speaker):
            continue
        text = _value(v, tz)
        if key == "when" and text in shown_times:
            continue
        if text:
            out.append((str(key).replace("_", " "), text))
    return out


def summary_lines(summary: str) -> list[tuple[str, str | None]]:
    """A category summary as (line, item id or None): the `[ref:<id>]` citations become links,
    not text. Lines are "- <statement> [ref:<id>]" (store_lifecycle.refresh_categories)."""
    out: list[tuple[str, str | None]] = []
    for line in summary.splitlines():
        line = line.strip()
        if not line:
            continue
        ref = _REF.search(line)
        text = _REF.sub("", line).removeprefix("- ").strip()
        out.append((text, ref.group(1) if ref else None))
    return out


@dataclass(frozen=True, slots=True)
class StageTable:
    """Recall hits with each stage's score as a number and a bar scaled within its column."""

    stages: list[str]
    rows: list[tuple[dict[str, Any], list[tuple[float, int]]]]  # (hit, [(value, bar %)])


def stage_table(hits: list[dict[str, Any]]) -> StageTable:
    stages: list[str] = []
    for h in hits:
        stages += [s for s in h.get("trace", {}) if s not in stages]
    top = {s: max((abs(float(h.get("trace", {}).get(s, 0.0))) for h in hits), default=0.0) for s in stages}
    rows = []
    for h in hits:
        cells = []
        for s in stages:
            v = float(h.get("trace", {}).get(s, 0.0))
            cells.append((v, round(100 * abs(v) / top[s]) if top[s] > 0 else 0))
        rows.append((h, cells))
    return StageTable(stages, rows)


# ---- notices: what an action did, said by the server only -----------------------------------

NOTICES = {
    "forgot": "Forgot {item}: deleted {counts}.",
    "restored": "Restored {item}: recall finds it again.",
    "corrected": "Corrected {item}: now {other}.",
}
NAMED = ("item", "other")  # arguments that are item ids: shown as the item's statement


def sign_notice(key: bytes, scope: str, code: str, **args: str) -> str:
    """A notice for the redirect after an action: its code and arguments, signed with the
    inspector's key, so a link someone else wrote cannot put words in the page."""
    if code not in NOTICES:
        raise ValueError(f"no notice {code!r}")
    payload = json.dumps({"s": scope, "c": code, "a": args}, separators=(",", ":"), sort_keys=True)
    body = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return f"{body}.{_mac(key, body)}"


def read_notice(key: bytes, scope: str, token: str, name: Callable[[str], str] = str) -> str | None:
    """The text of a notice this inspector signed for `scope`, with `name` showing each item
    (its statement, when it still has one); None for anything else."""
    body, _, mac = token.partition(".")
    if not body or not hmac.compare_digest(mac.encode(), _mac(key, body).encode()):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, binascii.Error):
        return None
    if not isinstance(data, dict) or data.get("s") != scope or data.get("c") not in NOTICES:
        return None
    args = {str(k): str(v) for k, v in (data.get("a") or {}).items()}
    args.update({k: name(args[k]) for k in NAMED if k in args})
    try:
        return NOTICES[data["c"]].format(**args)
    except (KeyError, IndexError):
        return None


def _mac(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()[:32]
