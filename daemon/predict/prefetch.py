"""Context prefetch: on a conversation turn, what the Main Agent will likely need next — the
memories the turn recalls and what they lead to (anticipate.py), and the open work it names —
published at once on
`memubot.out.context.<session>` (before the turn is memorized: the turn itself is not news)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from daemon.config import Settings
from daemon.memory import Memory
from daemon.predict import anticipate as A
from daemon.predict.predictors.github import ref, waits_for


def context_for(
    memory: Memory,
    settings: Settings,
    *,
    turn_id: str,
    scope: str,
    session: str | None,
    text: str,
    at: datetime,
    p: A.Anticipation | None = None,
) -> dict[str, Any]:
    # read at the call, not at import: a benchmark may set another default for a whole run
    hits = A.anticipate(memory, text, scope, session=session, at=at, p=p or A.DEFAULT)
    words = {w.lower() for w in re.findall(r"[\w#/-]{4,}", text)}
    waiting = []
    for w in memory.work_items.of_scope(scope, state="open"):
        why = waits_for(w, settings.github_login)
        named = {w.repo.lower(), w.repo.split("/")[-1].lower(), f"#{w.number}"} | {
            t.lower() for t in re.findall(r"\w{5,}", w.title)
        }
        if why and words & named:
            waiting.append({"ref": ref(w), "title": w.title, "why": why, "url": w.url})
    return {
        "turn_id": turn_id,
        "scope": scope,
        "session": session,
        "at": at.isoformat(),
        "memories": [h.as_json() for h in hits],
        "waiting": waiting,
    }
