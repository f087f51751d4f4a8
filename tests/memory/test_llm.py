"""LLM extraction against a local fake chat endpoint answering with recorded completions."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from daemon.errors import ConfigError, InvalidInput
from daemon.memory.llm import (
    FACTS_SCHEMA,
    L1_FIELDS,
    LLMClient,
    LLMConfig,
    LLMError,
    LLMExtractor,
    LLMFact,
    LLMOutputError,
    LLMTurn,
    validate_decision,
    validate_facts,
)
from daemon.memory.types import CATEGORIES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm"


@dataclass
class Reply:
    """One scripted answer: a recorded fixture (or raw bytes), a status and a delay."""

    fixture: str | None = None
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None

    def body(self) -> bytes:
        if self.raw is not None:
            return self.raw
        assert self.fixture is not None
        return (FIXTURES / f"{self.fixture}.json").read_bytes()


@dataclass
class FakeLLM:
    """What the fake endpoint will answer, in order, and every request it saw."""

    url: str = ""
    replies: list[Reply] = field(default_factory=list)
    seen: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def answer(self, *replies: Reply | str) -> None:
        self.replies.extend(Reply(r) if isinstance(r, str) else r for r in replies)

    def messages(self, i: int) -> list[dict[str, str]]:
        msgs: list[dict[str, str]] = self.seen[i]["body"]["messages"]
        return msgs


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    state = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
            reply = state.replies.pop(0) if state.replies else Reply(raw=b"no reply scripted", status=599)
            if reply.delay:
                state.release.wait(reply.delay)  # teardown sets it, so a sleeping handler ends at once
            raw = reply.body()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except OSError:
                pass  # the client gave up (the timeout test): nobody is listening any more

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
EN_TURNS = [
    LLMTurn("Caroline", "user", "Hey Mel! Good to see you! How have you been?", MAY_8),
    LLMTurn("Melanie", "user", "Hey Caroline! I'm swamped with the kids & work. What's up with you?", MAY_8),
    LLMTurn("Caroline", "user", "I went to a LGBTQ support group yesterday and it was so powerful.", MAY_8),
    LLMTurn(
        "Melanie",
        "user",
        "I love painting landscapes, it's how I relax. I paint every Sunday morning.",
        MAY_8,
    ),
]
CST = timezone(timedelta(hours=8))
ZH_TURNS = [
    LLMTurn("小明", "user", "我下周一要去上海出差，住在外滩附近。", datetime(2024, 3, 1, 9, 30, tzinfo=CST)),
    LLMTurn("小明", "user", "对了，我不吃香菜。", datetime(2024, 3, 1, 9, 31, tzinfo=CST)),
    LLMTurn("助手", "assistant", "好的，记住了！", datetime(2024, 3, 1, 9, 31, tzinfo=CST)),
]
EXISTING = [("it_a", "Caroline lives in Boston."), ("it_b", "Caroline went to a support group in May 2023.")]


def _extractor(fake: FakeLLM, **kwargs: Any) -> LLMExtractor:
    return LLMExtractor(LLMConfig(url=fake.url, **kwargs))


def test_good_english_extraction(fake: FakeLLM) -> None:
    fake.answer("extract_en")
    facts = _extractor(fake, model="qwen2.5:7b").extract(EN_TURNS)
    assert facts == [
        LLMFact(
            turn=2,
            category="events",
            l0="Caroline went to an LGBTQ support group on 7 May 2023.",
            l1={
                "what": "went to an LGBTQ support group",
                "when": "2023-05-07",
                "where": None,
                "who": ["Caroline"],
            },
            importance=0.8,
            confidence=0.95,
        ),
        # the unknown l1 key "mood" is dropped, importance 1.4 is clamped
        LLMFact(
            1,
            "profile",
            "Melanie has kids and a job that keep her busy.",
            {"attribute": "family", "value": "has kids"},
            1.0,
            0.9,
        ),
        # the newline inside l0 is folded into one line
        LLMFact(
            3,
            "preferences",
            "Melanie loves painting landscapes; it is how she relaxes.",
            {"key": "painting landscapes", "value": "loves", "negative": False},
            0.7,
            0.95,
        ),
        LLMFact(
            3,
            "patterns",
            "Melanie paints every Sunday morning.",
            {"behavior": "paints", "frequency": "every Sunday morning"},
            0.6,
            0.0,
        ),
    ]
    assert len(fake.seen) == 1
    req = fake.seen[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["auth"] is None  # no key configured, no header
    body = req["body"]
    assert body["model"] == "qwen2.5:7b" and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"] == {
        "name": "memubot_facts",
        "schema": FACTS_SCHEMA,
        "strict": True,
    }
    system, user = fake.messages(0)
    assert (
        system["role"] == "system"
        and "third person" in system["content"]
        and "small talk" in system["content"]
    )
    assert '{"facts"' in system["content"]
    # every turn is numbered with its time and weekday, so "yesterday" can be resolved
    assert (
        "[2] [2023-05-08T13:56+00:00 Monday] Caroline (user): I went to a LGBTQ support group yesterday"
        in user["content"]
    )


def test_good_chinese_extraction(fake: FakeLLM) -> None:
    fake.answer("extract_zh")
    facts = _extractor(fake).extract(ZH_TURNS)
    assert facts == [
        LLMFact(
            0,
            "events",
            "小明将于2024年3月4日去上海出差，住在外滩附近。",
            {"what": "去上海出差", "when": "2024-03-04", "where": "上海外滩附近", "who": ["小明"]},
            0.7,
            0.9,
        ),
        LLMFact(
            1, "preferences", "小明不吃香菜。", {"key": "香菜", "value": "不吃", "negative": True}, 0.8, 0.95
        ),
    ]
    user = fake.messages(0)[1]["content"]
    assert "[0] [2024-03-01T09:30+08:00 Friday] 小明 (user): 我下周一要去上海出差" in user
    assert "[2] [2024-03-01T09:31+08:00 Friday] 助手 (assistant): 好的，记住了！" in user
    assert fake.seen[0]["body"]["model"] == "llama3.1"  # the default model


def test_broken_json_is_repaired_once(fake: FakeLLM) -> None:
    fake.answer("extract_broken", "extract_en")
    facts = _extractor(fake).extract(EN_TURNS)
    assert facts is not None and [f.category for f in facts] == [
        "events",
        "profile",
        "preferences",
        "patterns",
    ]
    assert len(fake.seen) == 2
    first, second = fake.messages(0), fake.messages(1)
    assert second[: len(first)] == first  # the repair keeps the original prompt
    broken = json.loads((FIXTURES / "extract_broken.json").read_text())["choices"][0]["message"]["content"]
    assert second[-2] == {"role": "assistant", "content": broken}
    assert second[-1]["role"] == "user" and "not valid JSON" in second[-1]["content"]
    assert "Unterminated string" in second[-1]["content"]  # the parser's own error, verbatim


def test_broken_twice_gives_none_and_says_why(fake: FakeLLM, caplog: pytest.LogCaptureFixture) -> None:
    fake.answer("extract_broken", "extract_broken")
    with caplog.at_level(logging.WARNING, logger="daemon.memory.llm"):
        assert _extractor(fake).extract(EN_TURNS) is None
    assert len(fake.seen) == 2
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "invalid output twice" in caplog.text and "not valid JSON" in caplog.text


def test_unknown_category_is_repaired(fake: FakeLLM) -> None:
    fake.answer("extract_unknown_category", "extract_en")
    facts = _extractor(fake).extract(EN_TURNS)
    assert facts is not None and len(facts) == 4
    repair = fake.messages(1)
    assert "facts[1]: unknown category 'hobbies'" in repair[-1]["content"]
    # the invalid answer is quoted back as JSON for the model to correct
    assert json.loads(repair[-2]["content"])["facts"][1]["category"] == "hobbies"


def test_turn_out_of_range_twice_gives_none(fake: FakeLLM, caplog: pytest.LogCaptureFixture) -> None:
    fake.answer("extract_turn_out_of_range", "extract_turn_out_of_range")
    with caplog.at_level(logging.WARNING, logger="daemon.memory.llm"):
        assert _extractor(fake).extract(EN_TURNS) is None
    assert len(fake.seen) == 2
    assert "facts[0]: turn 7 out of range 0..3" in fake.messages(1)[-1]["content"]
    assert "turn 7 out of range" in caplog.text


def test_http_500_gives_none_without_retry(fake: FakeLLM, caplog: pytest.LogCaptureFixture) -> None:
    fake.answer(Reply("error_500", status=500))
    with caplog.at_level(logging.WARNING, logger="daemon.memory.llm"):
        assert _extractor(fake).extract(EN_TURNS) is None
    assert len(fake.seen) == 1  # a failing endpoint is not asked again
    assert "HTTP 500" in caplog.text and "failed to load" in caplog.text


def test_timeout_gives_none_quickly(fake: FakeLLM, caplog: pytest.LogCaptureFixture) -> None:
    # the endpoint answers after 120 s; the hang guard (a 30 s wait on the call, not an assertion
    # on elapsed time) fails the test only if the extractor's own 0.3 s timeout is not honoured
    fake.answer(Reply("extract_en", delay=120.0))
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        with caplog.at_level(logging.WARNING, logger="daemon.memory.llm"):
            call = pool.submit(_extractor(fake, timeout_s=0.3).extract, EN_TURNS)
            assert call.result(timeout=30) is None
    finally:
        pool.shutdown(wait=False)  # a hung call ends when the fake's teardown releases it
    assert len(fake.seen) == 1
    assert "timed out after 0.3s" in caplog.text


def test_unreachable_endpoint_gives_none(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="daemon.memory.llm"):
        assert LLMExtractor(LLMConfig(url="http://127.0.0.1:9/v1", timeout_s=2)).extract(EN_TURNS) is None
    assert "failed, falling back to rules" in caplog.text


def test_fenced_json_is_accepted_and_empty_batches_cost_nothing(fake: FakeLLM) -> None:
    fake.answer("extract_fenced")
    ex = _extractor(fake)
    assert ex.extract(EN_TURNS[:1]) == []
    assert ex.extract([]) == []
    assert len(fake.seen) == 1


def test_batch_larger_than_batch_size_is_a_caller_error(fake: FakeLLM) -> None:
    with pytest.raises(InvalidInput, match="batch_size 3"):
        _extractor(fake, batch_size=3).extract(EN_TURNS)
    assert fake.seen == []


def test_decide_good_answer(fake: FakeLLM) -> None:
    fake.answer("decide_merge")
    new = "Caroline went to an LGBTQ support group on 7 May 2023."
    assert _extractor(fake).decide("events", new, EXISTING) == ("MERGE", "it_b")
    body = fake.seen[0]["body"]
    fmt = body["response_format"]["json_schema"]
    assert fmt["name"] == "memubot_decision" and fmt["strict"] is True
    target = fmt["schema"]["properties"]["target"]["anyOf"]
    assert target == [{"type": "string", "enum": ["it_a", "it_b"]}, {"type": "null"}]
    user = body["messages"][-1]["content"]
    assert "Category: events" in user and new in user
    assert "- it_b: Caroline went to a support group in May 2023." in user


def test_decide_unknown_target_gives_none(fake: FakeLLM) -> None:
    fake.answer("decide_unknown_target", "decide_unknown_target")
    assert _extractor(fake).decide("events", "Caroline moved to Denver.", EXISTING) is None
    assert len(fake.seen) == 2
    assert "target 'it_zzz' is not one of the given ids (it_a, it_b)" in fake.messages(1)[-1]["content"]


def test_decide_unknown_target_then_repaired(fake: FakeLLM) -> None:
    fake.answer("decide_unknown_target", "decide_merge")
    assert _extractor(fake).decide("events", "x", EXISTING) == ("MERGE", "it_b")


def test_decide_without_candidates_creates_without_a_call(fake: FakeLLM) -> None:
    assert _extractor(fake).decide("events", "Caroline moved to Denver.", []) == ("CREATE", None)
    assert fake.seen == []


def test_authorization_header_is_sent_and_key_not_shown(fake: FakeLLM) -> None:
    fake.answer("decide_merge")
    cfg = LLMConfig(url=fake.url + "/", model="gpt-4o-mini", api_key="sk-test-123")
    assert "sk-test-123" not in repr(cfg)
    LLMExtractor(cfg).decide("events", "x", EXISTING)
    assert fake.seen[0]["auth"] == "Bearer sk-test-123"
    assert fake.seen[0]["path"] == "/v1/chat/completions"  # trailing slash tolerated
    assert fake.seen[0]["body"]["model"] == "gpt-4o-mini"


def test_chat_json_raises_llm_error_on_endpoint_problems(fake: FakeLLM) -> None:
    client = LLMClient(LLMConfig(url=fake.url))
    msgs = [{"role": "user", "content": "hi"}]
    fake.answer(Reply(raw=b"<html>bad gateway</html>"))
    with pytest.raises(LLMError, match="unexpected body") as info:
        client.chat_json(msgs, {"type": "object"}, "x")
    assert not isinstance(info.value, LLMOutputError)  # a broken body is not the model's fault
    fake.answer("extract_broken")
    with pytest.raises(LLMOutputError, match="not valid JSON") as out:
        client.chat_json(msgs, {"type": "object"}, "x")
    assert out.value.raw is not None and out.value.raw.startswith('{"facts": [{"turn": 2')
    fake.answer(Reply("error_500", status=503))
    with pytest.raises(LLMError, match="HTTP 503"):
        client.chat_json(msgs, {"type": "object"}, "x")
    fake.answer("decide_merge")
    assert client.chat_json(msgs, {"type": "object"}, "x") == {"op": "MERGE", "target": "it_b"}


def test_config_rejects_a_non_http_url() -> None:
    with pytest.raises(ConfigError, match="llm_url"):
        LLMClient(LLMConfig(url="127.0.0.1:11434"))


def test_l1_fields_cover_every_category_in_the_schema() -> None:
    assert tuple(L1_FIELDS) == CATEGORIES
    branches = FACTS_SCHEMA["properties"]["facts"]["items"]["anyOf"]
    assert [b["properties"]["category"]["enum"] for b in branches] == [[c] for c in CATEGORIES]
    for b in branches:  # OpenAI strict mode: every property required, nothing extra
        assert b["additionalProperties"] is False and b["required"] == list(b["properties"])


@pytest.mark.parametrize(
    ("fact", "error"),
    [
        ({"turn": 0, "category": "events", "l0": " ", "l1": {"what": "x"}}, "l0 is empty"),
        ({"turn": 0, "category": "events", "l0": "x" * 501, "l1": {"what": "x"}}, "at most 500"),
        ({"turn": True, "category": "events", "l0": "a", "l1": {"what": "x"}}, "turn must be an integer"),
        ({"turn": -1, "category": "events", "l0": "a", "l1": {"what": "x"}}, "turn -1 out of range"),
        ({"turn": 0, "category": "events", "l0": "a", "l1": "x"}, "l1 must be an object"),
        ({"turn": 0, "category": "events", "l0": "a", "l1": {"what": {"a": 1}}}, "l1.what must be"),
        ({"turn": 0, "category": "events", "l0": "a", "l1": {"who": [1]}}, "l1.who must be"),
        ({"turn": 0, "category": "events", "l0": "a", "l1": {"attribute": "x"}}, "none of the events fields"),
        (
            {"turn": 0, "category": "cases", "l0": "a", "l1": {"problem": "p"}, "importance": "high"},
            "importance must be",
        ),
        (
            {"turn": 0, "category": "cases", "l0": "a", "l1": {"problem": "p"}, "confidence": float("nan")},
            "confidence must be",
        ),
    ],
)
def test_validation_rejects(fact: dict[str, Any], error: str) -> None:
    with pytest.raises(LLMOutputError, match=error):
        validate_facts({"facts": [fact]}, 2)


def test_validation_is_loose_where_it_costs_nothing() -> None:
    [fact] = validate_facts(
        {"facts": [{"turn": 1.0, "category": "profile", "l0": "Ann is 32.", "l1": {"value": 32, "x": 1}}]}, 2
    )
    assert fact == LLMFact(1, "profile", "Ann is 32.", {"attribute": None, "value": "32"}, 0.5, 0.5)
    with pytest.raises(LLMOutputError, match='"facts"'):
        validate_facts([], 2)
    assert validate_decision({"op": "create", "target": "it_a"}, ["it_a"]) == ("CREATE", None)
    with pytest.raises(LLMOutputError, match="op must be one of"):
        validate_decision({"op": "DELETE", "target": "it_a"}, ["it_a"])


# ---- through the Memory facade ---------------------------------------------------------------


def _memory_turns() -> list[Any]:
    from daemon.memory.types import ResourceIn

    texts = [
        ("Caroline", "Hey Mel! Good to see you!"),  # noise: never sent to the LLM
        ("Melanie", "Hey Caroline! I'm swamped with the kids & work."),
        ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
        ("Melanie", "I love painting landscapes, it's how I relax. I paint every Sunday morning."),
    ]
    return [
        ResourceIn(
            id=f"m{i}",
            scope="conv",
            text=t,
            occurred_at=MAY_8 + timedelta(minutes=i),
            session="s1",
            speaker=who,
            role="user",
        )
        for i, (who, t) in enumerate(texts)
    ]


def test_memorize_uses_the_llm_facts(fake: FakeLLM, tmp_path: Path, embedder: Any) -> None:
    from daemon.memory import Memory

    fake.answer("memorize_en")
    with Memory.open(tmp_path / "m.duckdb", embedder, llm=_extractor(fake)) as memory:
        report = memory.memorize(_memory_turns())
        assert report.items_added == 4 and report.noise == 1
        rows = memory.store.con.execute("SELECT category, l0 FROM items ORDER BY l0").fetchall()
        assert ("preferences", "Melanie loves painting landscapes.") in rows
        assert ("patterns", "Melanie paints every Sunday morning.") in rows  # two facts from one turn
        sent = fake.messages(0)[-1]["content"]
        assert "Good to see you" not in sent and "support group" in sent  # noise is filtered first
        hit = memory.recall("what does Melanie paint", "conv", k=1, reinforce=False)[0]
        assert hit.source_ids == ["m3"]  # provenance: the turn the fact came from


def test_memorize_falls_back_to_the_rules_on_broken_output(
    fake: FakeLLM, tmp_path: Path, embedder: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from daemon.memory import Memory

    fake.answer("extract_broken", "extract_broken")
    with Memory.open(tmp_path / "m.duckdb", embedder, llm=_extractor(fake)) as memory:
        with caplog.at_level(logging.WARNING):
            report = memory.memorize(_memory_turns())
        assert report.items_added == 3 and len(fake.seen) == 2  # one try, one repair, then rules
        l0s = [r[0] for r in memory.store.con.execute("SELECT l0 FROM items ORDER BY l0").fetchall()]
        assert any(t.startswith("Melanie: I love painting landscapes") for t in l0s)  # the rule's item
    assert any("LLM" in r.getMessage() or "llm" in r.getMessage() for r in caplog.records)


# ---- updates: which older statements a new one makes out of date ----------------------------


def test_outdated_good_answer(fake: FakeLLM) -> None:
    fake.answer("outdated_lisbon")
    older = [("it_2ee211eedf80ba868580", "Alice lives in Lisbon."), ("it_c", "Alice has a cat.")]
    assert _extractor(fake).outdated("Alice moved to Porto.", older) == ("it_2ee211eedf80ba868580",)
    body = fake.seen[0]["body"]
    fmt = body["response_format"]["json_schema"]
    assert fmt["name"] == "memubot_outdated"
    assert fmt["schema"]["properties"]["outdated"]["items"]["enum"] == ["it_2ee211eedf80ba868580", "it_c"]
    user = body["messages"][-1]["content"]
    assert "New statement: Alice moved to Porto." in user and "- it_c: Alice has a cat." in user


def test_outdated_unknown_id_is_repaired_or_gives_none(fake: FakeLLM) -> None:
    older = [("it_2ee211eedf80ba868580", "Alice lives in Lisbon.")]
    fake.answer("outdated_unknown", "outdated_none")
    assert _extractor(fake).outdated("Alice moved to Porto.", older) == ()
    assert "'it_lisbon' is not one of the given ids" in fake.messages(1)[-1]["content"]
    fake.answer("outdated_unknown", "outdated_unknown")
    assert _extractor(fake).outdated("Alice moved to Porto.", older) is None


def _moves(fake: FakeLLM, tmp_path: Path, embedder: Any, verdict: str) -> dict[str, Any]:
    """Alice says where she lives, then that she moved; the LLM judges the pair with `verdict`."""
    from daemon.memory import Memory
    from daemon.memory.types import ResourceIn
    from daemon.memory.write.pipeline import item_id_for

    fake.answer("extract_lives", "extract_moved", verdict)
    said = [
        ("u1", "I live in Lisbon, near the river.", MAY_8),
        ("u2", "We moved to Porto last month.", MAY_8 + timedelta(days=400)),
    ]
    with Memory.open(tmp_path / f"{verdict}.duckdb", embedder, llm=_extractor(fake)) as memory:
        for rid, text, at in said:
            memory.memorize(
                [
                    ResourceIn(
                        id=rid,
                        scope="alice",
                        text=text,
                        occurred_at=at,
                        session="s",
                        speaker="Alice",
                        role="user",
                    )
                ]
            )
        old = memory.get_item("alice", item_id_for("alice", "u1", 0))
    assert old is not None
    return old


def test_with_an_llm_its_judgement_retires_the_older_statement(
    fake: FakeLLM, tmp_path: Path, embedder: Any
) -> None:
    old = _moves(fake, tmp_path, embedder, "outdated_lisbon")
    assert (
        len(fake.seen) == 3
        and fake.seen[2]["body"]["response_format"]["json_schema"]["name"] == "memubot_outdated"
    )
    assert "Alice lives in Lisbon." in fake.messages(2)[-1]["content"]
    assert old["superseded_by"] is not None


def test_with_an_llm_its_no_keeps_the_older_statement(fake: FakeLLM, tmp_path: Path, embedder: Any) -> None:
    old = _moves(fake, tmp_path, embedder, "outdated_none")
    assert len(fake.seen) == 3  # it was asked, and its "none" stands over the model's verdict
    assert old["superseded_by"] is None
