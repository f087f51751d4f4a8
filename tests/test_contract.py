"""The bus contract: the AsyncAPI document, the subjects it names, and the models it is made from.

The document must be what `memubot asyncapi` prints (docs/asyncapi.json is committed), name
exactly the subjects the code uses (found here by reading the code), accept every recorded body
the daemon accepts, and the models must keep the refusal words senders know.
"""

from __future__ import annotations

import ast
import base64
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from nats.aio.client import Client as NATS

from daemon.cli.main import main as cli_main
from daemon.contract import asyncapi, inbound, outbound, requests
from daemon.errors import InvalidEvent
from daemon.events import MODELS
from daemon.github.webhook import bus_body
from daemon.gmail.message import email_body
from daemon.gmail.pull import notification_body
from daemon.memory import Memory
from daemon.runtime.ops_outbox import OpsOutbox
from daemon.runtime.replay import load_scenario
from daemon.runtime.rpc import VERBS, RpcServer
from handlers import ROUTES, route_for
from tests.conftest import turn
from tests.github_fixtures import fixture_files
from tests.runtime.test_rpc import TURN, ask, rpc  # noqa: F401 (rpc is a fixture)
from tests.shared_data import shared

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "docs" / "asyncapi.json"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SUBJECT = re.compile(r"memubot\.(?:in|out|rpc)\.[\w.*>-]*")


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return asyncapi.document()


def test_the_committed_document_is_what_memubot_asyncapi_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["asyncapi"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed)["asyncapi"] == "3.0.0"
    assert DOCUMENT.is_file() and DOCUMENT.read_text(encoding="utf-8") == printed, (
        "docs/asyncapi.json differs from what `memubot asyncapi` prints: regenerate it with "
        "`memubot asyncapi > docs/asyncapi.json` and commit it"
    )


# ---- the subjects: the document against the code --------------------------------------


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _literal(node: ast.AST) -> str | None:
    """A string constant as written; an f-string with each {value} as '*'."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "*" for v in node.values
        )
    return None


def subjects_in_code() -> dict[str, set[str]]:
    """Every subject written in the daemon's source, as a pattern ('*' = one open token), with the
    files it is written in. A prefix ending in '.' (a route, the tick prefix) is the prefix plus
    '*'; `>` filters (a stream, a catch-all subscription) are wildcards over these and left out.
    `memubot.rpc.*` stands for the verbs the RPC server answers: the methods `rpc_<verb>`."""
    found: dict[str, set[str]] = {}
    for pkg in ("daemon", "handlers", "schedules"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if "contract" in path.relative_to(ROOT).parts:
                continue  # the document's own generator is what is checked
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skip = _docstrings(tree)
            nested = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
            for node in ast.walk(tree):
                if id(node) in skip or id(node) in nested:
                    continue
                text = _literal(node)
                if text is None or not SUBJECT.fullmatch(text) or text.endswith(">"):
                    continue
                pattern = text + "*" if text.endswith(".") else text
                found.setdefault(pattern, set()).add(str(path.relative_to(ROOT)))
    verbs = {name.removeprefix("rpc_") for name in vars(RpcServer) if name.startswith("rpc_")}
    assert "memubot.rpc.*" in found, "no RPC subject found in the code: the scan is broken"
    where = found.pop("memubot.rpc.*")
    found.update({f"memubot.rpc.{verb}": where for verb in verbs})
    return found


def subjects_in_document(doc: dict[str, Any]) -> set[str]:
    addresses = [c["address"] for c in doc["channels"].values() if c["address"] is not None]
    return {re.sub(r"\{\w+\}", "*", a) for a in addresses}


def test_every_subject_in_the_document_is_one_the_daemon_uses_and_the_other_way_round(
    doc: dict[str, Any],
) -> None:
    code = subjects_in_code()
    documented = subjects_in_document(doc)
    # the scan itself must see the routes, the publishers and the verbs, or it proves nothing
    assert {"memubot.in.github", "memubot.out.suggestion.*", "memubot.rpc.recall"} <= code.keys()
    missing = {s: sorted(code[s]) for s in code.keys() - documented}
    assert not missing, f"subjects the code uses that docs/asyncapi.json does not name: {missing}"
    extra = documented - code.keys()
    assert not extra, f"subjects in the document that no code uses: {sorted(extra)}"


def test_the_server_answers_exactly_the_documented_verbs_and_consumes_the_routed_subjects(
    doc: dict[str, Any],
) -> None:
    served = {name.removeprefix("rpc_") for name in vars(RpcServer) if name.startswith("rpc_")}
    assert served == set(VERBS) == set(requests.VERBS)
    for verb in VERBS:
        operation = doc["operations"][f"rpc.{verb}"]
        assert operation["action"] == "receive" and "reply" in operation, verb
    received = [o for o in doc["operations"].values() if o["action"] == "receive"]
    # the events of the routes, the verbs, and each once more: scoped, and on a partition
    assert len(received) == len(ROUTES) + len(VERBS) + 2
    for route in ROUTES:  # each consumed channel is one the dispatcher routes to that handler
        address = doc["channels"][route.kind]["address"]
        assert route_for(re.sub(r"\{\w+\}", "x", address)) is route, address
    assert set(MODELS) == {route.parse for route in ROUTES}


# ---- the models against recorded bodies ------------------------------------------------


def _payload_schema(doc: dict[str, Any], channel: str) -> dict[str, Any]:
    [message] = doc["channels"][channel]["messages"].values()
    name = message["$ref"].rsplit("/", 1)[1]
    payload = doc["components"]["messages"][name]["payload"]
    return {**payload, "components": doc["components"]}  # its $refs resolve inside the document


def recorded_bodies() -> list[tuple[str, Any]]:
    """(subject, decoded body) of what real senders put on the bus: replay scenarios, GitHub's
    payload fixtures as the webhook puts them on the bus, Gmail's messages as the fetcher does."""
    bodies: list[tuple[str, Any]] = []
    for folder in (FIXTURES / "proactive", shared("bench", "proactive")):
        for path in sorted(folder.glob("*.json")):
            bodies += [(step.subject, json.loads(step.data)) for step in load_scenario(path).events]

    for event, path in fixture_files():
        payload = json.loads(path.read_bytes())
        raw = bus_body(path.stem, "alice", event, payload, datetime(2026, 3, 2, tzinfo=UTC))
        bodies.append(("memubot.in.github", json.loads(raw)))
    for path in sorted((FIXTURES / "gmail").glob("message_*.json")):
        body = email_body(json.loads(path.read_text()), "alice", "alice@example.com")
        bodies.append(("memubot.in.email", body))
    data = base64.b64encode(json.dumps({"emailAddress": "alice@example.com", "historyId": 9}).encode())
    bodies.append(("memubot.in.gmail", json.loads(notification_body("n1", data.decode(), "alice"))))
    return bodies


def test_recorded_bodies_are_accepted_and_valid_under_the_published_schema(doc: dict[str, Any]) -> None:
    bodies = recorded_bodies()
    kinds = set()
    for subject, body in bodies:
        route = route_for(subject)
        assert route is not None, subject
        route.parse(body)  # accepted
        jsonschema.validate(body, _payload_schema(doc, route.kind))
        kinds.add(route.kind)
    assert {"conversation", "github", "email", "gmail"} <= kinds, kinds


GOOD = {
    "tick": {"id": "morning:2026-03-02T07:00Z", "schedule": "morning", "ts": "2026-03-02T08:00:00+01:00"},
    "feedback": {
        "id": "f1",
        "suggestion_id": "sg_1",
        "verdict": "snoozed",
        "ts": "2026-03-02T08:00:00+01:00",
    },
    "github": {"id": "d1", "scope": "alice", "event": "push", "payload": {}},
    "email": {
        "id": "m1",
        "scope": "alice",
        "from": "Bob <bob@example.com>",
        "date": "2026-03-02T08:00:00+01:00",
        "subject": "Lunch?",
    },
    "gmail": {"id": "n1", "emailAddress": "alice@example.com", "historyId": "42"},
    "conversation": {
        "id": "e1",
        "scope": "alice",
        "role": "user",
        "text": "hi",
        "ts": "2026-03-02T08:00:00+01:00",
    },
}


# the words the hand-written parsers used (their output before the models, copied from a run)
@pytest.mark.parametrize(
    ("kind", "patch", "message"),
    [
        ("tick", {"schedule": None}, "missing required field 'schedule'"),
        ("tick", {"ts": 7}, "field 'ts' must be a string, got int"),
        ("tick", {"ts": "2026-03-02 08:00"}, "field 'ts' has no UTC offset: '2026-03-02 08:00'"),
        (
            "feedback",
            {"verdict": "loved"},
            "field 'verdict' must be one of ['accepted', 'dismissed', 'snoozed'], got 'loved'",
        ),
        ("feedback", {"suggestion_id": None}, "missing required field 'suggestion_id'"),
        ("feedback", {"scope": "a.b"}, "field 'scope' may not contain '.' (it names a bus subject): 'a.b'"),
        ("feedback", {"until": "soon"}, "field 'until' is not ISO-8601: 'soon'"),
        ("feedback", {"id": " "}, "field 'id' is empty"),
        ("github", {"payload": None}, "field 'payload' must be an object, got NoneType"),
        ("github", {"payload": []}, "field 'payload' must be an object, got list"),
        ("github", {"event": ""}, "field 'event' is empty"),
        ("github", {"scope": "x" * 129}, "field 'scope' is longer than 128 characters"),
        (
            "github",
            {"received_at": "2026-03-02T08:00:00"},
            "field 'received_at' has no UTC offset: '2026-03-02T08:00:00'",
        ),
        ("github", {"action": 3}, "field 'action' must be a string, got int"),
        ("email", {"from": None}, "missing required field 'from'"),
        ("email", {"from": " "}, "field 'from' is empty"),
        (
            "email",
            {"subject": "", "text": " "},
            "fields 'text' and 'subject' are both empty (a message must say something)",
        ),
        ("email", {"to": [1]}, "field 'to' must be a list of strings"),
        ("email", {"date": "Mon, 2 Mar 2026"}, "field 'date' is not ISO-8601: 'Mon, 2 Mar 2026'"),
        ("email", {"thread": 5}, "field 'thread' must be a string, got int"),
        ("gmail", {"emailAddress": "alice"}, "field 'emailAddress' is not an address: 'alice'"),
        ("gmail", {"historyId": True}, "field 'historyId' must be a positive integer, got True"),
        ("gmail", {"historyId": "-1"}, "field 'historyId' must be a positive integer, got '-1'"),
        ("gmail", {"historyId": None}, "field 'historyId' must be a positive integer, got None"),
        ("gmail", {"scope": ""}, "field 'scope' is empty"),
        ("conversation", {"meta": [1]}, "field 'meta' must be an object, got list"),
        ("conversation", {"text": "x" * 70000}, "field 'text' is too long: 70000 > 65536 characters"),
        ("conversation", {"session": 3}, "field 'session' must be a string, got int"),
        (
            "conversation",
            {"scope": "al ice"},
            "field 'scope' may not contain ' ' (it names a bus subject): 'al ice'",
        ),
        # several faults: a missing field is named before a blank id, and that before a bad value
        ("conversation", {"id": "", "role": "robot", "ts": None}, "missing required field 'ts'"),
        ("github", {"id": "", "scope": "a.b", "payload": []}, "field 'id' is empty"),
    ],
)
def test_each_refusal_names_the_field_in_the_words_senders_know(
    kind: str, patch: dict[str, Any], message: str
) -> None:
    body = {k: v for k, v in {**GOOD[kind], **patch}.items() if v is not None}
    parse = next(r.parse for r in ROUTES if r.kind == kind)
    with pytest.raises(InvalidEvent) as refused:
        parse(body)
    assert str(refused.value) == message


def test_a_digit_python_cannot_read_is_refused_not_a_crash() -> None:
    # "²" is a digit to str.isdigit and not to int(): the hand-written parser raised ValueError
    with pytest.raises(InvalidEvent, match="field 'historyId' must be a positive integer, got '²'"):
        MODELS_BY_KIND["gmail"]({**GOOD["gmail"], "historyId": "²"})


MODELS_BY_KIND = {r.kind: r.parse for r in ROUTES}


def test_the_parsed_event_is_the_models_reading_of_the_body() -> None:
    for route in ROUTES:
        event = route.parse(GOOD[route.kind])
        model = inbound.validate(MODELS[route.parse], GOOD[route.kind])
        assert event.id == model.id, route.kind  # type: ignore[attr-defined]
    turn_event = MODELS_BY_KIND["conversation"](GOOD["conversation"])
    assert turn_event.agent == "main" and turn_event.meta == {} and turn_event.ts.utcoffset() is not None


# ---- what memubot sends: memory ops and RPC replies ------------------------------------


async def test_the_memory_ops_published_match_their_model(memory: Memory) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(subject: str, body: bytes, msg_id: str) -> None:
        sent.append((subject, json.loads(body)))

    outbox = OpsOutbox(memory.ledger, publish)
    memory.memorize([turn("r1", "My dentist is Dr. Okafor on Elm Street."), turn("r2", "I moved to Lisbon.")])
    assert await outbox.pump() > 0
    memory.forget("alice", everything=True)  # (forgetting also drops the forgotten items' old ops)
    assert await outbox.pump() > 0
    ops = {body["op"] for _, body in sent}
    assert {"created", "forgotten"} <= ops, ops
    for subject, body in sent:
        op = outbound.MemoryOp.model_validate(body)
        assert subject == f"memubot.out.memory.{op.op}"


async def test_every_rpc_reply_matches_its_verbs_reply_model(rpc: NATS) -> None:  # noqa: F811
    asked = {
        "memorize": {"turns": [TURN]},
        "recall": {"scope": "alice", "query": "Who is my dentist?", "explain": True},
        "forget": {"scope": "alice", "query": "dentist", "dry_run": True},
        "restore": {"scope": "alice", "item": "nope"},
        "consolidate": {"scope": "alice"},
        "stats": {},
        "profile": {"scope": "alice"},
        "suggestions": {"scope": "alice"},
        "flush": {"timeout": 1},
        "deadletters": {},
    }
    assert asked.keys() == set(VERBS)
    outcomes = {}
    for verb, body in asked.items():
        [reply] = await ask(rpc, f"memubot.rpc.{verb}", body)
        _, ok = requests.VERBS[verb]
        model = ok if reply["ok"] else requests.ErrorReply
        model.model_validate(reply)
        outcomes[verb] = reply["ok"]
    assert outcomes.pop("restore") is False  # the error reply, checked too
    assert all(outcomes.values()), outcomes
    [replay] = await ask(rpc, "memubot.rpc.deadletters", {"action": "replay", "id": 99})
    requests.ErrorReply.model_validate(replay)


def test_the_documented_suggestion_statuses_are_the_memorys() -> None:
    from daemon.state.suggestions import STATUSES

    status = requests.SuggestionsRequest.model_json_schema()["properties"]["status"]
    assert status["anyOf"][0]["enum"] == list(STATUSES)
