"""Enrichment of GitHub deliveries through the API (PyGithub), when a token is configured.

A pull-request delivery gains the PR's files and diff stats, an issue or comment delivery the
issue's latest comments: what a webhook payload leaves out and a person would look at. Calls
are blocking (PyGithub) and run on a worker thread; any failure (network, 404, rate limit,
GitHub down) leaves the delivery unenriched and is logged, never raised: the event is stored
either way. Rate-limit aware: when GitHub says few requests remain (or refuses with a rate
limit), enrichment pauses until the reset time GitHub names.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from github import Auth, Github, GithubException, RateLimitExceededException

log = logging.getLogger(__name__)

MAX_FILES = 30  # files listed per pull request (their count and stats are always complete)
MAX_COMMENTS = 5  # the newest comments of an issue thread
COMMENT_CHARS = 300
RESERVE = 50  # requests left for the person's other tools: below this, enrichment pauses
TIMEOUT_S = 10


class Enricher:
    """Reads what a delivery leaves out from the GitHub API (`api_url`: GitHub or Enterprise)."""

    def __init__(self, token: str, api_url: str, clock: Callable[[], float] = time.time) -> None:
        self.api_url = api_url.rstrip("/")
        # no retries of its own: a failed enrichment is skipped, and the next delivery tries again
        # lazy: a repository or issue is fetched only when one of its fields is read
        self.gh = Github(
            auth=Auth.Token(token), base_url=self.api_url, timeout=TIMEOUT_S, retry=None, lazy=True
        )
        self.clock = clock
        self.paused_until = 0.0

    async def enrich(self, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """What the API adds to one delivery (None: nothing to add, paused, or it failed)."""
        return await asyncio.to_thread(self.enrich_sync, event, payload)

    def enrich_sync(self, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        repo = (payload.get("repository") or {}).get("full_name")
        if not isinstance(repo, str):
            return None
        if event in ("pull_request", "pull_request_review", "pull_request_review_comment"):
            number = (payload.get("pull_request") or {}).get("number")
            fetch = self._pull_request
        elif event in ("issues", "issue_comment"):
            number = (payload.get("issue") or {}).get("number")
            fetch = self._issue_thread
        else:
            return None
        if not isinstance(number, int):
            return None
        now = self.clock()
        if now < self.paused_until:
            log.info("GitHub enrichment paused by the rate limit for %.0f s more", self.paused_until - now)
            return None
        try:
            extra = fetch(repo, number)
            self._check_budget()
        except RateLimitExceededException as exc:
            self._pause(f"rate limit: {exc.status}")
            return None
        except (GithubException, OSError, ValueError) as exc:
            log.warning("GitHub enrichment of %s#%s failed, stored without it: %s", repo, number, exc)
            return None
        return extra

    def _pull_request(self, repo: str, number: int) -> dict[str, Any]:
        pr = self.gh.get_repo(repo).get_pull(number)
        stats = {
            "changed_files": pr.changed_files,
            "additions": pr.additions,
            "deletions": pr.deletions,
            "commits": pr.commits,
        }
        files: list[dict[str, Any]] = []
        for f in pr.get_files():
            if len(files) >= MAX_FILES:
                break
            files.append(
                {"file": f.filename, "status": f.status, "additions": f.additions, "deletions": f.deletions}
            )
        return {**stats, "files": files}

    def _issue_thread(self, repo: str, number: int) -> dict[str, Any]:
        issue = self.gh.get_repo(repo).get_issue(number)
        comments = list(issue.get_comments())[-MAX_COMMENTS:]
        return {
            "comments": issue.comments,
            "thread": [
                {
                    "author": c.user.login if c.user else None,
                    "at": c.created_at.isoformat() if c.created_at else None,
                    "text": (c.body or "")[:COMMENT_CHARS],
                }
                for c in comments
            ],
        }

    def _check_budget(self) -> None:
        remaining, _ = self.gh.rate_limiting
        if 0 <= remaining < RESERVE:
            self._pause(f"{remaining} requests left")

    def _pause(self, why: str) -> None:
        reset = float(self.gh.rate_limiting_resettime or 0)
        self.paused_until = max(reset, self.clock() + 60.0)
        log.warning(
            "GitHub enrichment paused until %s (%s)", time.strftime("%H:%M:%S", time.localtime(reset)), why
        )


def line_for(extra: dict[str, Any]) -> str:
    """A short addition to the delivery's one-line summary."""
    if "changed_files" in extra:
        names = ", ".join(f["file"] for f in extra["files"][:3])
        more = f", +{extra['changed_files'] - 3} more" if extra["changed_files"] > 3 else ""
        return (
            f" ({extra['changed_files']} files, +{extra['additions']} −{extra['deletions']}: {names}{more})"
        )
    if extra.get("thread"):
        last = extra["thread"][-1]
        return f" ({extra['comments']} comments; last by {last['author']})"
    return ""
