"""LLM extraction: an optional OpenAI-compatible chat endpoint that turns turns into facts.

The LLM is an enhancement, never a dependency: every call has a timeout, every answer is checked
against a JSON schema *and* validated here (a local model may ignore the schema), a broken answer
gets one repair attempt, and any remaining failure returns None so the caller falls back to the
rule-based extractor. Calls block (urllib, like the OpenAI embedder): run them on a worker thread,
never on the event loop.
"""

from __future__ import annotations

import http.client
import json
import logging
import math
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from daemon.errors import ConfigError, InvalidInput, MemubotError
from daemon.memory.types import CATEGORIES

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_L0_CHARS = 500
MAX_TURN_CHARS = 4000  # an email pasted as one turn must not blow the model's context window
OPS = ("CREATE", "MERGE", "SKIP", "SUPERSEDE")


class LLMError(MemubotError):
    """The chat endpoint failed: unreachable, timed out, an HTTP error or an unreadable reply."""


class LLMOutputError(LLMError):
    """The endpoint answered but the model's output is not valid JSON or fails validation.

    `raw` is the model's text when it could not be parsed, so a repair prompt can quote it.
    """

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """Where the chat endpoint is and how to call it."""

    url: str  # base URL of an OpenAI-compatible API; requests go to {url}/chat/completions
    model: str = "llama3.1"
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 20.0
    batch_size: int = 16  # turns per extraction call


@dataclass(frozen=True, slots=True)
class LLMFact:
    """One fact the model extracted, already validated."""

    turn: int  # index of the turn in the batch it came from
    category: str  # one of CATEGORIES
    l0: str  # one line, third person, names the speaker
    l1: dict[str, Any]  # the category's fields (L1_FIELDS), missing ones as None
    importance: float  # 0..1
    confidence: float  # 0..1


@dataclass(frozen=True, slots=True)
class LLMTurn:
    """One conversation turn as the model sees it."""

    speaker: str
    role: str | None
    text: str
    at: datetime  # event time (aware): relative dates in the text are resolved against it


# --- schemas -----------------------------------------------------------------------------------

_S: dict[str, Any] = {"type": "string"}
_S_NULL: dict[str, Any] = {"type": ["string", "null"]}

# The structured (L1) fields of each category, with their JSON schema; the rule-based extractor
# uses the same shapes so items from either source look alike.
L1_FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "profile": {"attribute": _S, "value": _S},
    "preferences": {"key": _S, "value": _S, "negative": {"type": "boolean"}},
    "entities": {"name": _S, "type": _S, "attribute": _S_NULL},
    "events": {"what": _S, "when": _S_NULL, "where": _S_NULL, "who": {"type": "array", "items": _S}},
    "cases": {"problem": _S, "solution": _S_NULL},
    "patterns": {"behavior": _S, "frequency": _S_NULL},
}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    # OpenAI's strict mode wants every property required and no extras; "optional" is a null type.
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _fact_schema(category: str) -> dict[str, Any]:
    # One branch per category ties the l1 shape to the category, so a schema-following model
    # cannot label a fact "events" and fill in profile fields.
    return _object(
        {
            "turn": {"type": "integer"},
            "category": {"type": "string", "enum": [category]},
            "l0": _S,
            "l1": _object(L1_FIELDS[category]),
            "importance": {"type": "number"},
            "confidence": {"type": "number"},
        }
    )


# No minimum/maximum/maxLength keywords: OpenAI's strict mode rejects some of them outright;
# ranges and lengths are checked in validate_facts instead.
FACTS_SCHEMA: dict[str, Any] = _object(
    {"facts": {"type": "array", "items": {"anyOf": [_fact_schema(c) for c in CATEGORIES]}}}
)


def decision_schema(ids: Sequence[str]) -> dict[str, Any]:
    """The dedup answer: an op and, unless CREATE, the id of one of the given items."""
    return _object(
        {
            "op": {"type": "string", "enum": list(OPS)},
            "target": {"anyOf": [{"type": "string", "enum": list(ids)}, {"type": "null"}]},
        }
    )


def outdated_schema(ids: Sequence[str]) -> dict[str, Any]:
    """The update answer: the ids (among the given ones) the new statement makes out of date."""
    return _object({"outdated": {"type": "array", "items": {"type": "string", "enum": list(ids)}}})


# --- validation --------------------------------------------------------------------------------


def _unit(value: Any, name: str) -> float:
    if value is None:
        return 0.5  # an omitted score is not worth a repair round-trip: neutral
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    return min(1.0, max(0.0, float(value)))


def _l1_value(value: Any, key: str) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float):
        return str(value)  # "age": 32 is a fine answer; L1 values are text
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise ValueError(f"l1.{key} must be a string, boolean, null or list of strings, got {value!r}")


def _l1(value: Any, category: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"l1 must be an object, got {value!r}")
    fields = L1_FIELDS[category]
    # Unknown keys are dropped rather than rejected: extra detail is harmless, a repair is not free.
    out = {key: _l1_value(value.get(key), key) for key in fields}
    if all(v in (None, [], False) for v in out.values()):
        raise ValueError(f"l1 has none of the {category} fields ({', '.join(fields)})")
    return out


def _fact(raw: Any, n_turns: int) -> LLMFact:
    if not isinstance(raw, dict):
        raise ValueError(f"expected an object, got {raw!r}")
    turn = raw.get("turn")
    if isinstance(turn, float) and turn.is_integer():
        turn = int(turn)
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ValueError(f"turn must be an integer, got {turn!r}")
    if not 0 <= turn < n_turns:
        raise ValueError(f"turn {turn} out of range 0..{n_turns - 1}")
    category = raw.get("category")
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}, expected one of {', '.join(CATEGORIES)}")
    l0 = raw.get("l0")
    if not isinstance(l0, str):
        raise ValueError(f"l0 must be a string, got {l0!r}")
    l0 = " ".join(l0.split())  # one line, whatever the model did with newlines
    if not l0:
        raise ValueError("l0 is empty")
    if len(l0) > MAX_L0_CHARS:
        raise ValueError(f"l0 is {len(l0)} characters, at most {MAX_L0_CHARS} allowed")
    return LLMFact(
        turn=turn,
        category=category,
        l0=l0,
        l1=_l1(raw.get("l1"), category),
        importance=_unit(raw.get("importance"), "importance"),
        confidence=_unit(raw.get("confidence"), "confidence"),
    )


def validate_facts(data: Any, n_turns: int) -> list[LLMFact]:
    """Check an extraction answer against a batch of `n_turns`; LLMOutputError lists what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        raise LLMOutputError('expected an object {"facts": [...]}')
    facts: list[LLMFact] = []
    errors: list[str] = []
    for i, raw in enumerate(data["facts"]):
        try:
            facts.append(_fact(raw, n_turns))
        except ValueError as exc:
            errors.append(f"facts[{i}]: {exc}")
    if errors:
        # All of them at once, so one repair can fix every fact; capped to keep the prompt short.
        more = f"; and {len(errors) - 5} more" if len(errors) > 5 else ""
        raise LLMOutputError("; ".join(errors[:5]) + more)
    return facts


def validate_decision(data: Any, ids: Sequence[str]) -> tuple[str, str | None]:
    """Check a dedup answer: a known op and, unless CREATE, a target among `ids`."""
    if not isinstance(data, dict):
        raise LLMOutputError('expected an object {"op": ..., "target": ...}')
    op = data.get("op")
    op = op.strip().upper() if isinstance(op, str) else op
    if op not in OPS:
        raise LLMOutputError(f"op must be one of {', '.join(OPS)}, got {op!r}")
    if op == "CREATE":
        return "CREATE", None  # a stray target on CREATE means nothing
    target = data.get("target")
    if target not in ids:
        raise LLMOutputError(f"target {target!r} is not one of the given ids ({', '.join(ids)})")
    return op, target


def validate_outdated(data: Any, ids: Sequence[str]) -> tuple[str, ...]:
    """Check an update answer: a list of ids, each one of `ids` (duplicates dropped)."""
    if not isinstance(data, dict) or not isinstance(data.get("outdated"), list):
        raise LLMOutputError('expected an object {"outdated": [id, ...]}')
    unknown = [i for i in data["outdated"] if i not in ids]
    if unknown:
        raise LLMOutputError(f"{unknown[0]!r} is not one of the given ids ({', '.join(ids)})")
    return tuple(dict.fromkeys(data["outdated"]))


# --- the endpoint ------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def _unfence(content: str) -> str:
    # Endpoints that ignore response_format (older llama.cpp/Ollama builds) wrap JSON in a
    # Markdown fence; peeling it off saves a repair round-trip.
    m = _FENCE.match(content)
    return m.group(1) if m else content


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None), TimeoutError)


class LLMClient:
    """POST /chat/completions with a JSON schema as response_format; returns the parsed JSON."""

    def __init__(self, cfg: LLMConfig) -> None:
        if not cfg.url.startswith(("http://", "https://")):
            raise ConfigError(f"llm_url must be an http(s) URL, got {cfg.url!r}")
        self.url = cfg.url.rstrip("/")
        if not self.url.endswith("/chat/completions"):
            self.url += "/chat/completions"
        self.cfg = cfg

    def chat_json(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str) -> Any:
        """The model's answer as JSON; LLMOutputError if it is not JSON, LLMError on transport."""
        content = self._complete(messages, schema, name)
        try:
            return json.loads(_unfence(content))
        except ValueError as exc:
            raise LLMOutputError(f"the reply is not valid JSON: {exc}", raw=content) from exc

    def _complete(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str) -> str:
        body = {
            "model": self.cfg.model,
            "messages": messages,
            "temperature": 0,  # extraction should be repeatable, not creative
            "stream": False,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            },
        }
        req = urllib.request.Request(
            self.url,
            data=json.dumps(body, ensure_ascii=False).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        if self.cfg.api_key:
            req.add_header("Authorization", f"Bearer {self.cfg.api_key}")
        try:
            with urllib.request.urlopen(req, timeout=self.cfg.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            try:
                detail = exc.read(300).decode("utf-8", "replace").strip()
            except OSError:
                detail = ""
            finally:
                exc.close()  # the error carries the open response; unclosed it leaks the socket
            raise LLMError(f"chat endpoint {self.url} answered HTTP {exc.code}: {detail}") from exc
        except (OSError, http.client.HTTPException) as exc:  # URLError and TimeoutError are OSErrors
            if _timed_out(exc):
                raise LLMError(f"chat endpoint {self.url} timed out after {self.cfg.timeout_s}s") from exc
            raise LLMError(f"chat endpoint {self.url} failed: {exc}") from exc
        try:
            payload = json.loads(raw)
            choice = payload["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"chat endpoint {self.url} returned an unexpected body: {raw[:200]!r}") from exc
        if not isinstance(content, str):
            reason = choice.get("finish_reason") if isinstance(choice, dict) else None
            raise LLMError(f"chat endpoint {self.url} returned no content (finish_reason {reason!r})")
        return content


# --- prompts -----------------------------------------------------------------------------------

EXTRACT_SYSTEM = """\
You extract long-term memories from a conversation for a personal memory system.
Read the numbered turns and return the durable facts they state about the people in them: who
they are, what they like and dislike, the people, pets, places and things in their lives, what
happened to them or is planned, problems they solved, and their habits.

Rules:
- One fact per item. Write l0 as one self-contained sentence in the third person that names the
  speaker, e.g. "Caroline went to an LGBTQ support group on 7 May 2023". Never write "I", "you"
  or "the user".
- Resolve relative dates ("yesterday", "next Friday", "上周五") against the time of the turn they
  appear in (given in brackets) and write the absolute date in l0 and in l1.when.
- Write l0 and the l1 values in the language of the turn.
- Skip small talk, greetings, thanks, questions, and the assistant's own suggestions. If nothing
  is worth remembering, return {"facts": []}.
- turn is the number of the turn the fact comes from.
- category and its l1 fields:
  profile: who the person is (job, home, age, family): {attribute, value}
  preferences: a like or dislike: {key, value, negative} (negative is true for a dislike)
  entities: a person, pet, place, organisation or thing in their life: {name, type, attribute}
  events: something that happened or is planned: {what, when, where, who} (who is a list of names)
  cases: a problem and how it was solved: {problem, solution}
  patterns: a habit or recurring behaviour: {behavior, frequency}
  Use null for a field the turn does not give.
- importance (0 to 1): how useful this is to remember a month from now; a passing remark 0.2,
  a life event or strong preference 0.8 or more.
- confidence (0 to 1): how plainly the turn states it; said outright 0.9, inferred 0.5.

Return only JSON matching the schema: {"facts": [{"turn", "category", "l0", "l1", "importance",
"confidence"}, ...]}."""

DECIDE_SYSTEM = """\
You maintain a long-term memory about people. A new memory was just extracted; existing
memories of the same category look similar. Decide what to do with the new one:
- CREATE: it is a different fact from all of them (target null).
- MERGE: it is the same fact as one of them and adds detail; merge into that one (target = its id).
- SKIP: one of them already says the same thing (target = its id).
- SUPERSEDE: it updates or contradicts one of them, which is now out of date (target = its id).
Return only JSON: {"op": "CREATE" | "MERGE" | "SKIP" | "SUPERSEDE", "target": id or null}."""

OUTDATED_SYSTEM = """\
You maintain a long-term memory about one person. They just said something new; below are older
things the same person said. Which older statements does the new one make out of date, so that
they are no longer true now? Out of date: a state that changed (where they live or work, who
their boss, doctor or partner is, the tool, diet, habit or schedule they have, a preference they
dropped) or a plan that was moved or called off, also when the change is only implied.
Not out of date: a second hobby, pet, child or tool beside the first; a trip or visit; a past job
or home told as history; something about another person; something that happened.
Return only JSON: {"outdated": [ids of the out-of-date statements, or none]}."""

REPAIR = """\
That output is invalid: {error}
Reply with the corrected JSON only, matching the schema; keep every valid part unchanged."""


def _turn_line(i: int, turn: LLMTurn) -> str:
    who = f"{turn.speaker} ({turn.role})" if turn.role else turn.speaker
    when = f"{turn.at.isoformat(timespec='minutes')} {turn.at:%A}"  # the weekday helps "next Friday"
    text = " ".join(turn.text.split())[:MAX_TURN_CHARS]
    return f"[{i}] [{when}] {who}: {text}"


def extract_messages(turns: Sequence[LLMTurn]) -> list[dict[str, str]]:
    """The extraction prompt for one batch: rules as the system message, numbered timed turns."""
    lines = "\n".join(_turn_line(i, t) for i, t in enumerate(turns))
    return [
        {"role": "system", "content": EXTRACT_SYSTEM},
        {"role": "user", "content": f"Turns, each as [number] [time] speaker: text\n\n{lines}"},
    ]


def decide_messages(category: str, new: str, existing: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The dedup prompt: the new memory and the similar existing ones with their ids."""
    items = "\n".join(f"- {item_id}: {l0}" for item_id, l0 in existing)
    return [
        {"role": "system", "content": DECIDE_SYSTEM},
        {"role": "user", "content": f"Category: {category}\nNew memory: {new}\nExisting memories:\n{items}"},
    ]


def outdated_messages(new: str, older: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The update prompt: what the person just said and their older statements with ids."""
    items = "\n".join(f"- {item_id}: {l0}" for item_id, l0 in older)
    return [
        {"role": "system", "content": OUTDATED_SYSTEM},
        {"role": "user", "content": f"New statement: {new}\nOlder statements:\n{items}"},
    ]


# --- the extractor -----------------------------------------------------------------------------


class LLMExtractor:
    """Facts and dedup decisions from the model, or None so the caller uses the rules."""

    def __init__(self, cfg: LLMConfig, client: LLMClient | None = None) -> None:
        self.cfg = cfg
        self._client = client or LLMClient(cfg)

    def extract(self, turns: Sequence[LLMTurn]) -> list[LLMFact] | None:
        """All six categories from one batch in one call; None if the model cannot deliver."""
        if not turns:
            return []
        if len(turns) > self.cfg.batch_size:
            # A caller bug, not an endpoint problem: the batch size bounds prompt and reply size.
            raise InvalidInput(f"{len(turns)} turns exceed llm batch_size {self.cfg.batch_size}")
        n = len(turns)
        start = time.monotonic()
        facts = self.ask(
            extract_messages(turns),
            FACTS_SCHEMA,
            "memubot_facts",
            lambda d: validate_facts(d, n),
            "extraction",
        )
        if facts is not None:
            log.debug(
                "llm extraction: %d facts from %d turns in %.2fs", len(facts), n, time.monotonic() - start
            )
        return facts

    def decide(
        self, category: str, new: str, existing: Sequence[tuple[str, str]]
    ) -> tuple[str, str | None] | None:
        """Stage-2 dedup: (op, target id) against similar `existing` items, or None on failure."""
        if not existing:
            return "CREATE", None  # nothing to merge into or skip for: no need to ask
        ids = [item_id for item_id, _ in existing]
        return self.ask(
            decide_messages(category, new, existing),
            decision_schema(ids),
            "memubot_decision",
            lambda d: validate_decision(d, ids),
            "dedup decision",
        )

    def outdated(self, new: str, older: Sequence[tuple[str, str]]) -> tuple[str, ...] | None:
        """The ids among `older` (id, text) that `new` makes out of date, or None on failure."""
        if not older:
            return ()
        ids = [item_id for item_id, _ in older]
        return self.ask(
            outdated_messages(new, older),
            outdated_schema(ids),
            "memubot_outdated",
            lambda d: validate_outdated(d, ids),
            "update judgement",
        )

    def ask(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        validate: Callable[[Any], T],
        what: str,
    ) -> T | None:
        """One structured question (a prompt, a schema, a validator): one call, one repair on
        invalid output; transport failures are not retried. None: the caller's rules answer."""
        data: Any = None
        try:
            data = self._client.chat_json(messages, schema, name)
            return validate(data)
        except LLMOutputError as exc:
            first = exc
            raw = exc.raw if exc.raw is not None else json.dumps(data, ensure_ascii=False)
        except LLMError as exc:
            # A down or slow endpoint will not be better a second later; the rules answer now.
            log.warning("llm %s failed, falling back to rules: %s", what, exc)
            return None
        repair = [
            *messages,
            {"role": "assistant", "content": raw},
            {"role": "user", "content": REPAIR.format(error=first)},
        ]
        try:
            return validate(self._client.chat_json(repair, schema, name))
        except LLMOutputError as exc:
            log.warning(
                "llm %s gave invalid output twice, falling back to rules: %s; after repair: %s",
                what,
                first,
                exc,
            )
        except LLMError as exc:
            log.warning("llm %s repair failed, falling back to rules: %s", what, exc)
        return None
