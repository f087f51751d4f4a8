"""Bounded JSON: everything that arrives from outside is parsed with a cap on size and nesting.

Every entry point (bus events, the GitHub and Gmail webhooks, `memubot import`, RPC requests)
parses through `load`, so that one crafted body fails as itself, with a reason, instead of
raising `RecursionError` or `MemoryError` somewhere later (in the parser, in a handler, in
`json.dumps` on the way to the store) and taking its neighbours down with it.
"""

from __future__ import annotations

import json
from typing import Any

from daemon.errors import InvalidEvent

# Real events nest a handful of levels (a GitHub payload about 8). 64 leaves room for any honest
# sender, and stays far below the interpreter's recursion limit (1000), which every recursive
# walk of a parsed value (json.dumps, deepcopy, a handler's own) would otherwise run into.
MAX_DEPTH = 64


def too_deep(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects nest deeper than `max_depth` in `value` (`{}` is depth 1).

    Walked with an explicit stack: measuring a value must not recurse as deep as the value.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate (`\\ud800`-`\\udfff`) in any string or key of `value`, or None.

    JSON may escape one ("\\ud895") though it is no character: such a string parses, and then
    fails wherever it is written as UTF-8 (the store, a reply, a log file). Walked without recursion.
    """
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"\\u{ord(node[exc.start]):04x}"
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def load(raw: bytes | str, *, max_bytes: int, max_depth: int = MAX_DEPTH, what: str = "event") -> Any:
    """Size, UTF-8, JSON, nesting depth and lone surrogates, checked in that order; each refusal is an
    `InvalidEvent` whose message starts with `what` ("event", "body", "request", ...)."""
    if isinstance(raw, bytes):
        if len(raw) > max_bytes:
            raise InvalidEvent(f"{what} is too large: {len(raw)} > {max_bytes} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidEvent(f"{what} is not valid UTF-8 (byte {exc.start})") from exc
    else:
        if len(raw.encode("utf-8", "surrogatepass")) > max_bytes:
            raise InvalidEvent(f"{what} is too large: more than {max_bytes} bytes")
        text = raw
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidEvent(f"invalid JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError as exc:
        # the C parser gives up near the interpreter's recursion limit, far beyond max_depth
        raise InvalidEvent(f"{what} is nested deeper than {max_depth} levels") from exc
    if too_deep(value, max_depth):
        raise InvalidEvent(f"{what} is nested deeper than {max_depth} levels")
    if (surrogate := lone_surrogate(value)) is not None:
        raise InvalidEvent(f"{what} is not valid Unicode: it escapes a lone surrogate ({surrogate})")
    return value
