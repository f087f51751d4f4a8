"""Feedback moves the bar: a kind of suggestion that a scope keeps dismissing speaks less.

bar(n) = 1 - (1 - BASE) * DECAY**n, n = dismissed - accepted (never below 0); a suggestion goes
out only if its confidence reaches the bar of its (scope, kind). With BASE 0.5 and DECAY 0.75:
n = 0 → 0.50, 1 → 0.63, 2 → 0.72, 3 → 0.79, 4 → 0.84, 5 → 0.88, 6 → 0.91. A reminder
(confidence 0.8) is silenced after four net dismissals; each acceptance takes one back.
Snoozes do not count against a kind: the person wanted it, later.
"""

from __future__ import annotations

BASE = 0.5
DECAY = 0.75


def bar(accepted: int, dismissed: int) -> float:
    n = max(0, dismissed - accepted)
    return 1.0 - (1.0 - BASE) * DECAY**n
