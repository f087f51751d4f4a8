"""Maintenance jobs over the memory: the daily consolidation and the profile file.

The scheduler (schedules/) and the CLI call these same functions, so `memubot consolidate`
does exactly what the daily job does.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from daemon.config import Settings
from daemon.memory import Memory
from daemon.memory.profile import write_profile

log = logging.getLogger(__name__)


def refresh_profile(memory: Memory, settings: Settings) -> bool | None:
    """Rewrite the managed block of the profile file; None when no profile file is configured."""
    if settings.profile_dir is None or not settings.profile_scope:
        return None
    changed = write_profile(
        settings.profile_dir, settings.profile_file, memory.profile_items(settings.profile_scope)
    )
    if changed:
        log.info("profile file %s updated", settings.profile_dir / settings.profile_file)
    return changed


def consolidate(
    memory: Memory, settings: Settings, scope: str | None = None, at: datetime | None = None
) -> dict[str, Any]:
    """The lifecycle step for one or every scope, then the profile file."""
    report: dict[str, Any] = {"scopes": memory.consolidate(scope, at)}
    report["profile_updated"] = refresh_profile(memory, settings)
    return report
