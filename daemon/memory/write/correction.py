"""A correction: the person replaces a remembered fact with what is true now.

The corrected text is stored like anything the person says (a resource of kind `correction`,
with provenance "corrected by the person" and the corrected item's id in its meta) and goes
through memorize: extracted, embedded, deduplicated. The item that then holds it supersedes the
corrected one, which keeps its row and history (`valid_until`, `superseded_by`) and leaves
recall, exactly as when the newest truth wins on its own.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from daemon.errors import InvalidInput
from daemon.memory.store import Store
from daemon.memory.types import ResourceIn

KIND = "correction"
PROVENANCE = "corrected by the person"
MAX_CHARS = 2000


def correction_resource(scope: str, item: dict[str, Any], text: str, now: datetime) -> ResourceIn:
    """The resource a correction is stored as; its id depends on the item and the text, so a
    retried correction is stored once."""
    text = " ".join(text.split())
    if not text:
        raise InvalidInput("a correction needs the text that is true now")
    if len(text) > MAX_CHARS:
        raise InvalidInput(f"a correction is at most {MAX_CHARS} characters")
    if item.get("superseded_by"):
        raise InvalidInput(f"item {item['id']} was already superseded by {item['superseded_by']}")
    digest = hashlib.sha256(f"{scope}\x00{item['id']}\x00{text}".encode()).hexdigest()[:20]
    return ResourceIn(
        id=f"correction:{digest}",
        scope=scope,
        text=text,
        occurred_at=now,
        kind=KIND,
        role="user",
        speaker=item.get("speaker"),
        meta={"provenance": PROVENANCE, "corrects": item["id"]},
    )


def holder(store: Store, scope: str, resource_id: str, corrected: str) -> str:
    """The active item that holds the correction (made from it, or joined by it by dedup)."""
    held = store.items.items_holding(scope, resource_id)
    ids = [item_id for item_id, active in held if active and item_id != corrected]
    if ids:
        return ids[0]
    if held:
        raise InvalidInput("the correction says what the item already says: nothing to replace")
    raise InvalidInput(
        "the correction was kept, but it states no fact to remember; write it as a statement "
        "(for example 'I live in Porto now')"
    )


def supersede(store: Store, scope: str, old: dict[str, Any], new_id: str, now: datetime) -> None:
    """Retire the corrected item in favour of the one that holds the correction."""
    with store.transaction():
        store.items.supersede(scope, old["id"], new_id, now)
        store.items.log_ops([(scope, "superseded", old["id"], new_id)], now)
        store.bump_generation([scope])
        store.lifecycle.refresh_categories(scope, [old["category"]], now)
