"""The optional LLM gate: before a suggestion goes out, the model may reword it or say nothing.

Only with `MEMUBOT_LLM_URL` set (the memory's LLM client). The model sees the suggestion and the
texts of its evidence and answers {"say": bool, "title", "body"}: false is an explicit "say
nothing" (the suggestion is withdrawn with that reason); true may come with a shorter, clearer
wording. It may not add facts: a reworded text must stay within the caps, and every failure,
timeout or invalid answer (after one repair) leaves the rule-based suggestion as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from daemon.memory.llm import LLMExtractor, LLMOutputError
from daemon.state.suggestions import Suggestion

MAX_TITLE = 120
MAX_BODY = 600

GATE_SYSTEM = """You check a proactive assistant's suggestion before it interrupts a person.
Decide whether it is worth saying now. Say nothing (say=false) when it is trivial, redundant, or
not useful to the person. When it is worth saying, you may reword title and body to be short and
clear, in the suggestion's language; never add a fact that is not in the suggestion or its
evidence. Reply with JSON only: {"say": true|false, "title": "...", "body": "..."}."""

GATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"say": {"type": "boolean"}, "title": {"type": "string"}, "body": {"type": "string"}},
    "required": ["say", "title", "body"],
    "additionalProperties": False,
}


def gate_messages(s: Suggestion, evidence: Sequence[str]) -> list[dict[str, str]]:
    lines = "\n".join(f"- {t}" for t in evidence) or "- (none)"
    return [
        {"role": "system", "content": GATE_SYSTEM},
        {
            "role": "user",
            "content": f"Kind: {s.kind}\nTitle: {s.title}\nBody: {s.body}\nEvidence (what the person said "
            f"or what happened):\n{lines}",
        },
    ]


def validate_gate(data: Any) -> tuple[bool, str, str]:
    """Check a gate answer: `say` a boolean; when true, a non-empty title and body within the caps."""
    if not isinstance(data, dict) or not isinstance(data.get("say"), bool):
        raise LLMOutputError('expected an object {"say": true|false, "title": "...", "body": "..."}')
    if not data["say"]:
        return False, "", ""
    title, body = data.get("title"), data.get("body")
    if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE:
        raise LLMOutputError(f"title must be a non-empty string of at most {MAX_TITLE} characters")
    if not isinstance(body, str) or not body.strip() or len(body) > MAX_BODY:
        raise LLMOutputError(f"body must be a non-empty string of at most {MAX_BODY} characters")
    return True, title.strip(), body.strip()


def gate(llm: LLMExtractor, s: Suggestion, evidence: Sequence[str]) -> tuple[bool, str, str] | None:
    """(say, title, body) from the model, or None: the rule-based suggestion stands."""
    return llm.ask(gate_messages(s, evidence), GATE_SCHEMA, "memubot_gate", validate_gate, "suggestion gate")
