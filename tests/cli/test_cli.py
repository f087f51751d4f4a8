"""The command line on a real DuckDB file: import, recall (single and batch), stats, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from daemon.cli.main import main
from daemon.memory import Store
from daemon.state.ledger import Ledger

TURNS = [
    {
        "id": "c:1",
        "scope": "caro",
        "session": "c:S1",
        "role": "user",
        "speaker": "Caroline",
        "text": "I went to a LGBTQ support group yesterday and it was so powerful.",
        "ts": "2023-05-08T13:57:00Z",
    },
    {
        "id": "c:2",
        "scope": "caro",
        "session": "c:S1",
        "role": "user",
        "speaker": "Melanie",
        "text": "That's great! I painted a sunrise over the lake last week.",
        "ts": "2023-05-08T13:57:30Z",
    },
    {
        "id": "c:3",
        "scope": "caro",
        "session": "c:S1",
        "role": "user",
        "speaker": "Caroline",
        "text": "Thanks!",
        "ts": "2023-05-08T13:58:00Z",
    },
    {
        "id": "o:1",
        "scope": "other",
        "session": "o:S1",
        "role": "user",
        "speaker": "Olaf",
        "text": "I joined a support group for new parents.",
        "ts": "2023-05-08T13:57:00Z",
    },
]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("MEMUBOT_DB", raising=False)
    monkeypatch.delenv("MEMUBOT_CONFIG", raising=False)
    monkeypatch.setenv("MEMUBOT_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_import_skips_a_deeply_nested_line_and_imports_the_good_line_after_it(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 22: a 10 KB line nested 5,000 deep printed a traceback, exited 1 and stopped the import
    deep = json.dumps({**TURNS[0], "id": "deep"})[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}"
    src = _write(env / "deep.jsonl", [json.dumps(TURNS[0]), deep, json.dumps(TURNS[1])])
    db = env / "m.duckdb"
    assert main(["import", str(src), "--db", str(db), "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert summary["valid"] == 2 and summary["bad_lines"] == 1 and summary["resources_added"] == 2
    assert f"{src}:2: skipped: event is nested deeper than 64 levels" in err
    assert "Traceback" not in err
    # --strict: the exit code says a line failed, and still nothing is imported twice
    assert main(["import", str(src), "--db", str(db), "--json", "--quiet", "--strict"]) == 1
    again = json.loads(capsys.readouterr().out)
    assert again["already_stored"] == 2 and again["bad_lines"] == 1


def test_import_reports_bad_lines_and_is_idempotent(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.dumps(t) for t in TURNS]
    lines.insert(1, "{broken json")
    lines.insert(3, json.dumps({"id": "x", "scope": "caro", "role": "user", "text": "hi"}))
    src = _write(env / "turns.jsonl", lines)
    db = env / "m.duckdb"
    assert main(["import", str(src), "--db", str(db), "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert summary["valid"] == 4 and summary["bad_lines"] == 2 and summary["resources_added"] == 4
    assert summary["noise_turns"] == 1  # "Thanks!" is stored but yields no item
    assert f"{src}:2: skipped: invalid JSON" in err
    assert f"{src}:4: skipped: missing required field 'ts'" in err
    assert main(["import", str(src), "--db", str(db), "--json", "--quiet", "--strict"]) == 1
    again = json.loads(capsys.readouterr().out)
    assert again["resources_added"] == 0 and again["already_stored"] == 4 and again["items_added"] == 0


def test_importing_forgotten_turns_again_says_they_were_forgotten(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 22: after `forget --all` the same file said "3 already stored" while stats said 0
    src = _write(env / "turns.jsonl", [json.dumps(t) for t in TURNS if t["scope"] == "caro"])
    db = env / "m.duckdb"
    assert main(["import", str(src), "--db", str(db), "--quiet"]) == 0
    assert main(["forget", "--scope", "caro", "--all", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["import", str(src), "--db", str(db), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "0 new resources, 0 already stored, 3 forgotten" in out, out
    assert "3 of these turns were forgotten (`memubot forget`)" in out
    assert "to store them again, give their lines new ids" in out
    assert main(["import", str(src), "--db", str(db), "--json", "--quiet"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["forgotten"] == 3 and again["already_stored"] == 0 and again["resources_added"] == 0


def test_recall_and_stats(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(env / "turns.jsonl", [json.dumps(t) for t in TURNS])
    db = env / "m.duckdb"
    main(["import", str(src), "--db", str(db), "--quiet"])
    capsys.readouterr()
    assert main(["recall", "support group", "--scope", "caro", "--db", str(db), "--json", "--explain"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["hits"][0]["source_ids"] == ["c:1"] and "trace" in res["hits"][0]
    assert all(s.startswith("c:") for h in res["hits"] for s in h["source_ids"])
    assert main(["recall", "support group", "--scope", "caro", "--db", str(db)]) == 0
    assert "sources: c:1" in capsys.readouterr().out
    assert main(["stats", "--db", str(db), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["resources"] == 4 and stats["items"] == 3 and stats["categories"] >= 1
    assert main(["stats", "--db", str(db), "--scope", "other", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resources"] == 1


def test_recall_without_scope_or_database_is_refused(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = env / "m.duckdb"
    assert main(["recall", "anything", "--scope", "caro", "--db", str(db)]) == 2
    assert "no database" in capsys.readouterr().err and not db.exists()
    main(["import", str(_write(env / "t.jsonl", [json.dumps(TURNS[0])])), "--db", str(db), "--quiet"])
    assert main(["recall", "anything", "--db", str(db)]) == 2
    assert "--scope is required" in capsys.readouterr().err


def test_batch_answers_have_the_scorer_format(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _write(env / "turns.jsonl", [json.dumps(t) for t in TURNS])
    db = env / "m.duckdb"
    main(["import", str(src), "--db", str(db), "--quiet"])
    queries = _write(
        env / "q.jsonl",
        [
            json.dumps(
                {"id": "q1", "scope": "caro", "query": "who painted a sunrise?", "ts": "2023-06-01T00:00:00Z"}
            ),
            json.dumps({"id": "q2", "scope": "other", "query": "support group"}),
            "not json",
            json.dumps({"id": "q3", "query": "no scope"}),
        ],
    )
    answers = env / "a.jsonl"
    assert (
        main(["recall", "--queries", str(queries), "--db", str(db), "--k", "20", "--out", str(answers)]) == 0
    )
    err = capsys.readouterr().err
    assert "q.jsonl:3: skipped" in err and "q.jsonl:4: skipped: missing or non-string field 'scope'" in err
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q2"]
    for r in rows:
        assert isinstance(r["latency_ms"], float) and r["latency_ms"] > 0
        for h in r["hits"]:
            assert {"text", "score", "source_ids"} <= set(h)
    assert rows[0]["hits"][0]["source_ids"] == ["c:2"]
    assert [h["source_ids"] for h in rows[1]["hits"]] == [["o:1"]]


def test_missing_files_and_help(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(env / "nope.jsonl"), "--db", str(env / "m.duckdb")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["stats", "--db", str(env / "absent.duckdb")]) == 2
    assert main([]) == 2
    assert "import" in capsys.readouterr().out


def test_import_streams_in_chunks(
    env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import daemon.cli.main as cli

    monkeypatch.setattr(cli, "IMPORT_CHUNK", 2)
    turns = [
        {
            **TURNS[0],
            "id": f"k:{i}",
            "text": f"Step {i}: I repaired bicycle wheel number {i} today.",
            "ts": f"2023-05-08T14:0{i}:00Z",
        }
        for i in range(5)
    ]
    lines = [json.dumps(t) for t in turns]
    lines.insert(3, "[]")
    db = env / "m.duckdb"
    assert main(["import", str(_write(env / "k.jsonl", lines)), "--db", str(db), "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert summary["valid"] == 5 and summary["bad_lines"] == 1 and summary["items_added"] == 5
    assert "k.jsonl:4: skipped: event must be a JSON object" in err
    # context crosses chunk boundaries: item k:1 (chunk 1) knows the turn after it (chunk 2)
    from daemon.memory import Store

    store = Store(db, read_only=True)
    contexts = {i: c for i, _, c in store.items.item_texts("caro")}
    store.close()
    assert sum("number 1" in c and "number 2" in c for c in contexts.values()) == 2


def test_batch_bad_ts_type_and_foreign_database(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = env / "m.duckdb"
    main(["import", str(_write(env / "t.jsonl", [json.dumps(TURNS[0])])), "--db", str(db), "--quiet"])
    q = _write(
        env / "q.jsonl",
        [
            json.dumps({"id": "q1", "scope": "caro", "query": "group", "ts": 123}),
            json.dumps({"id": "q2", "scope": "caro", "query": "group"}),
        ],
    )
    assert main(["recall", "--queries", str(q), "--db", str(db), "--out", str(env / "a.jsonl")]) == 0
    assert "q.jsonl:1: skipped: field 'ts' must be an ISO-8601 string" in capsys.readouterr().err
    assert [json.loads(x)["id"] for x in (env / "a.jsonl").read_text().splitlines()] == ["q2"]
    import duckdb

    foreign = env / "other.duckdb"
    duckdb.connect(str(foreign)).close()
    assert main(["stats", "--db", str(foreign)]) == 1
    assert "not a memubot database" in capsys.readouterr().err


def test_consolidate_forget_and_restore(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = env / "m.duckdb"
    ws = env / "ws"
    ws.mkdir()
    (ws / "USER.md").write_text("# Notes I keep\n", encoding="utf-8")
    turns = [
        {**TURNS[0], "id": "p:1", "text": "Remember that I always prefer window seats on planes."},
        *TURNS,
    ]
    assert (
        main(
            [
                "import",
                str(_write(env / "t.jsonl", [json.dumps(t) for t in turns])),
                "--db",
                str(db),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    # fourteen months later: the ordinary items have faded and are archived; nothing is deleted
    assert main(["consolidate", "--db", str(db), "--at", "2024-07-08T00:00:00Z", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    caro = report["scopes"]["caro"]
    assert caro["archived"] >= 1 and caro["active_after"] == caro["active_before"] - caro["archived"]
    assert report["profile_updated"] is None  # no profile file configured
    # forget: a dry run, then for real; the counts name each table
    assert (
        main(["forget", "--scope", "caro", "--query", "sunrise lake", "--dry-run", "--db", str(db), "--json"])
        == 0
    )
    dry = json.loads(capsys.readouterr().out)
    assert dry["dry_run"] and dry["items"] == 1 and dry["resources"] == 1
    assert main(["forget", "--scope", "caro", "--query", "sunrise lake", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "deleted" in out and "1 resources" in out and "postings" in out
    assert main(["recall", "sunrise", "--scope", "caro", "--db", str(db), "--json", "--no-reinforce"]) == 0
    assert all("sunrise" not in h["text"] for h in json.loads(capsys.readouterr().out)["hits"])
    # restore: an archived item comes back; a second restore says it is not archived
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    archived = con.execute("SELECT id FROM items WHERE archived LIMIT 1").fetchone()
    con.close()
    assert archived is not None
    assert main(["restore", "--scope", "caro", "--item", archived[0], "--db", str(db)]) == 0
    assert main(["restore", "--scope", "caro", "--item", archived[0], "--db", str(db)]) == 1
    assert "is neither retired nor archived" in capsys.readouterr().err


def test_forget_requires_exactly_one_target(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["forget", "--scope", "caro", "--all", "--query", "x"])
    assert "not allowed with" in capsys.readouterr().err
    assert main(["forget", "--scope", "caro", "--all", "--db", str(env / "none.duckdb")]) == 2
    assert "no database" in capsys.readouterr().err


def test_consolidate_writes_the_profile_file(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from daemon import jobs
    from daemon.compose import open_memory
    from daemon.config import load_settings
    from daemon.memory import Memory

    ws = env / "ws"
    ws.mkdir()
    (ws / "USER.md").write_text("# Notes I keep\n", encoding="utf-8")
    monkeypatch.setenv("MEMUBOT_PROFILE_DIR", str(ws))
    monkeypatch.setenv("MEMUBOT_PROFILE_SCOPE", "caro")
    settings = load_settings()
    turn = {**TURNS[0], "id": "p:1", "text": "Remember that I always prefer window seats on planes."}
    assert main(["import", str(_write(env / "t.jsonl", [json.dumps(turn)])), "--quiet"]) == 0
    with open_memory(settings) as memory:
        assert isinstance(memory, Memory)
        for _ in range(10):  # used again and again: it earns the core tier
            memory.recall("window seats", "caro", k=1)
        report = jobs.consolidate(memory, settings, at=None)
    assert report["profile_updated"] is True
    text = (ws / "USER.md").read_text(encoding="utf-8")
    assert text.startswith("# Notes I keep\n") and "window seats" in text and "[ref:it_" in text
    # forgetting it removes it from the profile file too
    assert main(["forget", "--scope", "caro", "--query", "window seats"]) == 0
    assert "window seats" not in (ws / "USER.md").read_text(encoding="utf-8")
    assert (ws / "USER.md").read_text(encoding="utf-8").startswith("# Notes I keep\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["deadletters", "--db", "{db}"],
        ["deadletters", "--db", "{db}", "--json"],
        ["stats", "--db", "{db}", "--json"],
        ["recall", "support group", "--scope", "caro", "--db", "{db}"],
    ],
)
def test_output_into_a_closed_pipe_is_quiet(env: Path, argv: list[str]) -> None:
    # `memubot deadletters | head -3`: the reader leaves before memubot writes. A real process,
    # since the failure that matters includes the interpreter's own flush at exit.
    db = env / "pipe.duckdb"
    assert (
        main(["import", str(_write(env / "t.jsonl", [json.dumps(t) for t in TURNS])), "--db", str(db)]) == 0
    )
    store = Store(db)
    ledger = Ledger(store, threading.RLock())
    for i in range(200):  # more than a pipe buffer holds
        ledger.dead_letter(
            subject="memubot.in.conversation.main",
            reason="invalid JSON " + "x" * 400,
            payload=b"{broken",
            attempts=1,
            at=datetime(2024, 1, 1, tzinfo=UTC),
            event_id=f"e{i}",
        )
    store.close()
    with subprocess.Popen(
        [sys.executable, "-m", "daemon", *(a.format(db=db) for a in argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "MEMUBOT_NATS_URL": "nats://127.0.0.1:1"},
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before the first byte
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err
    assert code == 141  # 128 + SIGPIPE, as for a filter the signal stopped


def test_daemon_log_lines_carry_their_time_unless_journald_stamps_them(tmp_path: Path) -> None:
    from daemon.cli.main import LOG_FORMAT, daemon_log_format

    with (tmp_path / "stderr").open("w") as f:
        st = os.fstat(f.fileno())
        here = f"{st.st_dev}:{st.st_ino}"
        # a terminal or a file: the line says when
        assert daemon_log_format(None, f.fileno()) == "%(asctime)s " + LOG_FORMAT
        # systemd connected this very stream to the journal: journald adds the time
        assert daemon_log_format(here, f.fileno()) == LOG_FORMAT
        # inherited from a unit by a process whose stderr went elsewhere: not under journald
        assert daemon_log_format("1:2", f.fileno()) == "%(asctime)s " + LOG_FORMAT
