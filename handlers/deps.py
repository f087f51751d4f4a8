"""Deps: what every handler receives (the memory, the settings, the injected clock)."""

from __future__ import annotations

from dataclasses import dataclass, field

from daemon.config import Settings
from daemon.memory import Clock, Memory
from daemon.predict.outlet import Outlet


@dataclass(frozen=True, slots=True)
class Deps:
    """Handlers take their collaborators from here; time comes from `clock`, never the wall."""

    memory: Memory
    settings: Settings
    clock: Clock
    out: Outlet = field(default_factory=Outlet)  # prefetched context out, the delivery timer's wake-up
