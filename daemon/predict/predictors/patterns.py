"""patterns: a request the person makes again and again at a similar weekday and time → its
context is prefetched ahead of the next time (a `prefetch` suggestion, DESIGN.md §4).

A request ("Can you summarize the standup notes?", "帮我总结一下周会") that the person made on
the same weekday, within 90 minutes of the same local time, on at least `MIN_TIMES` different
days in the last eight weeks (word overlap ≥ 0.5) is a pattern. Each new occurrence proposes a
`prefetch` for the next week's, 15 minutes ahead, whose body is what recall finds for the
request at that moment; nothing found, nothing sent. The pattern itself becomes a `patterns`
item of the memory ("Asks on Mondays around 09:30: Can you summarize the standup notes?"),
stored once per pattern as a derived resource (kind `pattern`) whose sources are the requests.
"""

from __future__ import annotations

import hashlib
import re
import statistics
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from daemon.memory.types import TurnView
from daemon.predict.base import Ctx, NewTurns, Recheck, Trigger, is_cjk, short
from daemon.state.suggestions import Suggestion

NAME = "patterns"
MIN_TIMES = 3
WINDOW = timedelta(weeks=8)
NEAR_MINUTES = 90
AHEAD = timedelta(minutes=15)
SIMILAR = 0.5
_ASK_EN = re.compile(
    r"^\s*(can|could|would|will|please|pls|what|what's|how|show|give|send|summari[sz]e|tell|remind|check|find)\b|\?\s*$",
    re.IGNORECASE,
)
_ASK_ZH = re.compile(r"^(帮我|请|能不能|可以|给我|麻烦)|[吗？?]\s*$")
_STOP = frozenset(
    "a an the to of for me my you your i it is are was can could would will please pls and or on in at "
    "from with about this that these those what how do does again".split()
)


_STOP_ZH = frozenset("的了吗呢吧啊我你他她它们请帮给一下个这那些是在有和就都也再又能可以麻烦")


def is_request(text: str) -> bool:
    return bool(_ASK_ZH.search(text) if is_cjk(text) else _ASK_EN.search(text))


def terms(text: str) -> set[str]:
    if is_cjk(text):
        # characters, without the ones every request has (把 "帮我总结一下" and "请总结" alike)
        return {c for c in text if "\u3400" <= c <= "\u9fff" and c not in _STOP_ZH}
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in _STOP and len(w) > 2}


def similar(a: set[str], b: set[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= SIMILAR


def minute_of_day(t: datetime) -> int:
    return t.hour * 60 + t.minute


class Patterns:
    name = NAME

    def propose(self, trigger: Trigger, ctx: Ctx) -> list[Suggestion]:
        if not isinstance(trigger, NewTurns):
            return []
        tz = ctx.settings.tz
        out: list[Suggestion] = []
        for turn in trigger.turns:
            text = turn.text
            if not is_request(text):
                continue
            now = turn.at.astimezone(tz)
            mine = terms(text)
            days = {now.date(): now}
            seen_ids: set[str] = set()
            for past in ctx.memory.user_turns(trigger.scope, now - WINDOW, now - timedelta(hours=12)):
                t = past.at.astimezone(tz)
                if t.weekday() != now.weekday() or abs(minute_of_day(t) - minute_of_day(now)) > NEAR_MINUTES:
                    continue
                if similar(mine, terms(past.text)):
                    days.setdefault(t.date(), t)
                    seen_ids.add(past.id)
            if len(days) < MIN_TIMES:
                continue
            minute = int(statistics.median(minute_of_day(t) for t in days.values()))
            day = now.date() + timedelta(days=7)
            at = datetime(day.year, day.month, day.day, minute // 60, minute % 60, tzinfo=tz)
            key = hashlib.sha256(" ".join(sorted(mine)).encode()).hexdigest()[:12]
            zh = is_cjk(text)
            out.append(
                Suggestion(
                    scope=trigger.scope,
                    kind="prefetch",
                    predictor=NAME,
                    dedup_key=f"prefetch:{key}:{day.isoformat()}",
                    about=f"pattern:{key}",
                    title=(
                        f"你通常这个时候会问：{short(text, 60)}"
                        if zh
                        else f"You usually ask about now: {short(text, 70)}"
                    ),
                    body="",
                    created_at=ctx.now,
                    deliver_at=at - AHEAD,
                    expires_at=at + timedelta(hours=1),
                    source_ids=(turn.id,),
                    confidence=0.6 + min(0.3, 0.05 * (len(days) - MIN_TIMES)),
                    data={
                        "request": text,
                        "times": len(days),
                        "key": key,
                        "weekday": now.weekday(),
                        "minute": minute,
                        "turns": sorted({turn.id, *seen_ids}),
                    },
                )
            )
        return out

    def recheck(self, s: Suggestion, ctx: Ctx) -> Recheck:
        hits = ctx.memory.recall(str(s.data["request"]), s.scope, k=5, ts=ctx.now, reinforce=False)
        if not hits:
            return Recheck(None, "nothing to prefetch")
        body = "\n".join(f"• {short(h.text, 120)}" for h in hits)
        sources = tuple(dict.fromkeys([*s.source_ids, *(x for h in hits for x in h.source_ids)]))
        return Recheck(replace(s, body=body, evidence=tuple(h.item_id for h in hits), source_ids=sources))


def turn_rows(turns: Any) -> list[TurnView]:
    """Conversation turns as the trigger carries them (the person's only)."""
    return [TurnView(t.id, t.text, t.ts, t.session) for t in turns if t.role == "user"]


_WEEKDAYS_EN = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")


def pattern_text(data: dict[str, Any]) -> str:
    """The pattern as a memory: when the person usually asks, and what."""
    hhmm = f"{int(data['minute']) // 60:02d}:{int(data['minute']) % 60:02d}"
    request = short(str(data["request"]), 120)
    if is_cjk(request):
        return f"每周{'一二三四五六日'[int(data['weekday'])]} {hhmm} 左右常让我：{request}"
    return f"Asks on {_WEEKDAYS_EN[int(data['weekday'])]} around {hhmm}: {request}"
