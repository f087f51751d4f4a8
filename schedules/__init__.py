"""SCHEDULES: the scheduled jobs as data (name, trigger, event type).

Empty until the daemon (issue 4) adds the consolidation, morning and heartbeat ticks; the
scheduler and this list arrive together so that nothing here is scheduled by nobody.
"""

from __future__ import annotations

SCHEDULES: tuple[dict[str, str], ...] = ()
