"""Subjects: every `memubot.*` name on the bus, in one place (the contract of DESIGN.md §4).

What memubot consumes (`memubot.in.>`, held by the MEMUBOT_IN stream until committed), what it
publishes (`memubot.out.>`, held by MEMUBOT_OUT for agents that were not listening) and what it
answers (`memubot.rpc.<verb>`, core request/reply). Plain strings only: the memory core, the
predictors and the contract models may all import it without bringing in a transport.
"""

from __future__ import annotations

import re

IN_SUBJECTS = "memubot.in.>"
OUT_SUBJECTS = "memubot.out.>"

# consumed
CONVERSATION_PREFIX = "memubot.in.conversation."
CONVERSATIONS = CONVERSATION_PREFIX + ">"  # every agent's turns (the live-context listener)
TICK_PREFIX = "memubot.in.tick."
FEEDBACK = "memubot.in.feedback"
GITHUB = "memubot.in.github"
EMAIL = "memubot.in.email"  # one e-mail, from any source
GMAIL = "memubot.in.gmail"  # a Gmail Pub/Sub notification: "something changed", fetched by the daemon

# a subject token may not hold these
_TOKEN_UNSAFE = re.compile(r"[.*>\s]")


def conversation_subject(agent: str) -> str:
    """Where an agent publishes its conversation turns."""
    return CONVERSATION_PREFIX + agent


def tick_subject(name: str) -> str:
    """A schedule's tick (`consolidate`, `morning`, `heartbeat`, …)."""
    return TICK_PREFIX + name


def rpc_subject(verb: str) -> str:
    """Request/reply: `recall`, `stats`, `forget`, …"""
    return f"memubot.rpc.{verb}"


def suggestion_subject(scope: str) -> str:
    """What memubot has to say to the person of `scope`."""
    return f"memubot.out.suggestion.{scope}"


def context_subject(session: str | None) -> str:
    """`memubot.out.context.<session>`; characters a subject token may not hold become '_'."""
    token = _TOKEN_UNSAFE.sub("_", session or "") or "_"
    return f"memubot.out.context.{token}"


def op_subject(op: str) -> str:
    """What the memory did (created, merged, superseded, archived, forgotten…)."""
    return f"memubot.out.memory.{op}"
