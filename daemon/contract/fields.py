"""The fields of the bus's bodies: each a type for the schema and a rule that refuses with a reason.

A rule raises `Refusal` with what is wrong ("is empty", "must be a string, got int"); the
model that holds the field (inbound.py) names the field when it turns the refusal into an
`InvalidEvent`, so that every rejection reads "field 'scope' is empty" wherever the field sits.
The JSON-schema keywords next to each rule (maxLength, pattern, enum) describe it in the AsyncAPI
document; the rule runs first and decides, in the words senders have always read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field

from daemon.errors import InvalidEvent

MAX_SCOPE_CHARS = 128
MAX_TEXT_CHARS = 64 * 1024
# a scope names a NATS subject token (memubot.out.suggestion.<scope>): no separators or wildcards
_SCOPE_FORBIDDEN = frozenset(".*>")

Role = Literal["user", "assistant", "system", "tool"]
Verdict = Literal["accepted", "dismissed", "snoozed"]
ROLES = frozenset(get_args(Role))
VERDICTS = frozenset(get_args(Verdict))


class Refusal(ValueError):
    """Why a field (or the whole event) is refused, without the field's name.

    `kind` orders the refusals of one event as the parsers always have: a missing field or a
    wrong JSON type first, then a blank id (or sender, or GitHub event), then any other bad
    value; "event" is a message about the whole body.
    """

    def __init__(
        self, reason: str, kind: Literal["missing", "type", "blank", "value", "event"] = "value"
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind

    def message(self, name: str) -> str:
        if self.kind == "missing":
            return f"missing required field {name!r}"
        if self.kind == "event":
            return self.reason
        return f"field {name!r} {self.reason}"


# ---- rules: value in, value (or a Refusal) out -----------------------------------------


def _type_name(value: Any) -> str:
    return type(value).__name__


def required_str(value: Any) -> str:
    """A string; null is the same as absent (senders write both)."""
    if value is None:
        raise Refusal("", "missing")
    if not isinstance(value, str):
        raise Refusal(f"must be a string, got {_type_name(value)}", "type")
    return value


def optional_str(value: Any) -> str | None:
    return None if value is None else required_str(value)


def nonempty_str(value: Any) -> str:
    """A string with more than whitespace in it."""
    text = required_str(value)
    if not text.strip():
        raise Refusal("is empty", "blank")
    return text


def scope_rule(value: Any) -> str:
    """One subject token: non-empty, no whitespace, '.', '*' or '>', at most 128 characters."""
    scope = required_str(value)
    if not scope.strip():
        raise Refusal("is empty")
    if len(scope) > MAX_SCOPE_CHARS:
        raise Refusal(f"is longer than {MAX_SCOPE_CHARS} characters")
    bad = sorted({c for c in scope if c in _SCOPE_FORBIDDEN or c.isspace() or not c.isprintable()})
    if bad:
        raise Refusal(f"may not contain {''.join(bad)!r} (it names a bus subject): {scope!r}")
    return scope


def optional_scope(value: Any) -> str | None:
    return None if value is None else scope_rule(value)


def iso_time(value: str) -> datetime:
    """An ISO-8601 time that carries an offset; naive times are ambiguous and refused."""
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        raise Refusal(f"is not ISO-8601: {value!r}") from None
    if ts.tzinfo is None:
        raise Refusal(f"has no UTC offset: {value!r}")
    return ts


def time_rule(value: Any) -> datetime:
    return iso_time(required_str(value))


def optional_time(value: Any) -> datetime | None:
    return None if value is None else time_rule(value)


def one_of(values: frozenset[str]) -> Callable[[Any], str]:
    def rule(value: Any) -> str:
        text = required_str(value)
        if text not in values:
            raise Refusal(f"must be one of {sorted(values)}, got {text!r}")
        return text

    return rule


def turn_text(value: Any) -> str:
    text = required_str(value)
    if not text.strip():
        # an empty turn says nothing to remember; storing it would make a resource with no text
        raise Refusal("is empty (a turn must say something)")
    if len(text) > MAX_TEXT_CHARS:
        raise Refusal(f"is too long: {len(text)} > {MAX_TEXT_CHARS} characters")
    return text


def meta_rule(value: Any) -> dict[str, Any]:
    """An object; absent, null (or any empty value) is an empty one."""
    meta = value or {}
    if not isinstance(meta, dict):
        raise Refusal(f"must be an object, got {_type_name(meta)}")
    return meta


def object_rule(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Refusal(f"must be an object, got {_type_name(value)}")
    return value


def str_list(value: Any) -> tuple[str, ...]:
    """A list of strings (a single string is a one-element list); absent is empty; blanks go."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Refusal("must be a list of strings")
    return tuple(v for v in value if v.strip())


def address_rule(value: Any) -> str:
    address = required_str(value)
    if "@" not in address:
        raise Refusal(f"is not an address: {address!r}")
    return address


def history_id_rule(value: Any) -> int:
    """Gmail sends historyId as a number; Pub/Sub JSON may carry it as a string of digits."""
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise Refusal(f"must be a positive integer, got {value!r}")
    try:
        return int(value)
    except ValueError:  # digits int() does not read ("²" is a digit to str.isdigit)
        raise Refusal(f"must be a positive integer, got {value!r}") from None


def size_rule(value: Any) -> int | None:
    """Informational: anything but an integer is dropped, never refused."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def flag_rule(value: Any) -> bool:
    """Informational: only JSON `true` is true."""
    return value is True


# ---- the types the models use: schema + rule -------------------------------------------

_NONBLANK = {"pattern": r"\S"}
_SCOPE_PATTERN = {"pattern": r"^[^.*>\s]+$"}

EventId = Annotated[
    str,
    BeforeValidator(nonempty_str),
    Field(
        description="the sender's event id: the idempotency key and the `Nats-Msg-Id`",
        json_schema_extra=_NONBLANK,
    ),
]
NonEmpty = Annotated[str, BeforeValidator(nonempty_str), Field(json_schema_extra=_NONBLANK)]
Text = Annotated[str, BeforeValidator(required_str)]
OptText = Annotated[str | None, BeforeValidator(optional_str)]
Scope = Annotated[
    str,
    BeforeValidator(scope_rule),
    Field(
        description="whose memory: one NATS subject token (no '.', '*', '>' or whitespace)",
        max_length=MAX_SCOPE_CHARS,
        json_schema_extra=_SCOPE_PATTERN,
    ),
]
OptScope = Annotated[
    str | None,
    BeforeValidator(optional_scope),
    Field(description="whose memory, when the sender knows it", json_schema_extra=_SCOPE_PATTERN),
]
Timestamp = Annotated[
    datetime,
    BeforeValidator(time_rule),
    Field(description="ISO-8601 with a UTC offset (a naive time is refused)"),
]
OptTimestamp = Annotated[
    datetime | None,
    BeforeValidator(optional_time),
    Field(description="ISO-8601 with a UTC offset (a naive time is refused)"),
]
RoleField = Annotated[Role, BeforeValidator(one_of(ROLES))]
VerdictField = Annotated[Verdict, BeforeValidator(one_of(VERDICTS))]
TurnText = Annotated[
    str,
    BeforeValidator(turn_text),
    Field(description="what was said", max_length=MAX_TEXT_CHARS, json_schema_extra=_NONBLANK),
]
Meta = Annotated[dict[str, Any], BeforeValidator(meta_rule)]
Payload = Annotated[dict[str, Any], BeforeValidator(object_rule)]


def _any_of(*alternatives: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A field's schema as alternatives: the rule accepts more than its Python type says."""

    def extra(schema: dict[str, Any]) -> None:
        for key in ("type", "items", "minimum"):
            schema.pop(key, None)
        schema["anyOf"] = list(alternatives)

    return extra


StrList = Annotated[
    tuple[str, ...],
    BeforeValidator(str_list),
    Field(json_schema_extra=_any_of({"type": "string"}, {"type": "array", "items": {"type": "string"}})),
]
Address = Annotated[str, BeforeValidator(address_rule), Field(json_schema_extra={"pattern": "@"})]
HistoryId = Annotated[
    int,
    BeforeValidator(history_id_rule),
    Field(
        json_schema_extra=_any_of(
            {"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+$"}
        )
    ),
]
Size = Annotated[int | None, BeforeValidator(size_rule)]
Flag = Annotated[bool, BeforeValidator(flag_rule)]


# ---- the same rules for callers outside a model (CLI options, RPC fields, settings) -------


def check_scope(scope: str, name: str = "scope") -> str:
    """A scope is one subject token: non-empty, no whitespace, '.', '*' or '>', at most 128 chars."""
    try:
        return scope_rule(scope)
    except Refusal as refusal:
        raise InvalidEvent(refusal.message(name)) from None


def parse_ts(value: str, name: str = "ts") -> datetime:
    """An ISO-8601 timestamp that carries an offset; naive times are ambiguous and refused."""
    if not isinstance(value, str):
        raise InvalidEvent(f"field {name!r} must be an ISO-8601 string, got {type(value).__name__}")
    try:
        return iso_time(value)
    except Refusal as refusal:
        raise InvalidEvent(refusal.message(name)) from None
