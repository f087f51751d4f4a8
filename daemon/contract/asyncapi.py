"""The AsyncAPI 3.0 document of memubot's bus face: `memubot asyncapi`, docs/asyncapi.json.

The channels come from where the daemon really takes, sends and answers messages: the routes
of the consumer (handlers.ROUTES), the subject functions of the three publishers (suggestions,
context, memory ops) and the RPC verbs (daemon.runtime.rpc.VERBS); the payloads from the models that
validate them (daemon/contract/). FastStream builds the document from a NatsBroker that
declares them and is never connected. (At run time the RPC verbs are FastStream subscribers
too, daemon/runtime/rpc.py, but their handlers take the raw message: the request models' schemas are
declared here. The publishers send through FastStream too, daemon/runtime/publisher.py; the
default consumer still speaks nats-py directly.)
FastStream 0.7 writes no `reply` for request/reply operations and no channel `parameters`;
both are added here.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any, Union

from faststream.nats import NatsBroker
from faststream.specification import AsyncAPI
from pydantic import BaseModel

from daemon import __version__
from daemon.config import Settings
from daemon.contract import outbound, requests
from daemon.contract.requests import ErrorReply
from daemon.events import MODELS
from daemon.runtime.rpc import VERBS
from daemon.subjects import (
    IN_SUBJECTS,
    context_subject,
    op_subject,
    rpc_partition_subject,
    rpc_subject,
    scoped_subject,
    suggestion_subject,
)
from handlers import ROUTES

# the token a prefix route leaves open, by route kind (a new prefix route must name its token here)
ROUTE_TOKEN = {"conversation": "agent", "tick": "schedule"}
PARAMETERS = {
    "agent": "the agent that had the conversation (`main` unless the turn says otherwise)",
    "schedule": "the schedule that fired (morning, heartbeat, consolidation, ...)",
    "scope": "whose memory the suggestion comes from",
    "session": "the turn's session; characters a subject token may not hold are '_'",
    "op": "what the memory did: created, merged, superseded, archived, forgotten, ...",
    "subject": "the rest of the event's subject without a scope: `conversation.<agent>`, `feedback`, "
    "`github`, `email`, `gmail`, `tick.<schedule>`",
    "partition": "a partition of the scopes (0 to MEMUBOT_PARTITIONS - 1)",
    "verb": "an RPC verb, as on `memubot.rpc.<verb>`",
}
SCOPED_NOTE = (
    "Any event of `memubot.in.<subject>` with its scope in the subject (the same body, whose `scope`, "
    "if it has one, must be the subject's: else it is a dead letter). On one node it is handled as "
    "the unscoped event; with MEMUBOT_PARTITIONS=N the stream MEMUBOT_IN stores it as "
    "`memubot.in.part.<p>.<scope>.<subject>`, p = partition(N, scope), and the instance that owns "
    "partition p stores it (docs/cluster.md)."
)
PART_NOTE = (
    "A verb answered by the instance that owns the partition (MEMUBOT_OWN_PARTITIONS), with the "
    "request and reply of `memubot.rpc.<verb>`; any instance's `memubot.rpc.<verb>` forwards here "
    "when the request's scope is in a partition it does not own (docs/cluster.md)."
)
IN_NOTE = {
    "conversation": "Main Agent → memubot, on JetStream (stream MEMUBOT_IN, `Nats-Msg-Id` = the turn id).",
    "tick": "memubot's scheduler → memubot (stream MEMUBOT_IN; the id names the fire time).",
    "feedback": "Main Agent → memubot: what the person did with a suggestion (stream MEMUBOT_IN).",
    "github": "memubot's webhook endpoint or GitHub poller → memubot (stream MEMUBOT_IN).",
    "email": "memubot's Gmail fetcher, a replay or another agent → memubot (stream MEMUBOT_IN).",
    "gmail": "memubot's Pub/Sub pull loop or push endpoint → memubot (stream MEMUBOT_IN).",
}
DESCRIPTION = (
    "memubot, a proactive memory daemon for AI agents, on NATS. It consumes `memubot.in.>` "
    "(JetStream stream MEMUBOT_IN, acknowledged after its effects are committed; an event it "
    "cannot accept is a dead letter with the reason), publishes `memubot.out.>` and answers "
    "`memubot.rpc.<verb>` with exactly one reply each. Every JetStream publish carries `Nats-Msg-Id` = the event id."
)


def _handler(model: Any, returns: type[BaseModel] | None = None) -> Callable[..., Awaitable[Any]]:
    """A stub with the payload's type: FastStream reads the schema from the annotation."""

    async def handle(body: Any) -> Any:  # never called: the broker is never started
        raise NotImplementedError

    handle.__annotations__ = {"body": model, "return": returns}
    return handle


def _pattern(route_subject: str, kind: str) -> str:
    """A route's subject as a channel address: a prefix route ends in its `{token}`."""
    return f"{route_subject}{{{ROUTE_TOKEN[kind]}}}" if route_subject.endswith(".") else route_subject


def contract_broker() -> NatsBroker:
    """A NatsBroker declaring every subject memubot consumes, publishes and answers."""
    url = next(f.default for f in dataclasses.fields(Settings) if f.name == "nats_url")
    broker = NatsBroker(str(url), description="the NATS server memubot runs (embedded) or is given")
    for route in ROUTES:
        event = MODELS[route.parse]
        broker.subscriber(
            _pattern(route.subject, route.kind),
            title=route.kind,
            description=f"{event.__doc__}\n\n{IN_NOTE[route.kind]}",
        )(_handler(event))
    outgoing: tuple[tuple[str, str, type[BaseModel], str], ...] = (
        (
            "suggestion",
            suggestion_subject("{scope}"),
            outbound.Suggestion,
            "On JetStream (stream MEMUBOT_OUT).",
        ),
        (
            "context",
            context_subject("{session}"),
            outbound.Context,
            "On core NATS: only live subscribers get it.",
        ),
        ("memory", op_subject("{op}"), outbound.MemoryOp, "On JetStream (stream MEMUBOT_OUT)."),
    )
    for title, subject, model, how in outgoing:
        broker.publisher(subject, title=title, description=f"{model.__doc__}\n\n{how}", schema=model)
    events = tuple(MODELS[route.parse] for route in ROUTES)
    broker.subscriber(
        scoped_subject("{scope}", IN_SUBJECTS.removesuffix(">") + "{subject}"),
        title="scoped",
        description=SCOPED_NOTE,
    )(_handler(Union[events]))  # noqa: UP007 - a union of the event models, built at run time
    for verb in VERBS:
        request, _ = requests.VERBS[verb]
        broker.subscriber(
            rpc_subject(verb),
            title=f"rpc.{verb}",
            description=f"{request.__doc__ or verb}\n\nRequest/reply (core NATS, queue group `memubot`).",
        )(_handler(request))
    broker.subscriber(
        rpc_partition_subject("{partition}", "{verb}"), title="rpc.part", description=PART_NOTE
    )(_handler(dict[str, Any]))
    return broker


def document() -> dict[str, Any]:
    spec = AsyncAPI(
        contract_broker(),
        title="memubot",
        version=__version__,
        description=DESCRIPTION,
        schema_version="3.0.0",
    )
    doc: dict[str, Any] = spec.to_specification().to_jsonable()
    _add_parameters(doc)
    _add_replies(doc)
    # FastStream's order follows its registries; the committed file must not change with it
    for key in ("channels", "operations"):
        doc[key] = dict(sorted(doc[key].items()))
    for key in ("messages", "schemas"):
        doc["components"][key] = dict(sorted(doc["components"][key].items()))
    return doc


def render() -> str:
    """The document as `memubot asyncapi` prints it (and docs/asyncapi.json holds it)."""
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"


def _add_parameters(doc: dict[str, Any]) -> None:
    for channel in doc["channels"].values():
        names = re.findall(r"\{(\w+)\}", channel.get("address") or "")
        if names:
            channel["parameters"] = {name: {"description": PARAMETERS[name]} for name in names}


def _add_replies(doc: dict[str, Any]) -> None:
    """Each verb's reply: its success model or the error reply, on the requester's inbox."""
    schemas: dict[str, Any] = doc["components"]["schemas"]
    for verb in VERBS:
        key = f"rpc.{verb}"
        _, ok = requests.VERBS[verb]
        names = [_add_schema(schemas, model) for model in (ok, ErrorReply)]
        message = f"{key}:Reply"
        doc["components"]["messages"][message] = {
            "title": message,
            "payload": {"oneOf": [{"$ref": f"#/components/schemas/{n}"} for n in names]},
        }
        doc["channels"][f"{key}.reply"] = {
            "address": None,
            "description": f"The reply to a {verb} request, on the requester's inbox (the NATS reply subject).",
            "messages": {"Reply": {"$ref": f"#/components/messages/{message}"}},
        }
        doc["operations"][key]["reply"] = {
            "channel": {"$ref": f"#/channels/{key}.reply"},
            "messages": [{"$ref": f"#/channels/{key}.reply/messages/Reply"}],
        }


def _add_schema(schemas: dict[str, Any], model: type[BaseModel]) -> str:
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, sub in {**schema.pop("$defs", {}), model.__name__: schema}.items():
        if schemas.setdefault(name, sub) != sub:
            raise ValueError(f"two different schemas are named {name!r}")
    return model.__name__
