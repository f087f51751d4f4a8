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


# ---- scopes over a cluster (docs/cluster.md) ---------------------------------------------------
#
# A scoped subject carries the scope as its fourth token: `memubot.in.scoped.<scope>.<rest>`,
# where `<rest>` is what follows `memubot.in.` in the subject the event has without a scope
# (`conversation.<agent>`, `feedback`, …). With MEMUBOT_PARTITIONS=N the MEMUBOT_IN stream maps
# it, as it stores it, to `memubot.in.part.<p>.<scope>.<rest>`, p = partition(N, scope): one
# durable consumer per partition filters on `memubot.in.part.<p>.>`.
SCOPED_CONVERSATIONS = "memubot.in.scoped.*.conversation.>"  # every scoped turn (live context)
_IN = ("memubot", "in")


def scoped_subject(scope: str, subject: str) -> str:
    """The subject of an event for `scope`: `memubot.in.conversation.main` for scope alice is
    `memubot.in.scoped.alice.conversation.main`."""
    tokens = subject.split(".")
    if tuple(tokens[:2]) != _IN or len(tokens) < 3 or tokens[2] in ("scoped", "part"):
        raise ValueError(f"not an unscoped memubot.in subject: {subject!r}")
    if not scope or _TOKEN_UNSAFE.search(scope):
        raise ValueError(f"a scope must be one subject token, got {scope!r}")
    rest = ".".join(tokens[2:])
    return f"memubot.in.scoped.{scope}.{rest}"


def unscoped(subject: str) -> tuple[str | None, str]:
    """(scope, the subject without it) of a scoped or a partitioned subject; (None, subject) else."""
    tokens = subject.split(".")
    if tuple(tokens[:2]) != _IN or len(tokens) < 3:
        return None, subject
    if tokens[2] == "scoped" and len(tokens) >= 5:
        scope, rest = tokens[3], tokens[4:]
    elif tokens[2] == "part" and len(tokens) >= 6:
        scope, rest = tokens[4], tokens[5:]
    else:
        return None, subject
    return scope, ".".join([*_IN, *rest])


def partition_filter(partition: int) -> str:
    """What the durable consumer of one partition reads from MEMUBOT_IN."""
    return f"memubot.in.part.{partition}.>"


def partition_transform(partitions: int) -> tuple[str, str]:
    """(source, destination) of the MEMUBOT_IN stream's subject transform for N partitions."""
    return (
        "memubot.in.scoped.*.>",
        f"memubot.in.part.{{{{partition({partitions},1)}}}}.{{{{wildcard(1)}}}}.>",
    )


def partition_of(scope: str, partitions: int) -> int:
    """The partition NATS's `partition(N, …)` puts `scope` in: FNV-1a (32 bits) of the token's
    UTF-8 bytes, modulo N (nats-server's subject_transform.go; tests/test_cluster.py checks it
    against the server)."""
    h = 0x811C9DC5
    for byte in scope.encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % partitions


def rpc_partition_subject(partition: int | str, verb: str) -> str:
    """The verb as answered by the instance that owns `partition` (a router forwards there)."""
    return f"memubot.rpc.part.{partition}.{verb}"
