"""Drafts kept with their resource: `ItemDraft` to JSON and back (resources.drafts).

A handler's drafts are all an external resource yields (the person's extractor never reads it),
so they are stored beside it: re-extracting the resource after a forget gets its items back.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from daemon.memory.types import ItemDraft

_TIMES = ("happened_at", "observed_at", "due_at")


def _plain(d: ItemDraft) -> dict[str, Any]:
    out = asdict(d)
    out["source_ids"] = list(d.source_ids)
    for key in _TIMES:
        value = getattr(d, key)
        out[key] = value.isoformat() if value is not None else None  # the offset is kept
    out["days"] = [day.isoformat() for day in d.days]
    return out


def dumps(drafts: tuple[ItemDraft, ...]) -> str | None:
    """JSON for a resource's drafts; None (SQL NULL) when it has none."""
    return json.dumps([_plain(d) for d in drafts], ensure_ascii=False) if drafts else None


def loads(text: str | None) -> tuple[ItemDraft, ...]:
    """The drafts `dumps` wrote (none for NULL)."""
    if not text:
        return ()
    out = []
    for raw in json.loads(text):
        for key in _TIMES:
            if raw.get(key) is not None:
                raw[key] = datetime.fromisoformat(raw[key])
        raw["source_ids"] = tuple(raw.get("source_ids") or ())
        raw["days"] = tuple(datetime.fromisoformat(day) for day in raw.get("days") or ())
        out.append(ItemDraft(**raw))
    return tuple(out)
