"""`rubricate ledger append|verify|show` and `rubricate reputation`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rubricate.cli.main import main
from rubricate.ledger.event import Event
from tests.ledger.factory import completed_job, event
from tests.ledger.gitutil import bare_remote, branch_files, commit_count, commit_files, git


def _write(path: Path, events: list[Event], extra: str = "") -> str:
    path.write_text("".join(e.to_line() + "\n" for e in events) + extra)
    return str(path)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote whose data branch holds two completed jobs and a rating."""
    path = bare_remote(tmp_path)
    events = completed_job(1, [4, 3, 3, 3, 5], [5, 5, 5, 5, 5])
    events += completed_job(2, [3, 3, 3, 3, 3], [4, 4, 4, 4, 4], author="bob")
    events.append(event("rated", 2, 30, "r", rating=5, author="bob", actor_role="maintain"))
    assert (
        main(["ledger", "append", "--remote", str(path), _write(tmp_path / "e.jsonl", events)]) == 0
    )
    return path


def test_append_reports_added_and_present(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    again = _write(
        tmp_path / "again.jsonl",
        [event("abandoned", 3, 1, "x"), *completed_job(1, [4, 3, 3, 3, 5], [5] * 5)],
    )
    assert main(["ledger", "append", "--remote", str(remote), again]) == 0
    assert capsys.readouterr().out.startswith("added 1, already present 2 in commit ")
    assert main(["ledger", "append", "--remote", str(remote), "--json", again]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["added"], result["present"], result["commit"]) == (0, 3, None)


def test_one_invalid_event_rejects_the_whole_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = bare_remote(tmp_path)
    bad = _write(
        tmp_path / "bad.jsonl", [event("abandoned", 1, 1, "x")], '{"kind": "rated"}\nnot json\n'
    )
    assert main(["ledger", "append", "--remote", str(path), bad]) == 2
    err = capsys.readouterr().err
    assert "line 2: " in err
    assert "line 3: not JSON" in err
    assert "no events were appended" in err
    assert commit_count(path) == 0


def test_append_reads_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = bare_remote(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(event("abandoned", 1, 1, "x").to_line() + "\n"))
    assert main(["ledger", "append", "--remote", str(path), "-"]) == 0
    assert commit_count(path) == 1


def test_verify_is_clean_then_reports_problems_by_location(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ledger", "verify", "--remote", str(remote)]) == 0
    assert "5 events in 1 shard(s): clean" in capsys.readouterr().out
    shard = branch_files(remote)["ledger/2024-03.jsonl"] + b"garbage\n"
    misplaced = event("abandoned", 9, 0, "m").to_line().encode() + b"\n"
    commit_files(
        remote,
        {"ledger/2024-03.jsonl": shard, "ledger/2020-01.jsonl": misplaced},
        tmp_path / "hand",
    )
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    out = capsys.readouterr().out
    assert "ledger/2024-03.jsonl:6: not JSON" in out
    assert "ledger/2020-01.jsonl:1: event" in out
    assert "belongs in ledger/2024-03.jsonl" in out
    assert "reputation.json: out of date" in out


def test_show_lists_events_and_one_job(remote: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["ledger", "show", "--remote", str(remote)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["at", "pr", "v", "kind", "actor", "source", "verdict", "total"]
    assert len(table) == 6
    assert main(["ledger", "show", "--remote", str(remote), "--pr", "2", "--json"]) == 0
    job = json.loads(capsys.readouterr().out)
    assert (job["author"], job["state"], job["rubric_quality"]) == (
        "bob",
        "completed",
        pytest.approx(0.575),
    )
    assert main(["ledger", "show", "--remote", str(remote), "--pr", "2"]) == 0
    assert "o/r#2 by bob: completed (gate passed)" in capsys.readouterr().out
    assert main(["ledger", "show", "--remote", str(remote), "--pr", "77"]) == 2
    assert "no events for pull request #77" in capsys.readouterr().err


def test_reputation_table_json_and_author(remote: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["reputation", "--remote", str(remote)]) == 0
    out = capsys.readouterr().out
    assert "alice" in out
    assert "bob" in out
    assert "rubric_quality" in out
    assert main(["reputation", "--remote", str(remote), "--json", "--author", "BOB"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document["repos"]["o/r"]["authors"]) == ["bob"]


def test_reputation_recompute_reports_differences(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reputation", "--remote", str(remote), "--recompute"]) == 0
    assert "matches the ledger" in capsys.readouterr().out
    document = json.loads(branch_files(remote)["reputation.json"])
    document["repos"]["o/r"]["authors"]["bob"]["reputation"] = 0.01
    commit_files(remote, {"reputation.json": json.dumps(document).encode()}, tmp_path / "hand")
    assert main(["reputation", "--remote", str(remote), "--recompute"]) == 1
    assert "differs: repos.o/r.authors.bob.reputation: 0.01 →" in capsys.readouterr().out


def test_a_plain_checkout_directory_works_offline(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = tmp_path / "checkout"
    git("clone", "--quiet", "--branch", "rubricate-data", str(remote), str(checkout))
    capsys.readouterr()
    assert main(["reputation", "--data", str(checkout), "--author", "alice"]) == 0
    assert "alice" in capsys.readouterr().out
    assert main(["ledger", "verify", "--data", str(checkout)]) == 0
    extra = _write(tmp_path / "x.jsonl", [event("abandoned", 5, 1, "x", author="carol")])
    assert main(["ledger", "append", "--data", str(checkout), extra]) == 0
    assert (checkout / "jobs" / "5.json").exists()
    assert main(["ledger", "verify", "--data", str(checkout)]) == 0
    assert main(["reputation", "--data", str(tmp_path / "nowhere")]) == 2


def test_a_config_file_sets_the_weights(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "rubricate.yml"
    weights = "completion_rate: 1, timeliness_score: 0, dispute_penalty: 0, rating_score: 0"
    config.write_text(f"reputation:\n  weights: {{{weights}, rubric_quality: 0}}\n")
    extra = _write(tmp_path / "x.jsonl", [event("abandoned", 3, 1, "x", author="bob")])
    assert main(["ledger", "append", "--remote", str(remote), "--config", str(config), extra]) == 0
    document = json.loads(branch_files(remote)["reputation.json"])
    assert document["repos"]["o/r"]["authors"]["bob"]["reputation"] == 0.5
    assert main(["ledger", "verify", "--remote", str(remote)]) == 0
    bad = tmp_path / "bad.yml"
    bad.write_text("reputation:\n  wieghts: {}\n")
    capsys.readouterr()
    assert main(["reputation", "--remote", str(remote), "--config", str(bad), "--recompute"]) == 2
    assert "bad.yml:2:" in capsys.readouterr().err


def test_reputation_without_a_branch_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reputation", "--remote", str(bare_remote(tmp_path))]) == 2
    assert "no readable reputation.json" in capsys.readouterr().err


def test_verify_fix_rebuilds_stale_derived_files_in_one_commit(
    remote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_files(remote, {"jobs/1.json": b'{"tampered":true}\n'}, tmp_path / "hand")
    before = commit_count(remote)
    capsys.readouterr()
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    assert "jobs/1.json: out of date" in capsys.readouterr().out
    assert main(["ledger", "verify", "--remote", str(remote), "--fix"]) == 0
    out = capsys.readouterr().out
    assert "jobs/1.json: out of date (rebuilt)" in out
    assert "rebuilt the derived files from the whole ledger in commit " in out
    assert out.rstrip().endswith("clean")
    assert commit_count(remote) == before + 1
    assert b"tampered" not in branch_files(remote)["jobs/1.json"]
    assert main(["ledger", "verify", "--remote", str(remote), "--fix"]) == 0
    assert "rebuilt" not in capsys.readouterr().out
    assert commit_count(remote) == before + 1


def test_verify_fix_cannot_clean_a_corrupt_line_but_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "ledger").mkdir()
    (data / "ledger" / "2024-03.jsonl").write_text(
        event("abandoned", 1, 0, "a").to_line() + "\n{x\n"
    )
    assert main(["ledger", "verify", "--data", str(data), "--fix"]) == 1
    out = capsys.readouterr().out
    assert "rebuilt the derived files from the whole ledger in place" in out
    assert "ledger/2024-03.jsonl:2: not JSON" in out
    assert "1 problem(s)" in out
    assert (data / "jobs" / "1.json").exists()
    assert "{x" in (data / "ledger" / "2024-03.jsonl").read_text()


def test_lines_end_at_newline_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    feedback = event("revision_requested", 1, 0, "a", feedback="first\u2028second\x85third")
    line = json.dumps(json.loads(feedback.to_line()), ensure_ascii=False)
    (tmp_path / "e.jsonl").write_text(line + "\r\n", encoding="utf-8")
    assert main(["ledger", "append", "--data", str(data), str(tmp_path / "e.jsonl")]) == 0
    job = json.loads((data / "jobs" / "1.json").read_text(encoding="utf-8"))
    assert job["events"][0]["feedback"] == "first\u2028second\x85third"


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ('{"s": NaN}', "line 2: not JSON (NaN is not a JSON number)"),
        ('{"s": -Infinity}', "line 2: not JSON (-Infinity is not a JSON number)"),
        ('{"s": 9}', "line 2: scores.s: 9 is outside the rubric's scale 1-5"),
        ('{"t": 3}', "line 2: scores.t: not a criterion of rubric a v3"),
        ('{"s": null}', "line 2: scores.s: null is allowed only on a nullable criterion"),
    ],
)
def test_scores_that_do_not_fit_reject_the_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scores: str, message: str
) -> None:
    rubric = '{"id": "a", "version": "3", "scale": {"min": 1, "max": 5}, '
    rubric += '"criteria": {"s": {"weight": 1}}}'
    raw = json.loads(event("first_submission", 1, 0, "a").to_line())
    line = json.dumps(raw)[:-1] + f', "rubric": {rubric}, "scores": {scores}}}'
    data = tmp_path / "data"
    data.mkdir()
    path = _write(tmp_path / "e.jsonl", [event("abandoned", 2, 0, "x")], line + "\n")
    assert main(["ledger", "append", "--data", str(data), path]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "no events were appended" in err
    assert list(data.iterdir()) == []


def test_an_append_without_config_or_cache_keeps_the_recorded_config(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    config = tmp_path / "rubricate.yml"
    config.write_text("reputation:\n  sla_hours: 7\n")
    first = _write(tmp_path / "a.jsonl", completed_job(1, [4] * 5, [5] * 5))
    assert main(["ledger", "append", "--data", str(data), "--config", str(config), first]) == 0
    for item in sorted((data / ".rubricate").rglob("*"), reverse=True):
        item.unlink() if item.is_file() else item.rmdir()
    later = _write(tmp_path / "b.jsonl", [event("rated", 1, 30, "r", rating=3)])
    assert main(["ledger", "append", "--data", str(data), later]) == 0
    assert json.loads((data / "reputation.json").read_text())["config"]["sla_hours"] == 7
    assert main(["ledger", "verify", "--data", str(data)]) == 0
