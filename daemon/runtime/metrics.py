"""Prometheus metrics: what memubot handled, published and answered, on a registry of its own."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

# handlers range from a dedup hit (a few ms) to an LLM extraction that runs into its timeout
HANDLER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0)
# a recall is an in-memory search: milliseconds, seconds only when something is wrong
RECALL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

SizesSource = Callable[[], dict[str, float]]


class _StoreRows(Collector):
    """`memubot_store_rows{table}`, read from the source at scrape time so it is never stale."""

    def __init__(self) -> None:
        self.source: SizesSource | None = None

    def _family(self) -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "memubot_store_rows", "Rows per table of the memory store.", labels=["table"]
        )

    def describe(self) -> Iterator[Metric]:
        # lets the registry reject a second collector of the same name; no source is called here
        yield self._family()

    def collect(self) -> Iterator[Metric]:
        if self.source is None:
            return
        family = self._family()
        try:
            for table, rows in sorted(self.source().items()):
                family.add_metric([table], float(rows))
        except Exception:
            # a broken count must not take the event counters down with it
            log.warning("store sizes unavailable; scraping without memubot_store_rows", exc_info=True)
            return
        yield family


class Metrics:
    """Every metric memubot exports; one instance per daemon, each with a private registry.

    A private registry (not prometheus_client's global one) lets tests and several daemons in one
    process count separately and never collide on metric names.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._events = Counter(
            "memubot_events",
            "Incoming events by kind and outcome (stored, duplicate, dead_letter, retry, noop, ...).",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self._published = Counter(
            "memubot_published",
            "Outgoing messages by kind and outcome.",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self._handler = Histogram(
            "memubot_handler_seconds",
            "Time spent handling one event, by kind.",
            ["kind"],
            buckets=HANDLER_BUCKETS,
            registry=self.registry,
        )
        self._recall = Histogram(
            "memubot_recall_seconds",
            "Time to answer one recall query.",
            buckets=RECALL_BUCKETS,
            registry=self.registry,
        )
        self._rpc = Counter(
            "memubot_rpc",
            "RPC requests by verb and outcome.",
            ["verb", "outcome"],
            registry=self.registry,
        )
        self._webhook = Counter(
            "memubot_webhook_requests",
            "Webhook requests by source and HTTP status (202 published, 401 bad signature, 503 bus down, ...).",
            ["source", "status"],
            registry=self.registry,
        )
        self._unhandled = Gauge(
            "memubot_unhandled_events",
            "Events received on the bus but not yet handled (waiting, in flight or waiting for a retry).",
            registry=self.registry,
        )
        self._oldest = Gauge(
            "memubot_oldest_unhandled_event_age_seconds",
            "How long the oldest event not yet handled has been on the bus (0 when none).",
            registry=self.registry,
        )
        self._since_progress = Gauge(
            "memubot_seconds_since_progress",
            "Seconds since the consumer last acknowledged an event (0 while there is nothing to do).",
            registry=self.registry,
        )
        self._rows = _StoreRows()
        self.registry.register(self._rows)

    def event(self, kind: str, outcome: str) -> None:
        self._events.labels(kind=kind, outcome=outcome).inc()

    def published(self, subject_kind: str, outcome: str) -> None:
        self._published.labels(kind=subject_kind, outcome=outcome).inc()

    def handler_seconds(self, kind: str, seconds: float) -> None:
        self._handler.labels(kind=kind).observe(seconds)

    def recall_seconds(self, seconds: float) -> None:
        self._recall.observe(seconds)

    def rpc(self, verb: str, outcome: str) -> None:
        self._rpc.labels(verb=verb, outcome=outcome).inc()

    def webhook(self, source: str, status: int) -> None:
        self._webhook.labels(source=source, status=str(status)).inc()

    def backlog(self, unhandled: int, oldest_age_s: float, since_progress_s: float) -> None:
        self._unhandled.set(unhandled)
        self._oldest.set(oldest_age_s)
        self._since_progress.set(since_progress_s)

    def set_sizes_source(self, fn: SizesSource) -> None:
        """Row counts per table, called on every scrape from the scraping thread: keep it cheap."""
        self._rows.source = fn

    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition of every metric, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
