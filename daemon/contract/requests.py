"""What memubot answers on `memubot.rpc.<verb>`: each verb's request and reply.

The request models name every key a verb reads; daemon/runtime/rpc.py takes its list of known keys
from them (`keys`), so a key is added in one place. The values are checked by the verbs
themselves (their refusals are part of the RPC contract tests/runtime/test_rpc.py pins); the models
describe them. Every request gets exactly one reply, `{"ok": true, "result": ...}` or
`{"ok": false, "error": {"type", "message"}}`; the result models are checked against real
replies in tests/test_contract.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, create_model

from daemon.contract.inbound import ConversationTurn
from daemon.contract.outbound import Recalled, Suggestion
from daemon.memory import MAX_QUERY_CHARS

# The value limits a request is checked against (here, and by daemon.runtime.rpc's readers)
MAX_MEMORIZE_TURNS = 512
MAX_RECALL_K = 200
MAX_SUGGESTIONS_LIMIT = 500
MAX_FLUSH_TIMEOUT_S = 3600  # seconds
ErrorType = Literal["invalid_request", "not_found", "timeout", "too_large", "internal"]


class Request(BaseModel):
    """A request: a JSON object (an empty body is `{}`); a key the verb does not read is refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OpenResult(BaseModel):
    """A result whose keys follow the memory's own report (they grow with it)."""

    model_config = ConfigDict(extra="allow", frozen=True)


# ---- requests --------------------------------------------------------------------------


class RecallRequest(Request):
    """The memories of a scope that answer a query, best first."""

    scope: str
    query: str = Field(max_length=MAX_QUERY_CHARS)
    k: int = Field(10, ge=1, le=MAX_RECALL_K)
    ts: datetime | None = Field(None, description="recall as of this time (ISO-8601 with offset)")
    session: str | None = Field(None, description="the live session: its recent turns count too")
    explain: bool = Field(False, description="each hit's score stages, and what recall no longer returns")
    reinforce: bool = Field(True, description="a recalled memory decays more slowly")


class MemorizeTurns(Request):
    """Turns stored now, through the same dispatcher as the bus (ledger, dead letters)."""

    turns: list[ConversationTurn] = Field(min_length=1, max_length=MAX_MEMORIZE_TURNS)


class MemorizeRequest(RootModel[MemorizeTurns | ConversationTurn]):
    """`{"turns": [...]}`, or one conversation turn as the request itself."""


class ForgetRequest(Request):
    """Forget exactly one of: the items named, what a query finds, or the whole scope."""

    scope: str
    items: list[str] | None = None
    query: str | None = None
    all: bool = False
    dry_run: bool = Field(False, description="count what would go; change nothing")


class RestoreRequest(Request):
    """Undo a retirement or an archive: the item is back in recall."""

    scope: str
    item: str


class ConsolidateRequest(Request):
    """The daily lifecycle job now (tiers, archiving, the profile file)."""

    scope: str | None = Field(None, description="absent: every scope")
    at: datetime | None = None


class StatsRequest(Request):
    scope: str | None = Field(None, description="absent: every scope")


class ProfileRequest(Request):
    """A scope's category summaries and its profile block (what USER.md shows)."""

    scope: str


class SuggestionsRequest(Request):
    """A scope's suggestions, newest first; with `id`, that one."""

    scope: str
    status: Literal["pending", "delivered", "withdrawn", "expired"] | None = None
    limit: int = Field(50, ge=1, le=MAX_SUGGESTIONS_LIMIT)
    id: str | None = None


class FlushRequest(Request):
    """Wait until the daemon has handled everything published before this request."""

    timeout: float = Field(30.0, gt=0, le=MAX_FLUSH_TIMEOUT_S, description="seconds")


class DeadlettersRequest(Request):
    """List the dead letters, or replay one (by its dead-letter id)."""

    action: Literal["list", "replay"] = "list"
    all: bool = Field(False, description="list: the replayed ones too")
    limit: int = 100
    id: int | None = Field(None, description="replay: the dead letter")


# ---- results ---------------------------------------------------------------------------


class RecallResult(Result):
    scope: str
    latency_ms: float
    hits: list[Recalled]
    retired: list[dict[str, Any]] | None = Field(None, description="with `explain`")


class MemorizeVerdict(Result):
    id: str | None = Field(description="the turn's id (null when it had no valid one)")
    outcome: str = Field(description="stored, duplicate, noop, dead_letter, ...")
    reason: str | None
    dead_letter: int | None


class MemorizeResult(Result):
    results: list[MemorizeVerdict]


class ForgetResult(Result):
    scope: str
    deleted: dict[str, int]
    dry_run: bool


class RestoreResult(Result):
    scope: str
    restored: str


class ConsolidateResult(OpenResult):
    """The lifecycle job's report."""


class DaemonStats(OpenResult):
    handled: int
    dead_letters: int
    pending: int
    in_flight: int


class StatsResult(OpenResult):
    """The memory's counts, and the daemon's."""

    scopes: int
    daemon: DaemonStats


class CategorySummary(Result):
    name: str
    summary: str | None
    item_count: int
    version: int
    updated_at: datetime | None


class ProfileItem(Result):
    id: str
    category: str
    l0: str


class ProfileResult(Result):
    scope: str
    categories: list[CategorySummary]
    profile: str
    profile_items: list[ProfileItem]


class SuggestionRecord(Suggestion):
    """A suggestion as published, and what became of it."""

    predictor: str
    status: str
    reason: str | None
    delivered_at: datetime | None


class SuggestionsResult(Result):
    scope: str
    suggestions: list[SuggestionRecord]


class FlushResult(Result):
    position: int = Field(description="the stream position handled through")


class DeadLetterList(Result):
    dead_letters: list[dict[str, Any]]


class DeadLetterReplayed(Result):
    id: int
    event_id: str | None
    outcome: str
    reason: str | None


class Failure(BaseModel):
    type: ErrorType
    message: str


class ErrorReply(BaseModel):
    """The request was refused or failed: the message names the field or the reason."""

    ok: Literal[False]
    error: Failure


def _ok(verb: str, result: Any) -> type[BaseModel]:
    model: type[BaseModel] = create_model(
        f"{verb.capitalize()}Reply",
        __doc__=f"The {verb} request's answer.",
        ok=(Literal[True], ...),
        result=(result, ...),
    )
    return model


# verb → (request, the reply when it succeeds), in the order `memubot.rpc` lists them
VERBS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "recall": (RecallRequest, _ok("recall", RecallResult)),
    "memorize": (MemorizeRequest, _ok("memorize", MemorizeResult)),
    "forget": (ForgetRequest, _ok("forget", ForgetResult)),
    "restore": (RestoreRequest, _ok("restore", RestoreResult)),
    "consolidate": (ConsolidateRequest, _ok("consolidate", ConsolidateResult)),
    "stats": (StatsRequest, _ok("stats", StatsResult)),
    "profile": (ProfileRequest, _ok("profile", ProfileResult)),
    "suggestions": (SuggestionsRequest, _ok("suggestions", SuggestionsResult)),
    "flush": (FlushRequest, _ok("flush", FlushResult)),
    "deadletters": (DeadlettersRequest, _ok("deadletters", DeadLetterList | DeadLetterReplayed)),
}


def keys(verb: str) -> frozenset[str]:
    """The request keys a verb reads (memorize: `turns`; a bare turn is checked as a turn)."""
    request = VERBS[verb][0]
    model = MemorizeTurns if request is MemorizeRequest else request
    return frozenset(f.alias or name for name, f in model.model_fields.items())
