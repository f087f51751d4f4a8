"""Event validation: every rejection names the field."""

from __future__ import annotations

import json

import pytest

from daemon.errors import InvalidEvent
from daemon.events import MAX_EVENT_BYTES, parse_turn

GOOD = {"id": "e1", "scope": "alice", "role": "user", "text": "hi there", "ts": "2024-01-01T10:00:00+01:00"}


def test_valid_turn_keeps_offset_and_defaults() -> None:
    t = parse_turn(json.dumps(GOOD))
    assert t.id == "e1" and t.agent == "main" and t.meta == {}
    assert t.ts.utcoffset() is not None and t.ts.utcoffset().total_seconds() == 3600  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ({"id": None}, "missing required field 'id'"),
        ({"scope": 7}, "field 'scope' must be a string"),
        ({"role": "robot"}, "field 'role' must be one of"),
        ({"ts": "yesterday"}, "field 'ts' is not ISO-8601"),
        ({"ts": "2024-01-01T10:00:00"}, "has no UTC offset"),
        ({"meta": [1]}, "field 'meta' must be an object"),
        ({"scope": " "}, "field 'scope' is empty"),
        ({"text": ""}, "field 'text' is empty"),
        ({"text": " \n\t"}, "field 'text' is empty"),
    ],
)
def test_invalid_fields_are_named(patch: dict[str, object], reason: str) -> None:
    obj = {**GOOD, **patch}
    obj = {k: v for k, v in obj.items() if v is not None}
    with pytest.raises(InvalidEvent, match=reason):
        parse_turn(json.dumps(obj))


def test_bad_json_utf8_and_size() -> None:
    with pytest.raises(InvalidEvent, match="invalid JSON"):
        parse_turn("{not json")
    with pytest.raises(InvalidEvent, match="not valid UTF-8"):
        parse_turn(b'{"id": "\xff"}')
    with pytest.raises(InvalidEvent, match="too large"):
        parse_turn(b" " * (MAX_EVENT_BYTES + 1))
    with pytest.raises(InvalidEvent, match="must be a JSON object"):
        parse_turn("[1, 2]")
