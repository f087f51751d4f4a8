"""Metrics, read back the way Prometheus reads them: by parsing the rendered text."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from daemon.runtime.metrics import Metrics

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _samples(metrics: Metrics) -> Samples:
    body, content_type = metrics.render()
    assert content_type == CONTENT_TYPE_LATEST
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def _value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def test_counters_by_label() -> None:
    m = Metrics()
    m.event("conversation", "stored")
    m.event("conversation", "stored")
    m.event("conversation", "duplicate")
    m.event("unknown", "dead_letter")
    m.published("suggestion", "ok")
    m.rpc("recall", "ok")
    m.rpc("recall", "ok")
    m.rpc("forget", "error")
    s = _samples(m)
    assert _value(s, "memubot_events_total", kind="conversation", outcome="stored") == 2
    assert _value(s, "memubot_events_total", kind="conversation", outcome="duplicate") == 1
    assert _value(s, "memubot_events_total", kind="unknown", outcome="dead_letter") == 1
    assert _value(s, "memubot_events_total", kind="tick", outcome="stored") is None
    assert _value(s, "memubot_published_total", kind="suggestion", outcome="ok") == 1
    assert _value(s, "memubot_rpc_total", verb="recall", outcome="ok") == 2
    assert _value(s, "memubot_rpc_total", verb="forget", outcome="error") == 1


def test_histograms_and_their_buckets() -> None:
    m = Metrics()
    m.handler_seconds("conversation", 0.004)
    m.handler_seconds("conversation", 45.0)
    m.recall_seconds(0.0008)
    m.recall_seconds(0.03)
    s = _samples(m)
    handler = {"kind": "conversation"}
    assert _value(s, "memubot_handler_seconds_count", **handler) == 2
    assert _value(s, "memubot_handler_seconds_sum", **handler) == pytest.approx(45.004)
    assert _value(s, "memubot_handler_seconds_bucket", le="0.005", **handler) == 1
    assert _value(s, "memubot_handler_seconds_bucket", le="30.0", **handler) == 1
    assert _value(s, "memubot_handler_seconds_bucket", le="60.0", **handler) == 2
    assert _value(s, "memubot_recall_seconds_count") == 2
    assert _value(s, "memubot_recall_seconds_bucket", le="0.001") == 1
    assert _value(s, "memubot_recall_seconds_bucket", le="0.05") == 2
    assert _value(s, "memubot_recall_seconds_bucket", le="5.0") == 2


def test_two_instances_count_separately() -> None:
    a, b = Metrics(), Metrics()
    a.event("tick", "noop")
    a.event("tick", "noop")
    b.event("tick", "noop")
    assert _value(_samples(a), "memubot_events_total", kind="tick", outcome="noop") == 2
    assert _value(_samples(b), "memubot_events_total", kind="tick", outcome="noop") == 1


def test_store_rows_are_read_at_scrape_time() -> None:
    m = Metrics()
    assert not any(name == "memubot_store_rows" for name, _ in _samples(m)), "no source, no family"
    sizes = {"resources": 10.0, "items": 8.0, "dead_letters": 1.0}
    m.set_sizes_source(lambda: dict(sizes))
    s = _samples(m)
    assert _value(s, "memubot_store_rows", table="resources") == 10
    assert _value(s, "memubot_store_rows", table="items") == 8
    assert _value(s, "memubot_store_rows", table="dead_letters") == 1
    sizes["items"] = 9.0
    assert _value(_samples(m), "memubot_store_rows", table="items") == 9


def test_failing_sizes_source_does_not_break_the_scrape(caplog: pytest.LogCaptureFixture) -> None:
    m = Metrics()
    m.event("feedback", "stored")

    def broken() -> dict[str, float]:
        raise RuntimeError("database is locked")

    m.set_sizes_source(broken)
    with caplog.at_level(logging.WARNING, logger="daemon.runtime.metrics"):
        s = _samples(m)
    assert _value(s, "memubot_events_total", kind="feedback", outcome="stored") == 1
    assert not any(name == "memubot_store_rows" for name, _ in s)
    assert any("memubot_store_rows" in r.getMessage() for r in caplog.records)
