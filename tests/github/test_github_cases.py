"""Cases from GitHub: a failing workflow and the run (and push) that fixed it, through the handler."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from daemon.config import load_settings
from daemon.events import GithubEvent, github_from_dict
from daemon.memory import Memory
from handlers import github
from handlers.deps import Deps
from tests.conftest import FakeClock
from tests.shared_data import shared

FIX_SHA = "3484a3fb816e0859fd6e1cea078d76385ff50625"  # the octokit fixture's head commit
BAD_SHA = "b" * 40


def _payload(rel: str) -> dict[str, Any]:
    return json.loads(shared("fixtures", "github", rel).read_text(encoding="utf-8"))


def run(
    delivery: str, conclusion: str, started: str, run_id: int, sha: str = FIX_SHA, attempt: int = 1
) -> GithubEvent:
    """The octokit `workflow_run.completed` fixture (a success of workflow 'test' on master). The
    failing and other variants are derived from it here: a copy with its conclusion, start time,
    run id and head commit edited; everything else is the recorded payload."""
    payload = copy.deepcopy(_payload("workflow_run/completed.payload.json"))
    wr = payload["workflow_run"]
    wr |= {
        "conclusion": conclusion,
        "run_started_at": started,
        "id": run_id,
        "head_sha": sha,
        "run_attempt": attempt,
    }
    if sha != FIX_SHA:
        wr["head_commit"] = wr["head_commit"] | {"id": sha, "message": "break the build\n\nbody"}
    return github_from_dict({"id": delivery, "scope": "alice", "event": "workflow_run", "payload": payload})


@pytest.fixture
def deps(memory: Memory, clock: FakeClock, tmp_path: Path) -> Deps:
    settings = load_settings({"HOME": str(tmp_path), "MEMUBOT_GITHUB_LOGIN": "octocat"})
    return Deps(memory, settings, clock)


def cases(memory: Memory) -> list[dict[str, Any]]:
    return [i for i in memory.items("alice") if i["category"] == "cases"]


def only_events_of(memory: Memory, delivery: str) -> str:
    return next(
        i["id"] for i in memory.items("alice") if i["category"] == "events" and i["source_ids"] == [delivery]
    )


FAIL = run("f-1", "failure", "2020-10-05T15:00:00Z", 100, sha=BAD_SHA)
OK = run("s-1", "success", "2020-10-05T16:33:49Z", 289782451)


async def test_a_success_after_a_failure_is_one_case_even_when_delivered_twice(
    deps: Deps, memory: Memory
) -> None:
    for batch in ([FAIL], [OK], [FAIL], [OK], [FAIL, OK]):
        await github.handle(batch, deps)
    [case] = cases(memory)
    text = case["l0"]
    assert "test on master in octo-org/octo-repo failed from 2020-10-05 15:00 UTC" in text
    assert "commit bbbbbbb" in text and "1 failed run" in text
    assert "fixed by commit 3484a3f “build(test): check workflow run event payload” by Matthias Fax" in text
    assert case["source_ids"] == ["f-1", "s-1"]
    l1 = json.loads(case["l1"]) if isinstance(case["l1"], str) else case["l1"]
    assert l1["failed_sha"] == BAD_SHA and l1["fixed_sha"] == FIX_SHA and l1["failed_runs"] == 1
    # the case is a memory recall finds
    hits = memory.recall("what fixed the failing test workflow?", "alice", k=3, reinforce=False)
    assert any(h.category == "cases" for h in hits)


async def test_a_success_older_than_the_failure_makes_no_case(deps: Deps, memory: Memory) -> None:
    later_failure = run("f-2", "failure", "2020-10-05T17:00:00Z", 200, sha=BAD_SHA)
    await github.handle([later_failure], deps)
    await github.handle([OK], deps)  # started before the failure: it fixed nothing
    assert cases(memory) == []
    fixed = run("s-2", "success", "2020-10-05T18:00:00Z", 300)
    await github.handle([fixed], deps)
    [case] = cases(memory)
    assert case["source_ids"] == ["f-2", "s-2"] and "failed from 2020-10-05 17:00 UTC" in case["l0"]


async def test_a_failure_arriving_after_its_fix_still_makes_the_case_once(deps: Deps, memory: Memory) -> None:
    first = run("f-0", "failure", "2020-10-05T14:00:00Z", 50, sha=BAD_SHA)
    await github.handle([OK], deps)  # nothing failed before it, as far as memubot knows
    assert cases(memory) == []
    await github.handle([FAIL], deps)  # the failure right before it comes late: now it is a case
    await github.handle([first], deps)  # an even older failure: the same streak, no second case
    await github.handle([FAIL, OK, first], deps)
    [case] = cases(memory)
    assert case["source_ids"] == ["f-1", "s-1"]
    # cancelled runs neither break nor fix anything, and make no case
    await github.handle([run("c-1", "cancelled", "2020-10-05T19:00:00Z", 400)], deps)
    assert len(cases(memory)) == 1


async def test_a_check_suite_fix_names_the_push_that_brought_the_commit(deps: Deps, memory: Memory) -> None:
    ok = _payload("check_suite/completed.1.payload.json")  # success on main, head ec26c3e
    sha = ok["check_suite"]["head_sha"]
    # derived: the same suite failing on an earlier commit (id, conclusion, times, sha edited)
    bad = copy.deepcopy(ok)
    bad["check_suite"] |= {
        "id": 1,
        "conclusion": "failure",
        "head_sha": "a" * 40,
        "created_at": "2019-05-15T14:00:00Z",
        "updated_at": "2019-05-15T14:05:00Z",
    }
    # derived: the octokit push fixture, as the push of the fixing commit to main
    push = _payload("push/with-new-branch.payload.json") | {"ref": "refs/heads/main", "after": sha}
    events = [
        github_from_dict({"id": d, "scope": "alice", "event": ev, "payload": p})
        for d, ev, p in (("cs-bad", "check_suite", bad), ("p-1", "push", push), ("cs-ok", "check_suite", ok))
    ]
    for ev in events:
        await github.handle([ev], deps)
    [case] = cases(memory)
    assert (
        "checks of octocoders-linter on main in Codertocat/Hello-World failed from 2019-05-15 14:00 UTC"
        in case["l0"]
    )
    assert "fixed by commit ec26c3e “Update README.md” by Codertocat, pushed by Codertocat" in case["l0"]
    assert case["source_ids"] == ["cs-bad", "cs-ok", "p-1"]


async def test_forgetting_the_failure_forgets_the_case_and_not_the_fix(deps: Deps, memory: Memory) -> None:
    await github.handle([FAIL, OK], deps)
    [case] = cases(memory)
    counts = memory.forget("alice", item_ids=[case["id"]])
    assert counts["resources"] == 2  # a case is told from both runs: forgetting it forgets both
    assert cases(memory) == [] and memory.stats("alice")["resources"] == 0

    memory.forget("alice", everything=True)
    f2 = run("f-9", "failure", "2020-10-05T15:00:00Z", 900, sha=BAD_SHA)
    s2 = run("s-9", "success", "2020-10-05T16:33:49Z", 901)
    await github.handle([f2, s2], deps)
    # forgetting the failing run's delivery alone: the fixing run keeps its own items, and the
    # case (which cites the forgotten run) is not extracted back from the fix's kept drafts
    memory.forget("alice", item_ids=[only_events_of(memory, "f-9")])
    assert cases(memory) == []
    kept = [(i["l0"], i["source_ids"]) for i in memory.items("alice")]
    assert kept == [("GitHub repository octo-org/octo-repo", ["s-9"])]
    assert memory.store.con.execute("SELECT delivery FROM workflow_runs").fetchall() == [("s-9",)]
    # a redelivery of the forgotten failure stays forgotten and makes no case
    assert await github.handle([f2], deps) == ["duplicate"]
    assert cases(memory) == []


async def test_a_re_run_that_passes_is_a_flaky_failure_not_a_fix(deps: Deps, memory: Memory) -> None:
    flaky = run("f-5", "failure", "2020-10-05T15:00:00Z", 500)
    rerun = run("s-5", "success", "2020-10-05T15:30:00Z", 500, attempt=2)  # the same run, attempt 2
    await github.handle([flaky, rerun], deps)
    [case] = cases(memory)
    assert case["l0"].endswith("(commit 3484a3f, 1 failed run); passed on a re-run of commit 3484a3f")
