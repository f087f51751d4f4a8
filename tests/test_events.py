"""Event validation: every rejection names the field."""

from __future__ import annotations

import json

import pytest

from daemon import bounded_json
from daemon.errors import InvalidEvent
from daemon.events import MAX_EVENT_BYTES, decode, event_id_of, parse_turn

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


# ---- bounded JSON (issue 22: a 10 KB body nested 5,000 deep raised RecursionError) ----------


def _nested(levels: int, inner: str = "") -> str:
    return "[" * levels + inner + "]" * levels


@pytest.mark.parametrize(
    "text",
    [
        _nested(5000),  # past the parser's own limit: RecursionError inside json.loads
        _nested(900),  # within it, but deep enough for a later recursive walk to fail
        '{"a": ' * 65 + "1" + "}" * 65,
        json.dumps({**GOOD, "meta": {"x": json.loads(_nested(63))}}),  # 65 with the event and meta
    ],
)
def test_json_nested_deeper_than_64_levels_is_refused_with_the_reason(text: str) -> None:
    with pytest.raises(InvalidEvent, match=r"^event is nested deeper than 64 levels$"):
        decode(text.encode())
    with pytest.raises(InvalidEvent, match="nested deeper than 64 levels"):
        parse_turn(text)


def test_64_levels_are_accepted_and_the_bound_is_the_callers() -> None:
    assert decode(_nested(64).encode()) == json.loads(_nested(64))
    assert parse_turn(json.dumps({**GOOD, "meta": {"x": json.loads(_nested(62))}})).id == "e1"
    with pytest.raises(InvalidEvent, match=r"^body is nested deeper than 3 levels$"):
        bounded_json.load(_nested(4), max_bytes=100, max_depth=3, what="body")
    with pytest.raises(InvalidEvent, match=r"^request is too large: 101 > 100 bytes$"):
        bounded_json.load(b" " * 101, max_bytes=100, what="request")
    with pytest.raises(InvalidEvent, match="not valid UTF-8"):
        bounded_json.load(b'"\xff"', max_bytes=100)


def test_a_lone_surrogate_is_refused_where_it_is_parsed() -> None:
    # found by tests/test_fuzz_entrypoints.py: "\\ud895" parses into a string no UTF-8 writer
    # takes, and the memorize RPC answered "internal: UnicodeEncodeError" for the whole request
    for body in [
        {**GOOD, "text": "lone \ud895 surrogate"},
        {**GOOD, "meta": {"tags": ["ok", {"\udfff": 1}]}},  # in a key, deep inside
    ]:
        with pytest.raises(
            InvalidEvent,
            match=r"^event is not valid Unicode: it escapes a lone surrogate \(\\u(d895|dfff)\)$",
        ):
            parse_turn(json.dumps(body))
    with pytest.raises(InvalidEvent, match=r"^request is not valid Unicode"):
        bounded_json.load('{"query": "\\udc00"}', max_bytes=100, what="request")
    # a pair of surrogates is one character, escaped as JSON allows
    assert parse_turn(json.dumps({**GOOD, "text": "a smile 😀"})).text == "a smile 😀"


def test_measuring_depth_does_not_recurse() -> None:
    value: list[object] = []
    for _ in range(100_000):  # far past the interpreter's recursion limit
        value = [value]
    assert bounded_json.too_deep(value, 64)
    assert not bounded_json.too_deep([[{"a": [1, {"b": []}]}]], 6)
    assert bounded_json.too_deep([[{"a": [1, {"b": []}]}]], 5)
    assert not bounded_json.too_deep("a string is depth 0", 0)


def test_the_sender_id_of_a_deep_body_is_still_read() -> None:
    body = '{"id": "deep-7", "scope": "alice", "meta": ' + _nested(5000) + "}"
    assert event_id_of(body.encode()) == "deep-7"
