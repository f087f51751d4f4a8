"""Told nearby: the items told just before and after an item in the same conversation.

What a person tells in one sitting has an order — a procedure's steps, one thing's attributes
one after another, a story — so the item told right after an answer is often what is asked
next. This reads that order off a scope's index (its rows per session, by when they were said);
the context prefetch (daemon/predict/anticipate.py) uses it to look one step ahead.
"""

from __future__ import annotations

from daemon.memory.read.scope import ScopeIndex


def told_near(idx: ScopeIndex, row: int, before: int, after: int) -> list[tuple[int, int]]:
    """Active rows told within `before` items before and `after` items after `row` in its
    session, as (row, signed distance), nearest first (on a tie, the later one first: a told
    sequence is read forward). Empty when the row has no session."""
    session = idx.sessions[row] if 0 <= row < len(idx.sessions) else None
    if not session:
        return []
    # rows come in the order the index was built (not always the told order): the time each
    # item was said orders them, the row breaks a tie (items of one turn)
    rows = sorted(
        (r for r in idx.session_rows.get(session, []) if r == row or idx.active[r]),
        key=lambda r: (float(idx.occurred[r]), r),
    )
    try:
        at = rows.index(row)
    except ValueError:
        return []
    near = [
        (r, i - at) for i, r in enumerate(rows[max(0, at - before) : at + after + 1], max(0, at - before))
    ]
    near = [(r, d) for r, d in near if d != 0]
    return sorted(near, key=lambda rd: (abs(rd[1]), -rd[1]))
