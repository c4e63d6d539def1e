"""Held-out attacks on `ledger resign` and the signed ledger (real bare repositories, the CLI).

`resign` adds a signature only to a line that rubricate's own commits wrote and that is still
as written: a line edited, moved, copied, merged in from another history or corrupted stays
unsigned, so with the key the gate never uses it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rubricate.bot.jobstate import job_state
from rubricate.cli.main import main
from rubricate.ledger.backends import DataBranchStore
from rubricate.ledger.event import Event
from rubricate.ledger.paths import job_paths
from rubricate.ledger.store import job_file_events
from rubricate.ledger.trust import KEY_ENV, refusal, signed
from tests.ledger.factory import AGORA_IDS, completed_job, event, scored
from tests.ledger.gitutil import BRANCH, bare_remote, branch_files, commit_files, git

KEY = b"k" * 32
SHARD = "ledger/2024-03.jsonl"
EARLIER = "ledger/2024-01.jsonl"
FAILING = scored("approved", 1, 2, "comment:7#0", [1] * 5, verdict="fail")
"""The bot's own approval of PR #1, which fails the rubric: the gate stays red."""
Tamper = Callable[[bytes, bytes], dict[str, bytes]]
PASSING_MEMBERS = f'"scores": {json.dumps(dict.fromkeys(AGORA_IDS, 5))}, "verdict": "pass"'.encode()
"""JSON members that, repeated after an approval's own, make it a passing one (the last wins)."""


def _bot_ledger(remote: Path) -> bytes:
    """Rubricate's own commits (no key yet): PR #1 submitted and approved with a failing total."""
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
        store.append([FAILING])
    shard = branch_files(remote)[SHARD]
    (line,) = [x for x in shard.split(b"\n") if FAILING.id.encode() in x]
    return line


def _edited(shard: bytes, line: bytes) -> dict[str, bytes]:
    passing = scored("approved", 1, 2, "comment:7#0", [5] * 5, verdict="pass")
    assert passing.id == FAILING.id
    return {SHARD: shard.replace(line, passing.to_line().encode())}


def _moved(shard: bytes, line: bytes) -> dict[str, bytes]:
    return {SHARD: shard.replace(line + b"\n", b""), EARLIER: line + b"\n"}


def _re_spaced(shard: bytes, line: bytes) -> dict[str, bytes]:
    return {SHARD: shard.replace(line, b"{ " + line[1:])}


def _with_a_bad_signature(shard: bytes, line: bytes) -> dict[str, bytes]:
    forged = FAILING.model_copy(update={"verdict": "pass", "sig": "hmac-sha256:" + "0" * 64})
    return {SHARD: shard.replace(line, forged.to_line().encode())}


def _keys_reordered(shard: bytes, line: bytes) -> dict[str, bytes]:
    values = json.loads(line)
    return {SHARD: shard.replace(line, json.dumps(dict(reversed(values.items()))).encode())}


def _passed_by_a_duplicate_key(shard: bytes, line: bytes) -> dict[str, bytes]:
    return {SHARD: shard.replace(line, line[:-1] + b"," + PASSING_MEMBERS + b"}")}


def _nested_duplicate_keys(shard: bytes, line: bytes) -> dict[str, bytes]:
    """Passing scores, then the original ones as repeated keys of the same `scores` object: the
    same event (the last member wins), in other words."""
    inner = json.dumps(dict.fromkeys(AGORA_IDS, 5))[1:-1].encode()
    return {
        SHARD: shard.replace(line, line.replace(b'"scores": {', b'"scores": {' + inner + b", "))
    }


def _respelled(old: bytes, new: bytes) -> Tamper:
    """The same event, the last `old` of its line written `new` (JSON that decodes equal)."""

    def tamper(shard: bytes, line: bytes) -> dict[str, bytes]:
        head, _, tail = line.rpartition(old)
        return {SHARD: shard.replace(line, head + new + tail)}

    return tamper


TAMPERS: dict[str, Tamper] = {
    "a carriage return after it": _respelled(b"}", b"}\r"),
    "a trailing space": _respelled(b"}", b"} "),
    "an escaped character": _respelled(b'"kind": "approved"', b'"kind": "\\u0061pproved"'),
    "a number written 1e0": _respelled(b'"pr": 1,', b'"pr": 1e0,'),
    "a number written 1.0": _respelled(b'"pr": 1,', b'"pr": 1.0,'),
    "duplicate keys in a nested object": _nested_duplicate_keys,
    "a field edited": _edited,
    "keys reordered, the same event": _keys_reordered,
    "a duplicate key after the original that passes it": _passed_by_a_duplicate_key,
    "moved to another shard": _moved,
    "re-spaced, the same event": _re_spaced,
    "a made-up signature": _with_a_bad_signature,
}


def _passing_approval_stands(remote: Path) -> bool:
    """Whether the next run, with the key, sees a passing approval of PR #1."""
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append([event("abandoned", 3, 2, "next-run")])
        paths = job_paths("o/r", 1)
        files = store.read_files(lambda p: p in paths)
    approval = job_state(job_file_events(files, "o/r", 1, KEY), "o/r", 1).approval
    return approval is not None and approval.verdict == "pass"


def _signed_ids(remote: Path) -> set[str]:
    found = set()
    for path, data in branch_files(remote).items():
        if path.startswith("ledger/"):
            for line in data.split(b"\n"):
                try:
                    parsed = Event.model_validate_json(line)
                except ValueError:
                    continue
                if refusal(parsed, KEY) is None:
                    found.add(parsed.id)
    return found


@pytest.mark.parametrize("how", sorted(TAMPERS))
def test_resign_never_signs_a_bot_line_changed_by_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    line = _bot_ledger(remote)
    commit_files(remote, TAMPERS[how](branch_files(remote)[SHARD], line), work, how)
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    assert "left unsigned: 1 line(s)" in capsys.readouterr().out
    assert FAILING.id not in _signed_ids(remote)
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    assert not _passing_approval_stands(remote)


def test_resign_never_signs_lines_merged_in_from_another_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another data branch's lines (another repository's, or a copy's) brought in by a merge
    commit: what the merge added against its first parent is the merger's, whoever wrote it."""
    remote, other = bare_remote(tmp_path), bare_remote(tmp_path, "other.git")
    _bot_ledger(remote)
    approval = scored("approved", 1, 3, "comment:8#0", [5] * 5, verdict="pass")
    with DataBranchStore(str(other)) as store:
        store.append([approval])
    work = tmp_path / "work"
    git("clone", "--quiet", "--branch", BRANCH, str(remote), str(work))
    git("fetch", "--quiet", str(other), f"{BRANCH}:other", cwd=work)
    union = branch_files(remote)[SHARD] + branch_files(other)[SHARD]
    merge = ("merge", "--quiet", "--allow-unrelated-histories", "-s", "ours", "-m", "m", "other")
    git(*merge, cwd=work)
    (work / SHARD).write_bytes(union)
    git("commit", "--quiet", "--amend", "-am", "merge the other ledger", cwd=work)
    git("push", "--quiet", "origin", BRANCH, cwd=work)
    assert approval.id.encode() in branch_files(remote)[SHARD]
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    assert "left unsigned: 1 line(s)" in capsys.readouterr().out
    assert approval.id not in _signed_ids(remote)
    assert not _passing_approval_stands(remote)


def test_a_corrupt_line_is_kept_byte_for_byte_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    line = _bot_ledger(remote)
    torn = line[: len(line) // 2]
    commit_files(remote, {SHARD: branch_files(remote)[SHARD] + torn + b"\n"}, work, "torn")
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    capsys.readouterr()
    assert torn + b"\n" in branch_files(remote)[SHARD]
    assert FAILING.id in _signed_ids(remote)  # the bot's own line, as written: signed
    assert main(["ledger", "verify", "--remote", str(remote)]) == 1
    assert f"{SHARD}:" in capsys.readouterr().out


@pytest.mark.parametrize("key", [None, "short"])
def test_resign_without_a_usable_key_is_a_clear_error_and_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str | None,
) -> None:
    remote = bare_remote(tmp_path)
    _bot_ledger(remote)
    before = git("rev-parse", BRANCH, cwd=remote)
    monkeypatch.delenv(KEY_ENV, raising=False)
    if key is not None:
        monkeypatch.setenv(KEY_ENV, key)
    assert main(["ledger", "resign", "--remote", str(remote)]) == 2
    err = capsys.readouterr().err
    assert KEY_ENV in err or "ledger key" in err
    assert "Traceback" not in err
    assert git("rev-parse", BRANCH, cwd=remote) == before


def test_a_line_signed_with_another_key_is_refused_and_not_re_signed_when_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A passing approval signed in another repository that uses another key, copied here."""
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    _bot_ledger(remote)
    elsewhere = scored("approved", 1, 3, "comment:9#0", [5] * 5, verdict="pass")
    other = bare_remote(tmp_path, "other.git")
    with DataBranchStore(str(other), key=b"o" * 32) as store:
        store.append([elsewhere])
    (copied,) = [x for x in branch_files(other)[SHARD].split(b"\n") if b"comment:9" in x]
    commit_files(remote, {SHARD: branch_files(remote)[SHARD] + copied + b"\n"}, work, "copy")
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    assert "left unsigned: 1 line(s)" in capsys.readouterr().out
    assert elsewhere.id not in _signed_ids(remote)
    assert not _passing_approval_stands(remote)


@pytest.mark.parametrize("how", ["another key", "edited after signing"])
def test_append_with_the_key_never_signs_a_line_signed_otherwise(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
) -> None:
    """An exported line signed under another key, or edited after it was signed, given to
    `ledger append` with the key: refused, nothing appended (signing it would vouch for it)."""
    remote = bare_remote(tmp_path)
    _bot_ledger(remote)
    before = branch_files(remote)
    passing = scored("approved", 1, 3, "comment:9#0", [5] * 5, verdict="pass")
    if how == "another key":
        given = signed(passing, b"o" * 32)
    else:
        failing = scored("approved", 1, 3, "comment:9#0", [1] * 5, verdict="fail")
        given = signed(failing, KEY).model_copy(
            update={"scores": passing.scores, "verdict": "pass"}
        )
    lines = tmp_path / "events.jsonl"
    lines.write_text(given.to_line() + "\n", encoding="utf-8")
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "append", "--remote", str(remote), str(lines)]) != 0
    err = capsys.readouterr().err
    assert "does not match the ledger key" in err
    assert "Traceback" not in err
    assert branch_files(remote) == before
    unsigned = tmp_path / "unsigned.jsonl"
    unsigned.write_text(passing.to_line() + "\n", encoding="utf-8")
    assert main(["ledger", "append", "--remote", str(remote), str(unsigned)]) == 0
    assert passing.id in _signed_ids(remote)


@pytest.mark.parametrize("where", ["after", "before"])
def test_with_a_key_a_duplicate_key_never_turns_a_signed_approval_into_a_pass(
    tmp_path: Path, where: str
) -> None:
    """The bot's signed, failing approval given passing `scores` and `verdict` a second time in
    the same line: every reader takes the last member (as the signature check does), so the
    members after it break the signature and the members before it are overridden by it."""
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    with DataBranchStore(str(remote), key=KEY) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
        store.append([FAILING])
    shard = branch_files(remote)[SHARD]
    (line,) = [x for x in shard.split(b"\n") if FAILING.id.encode() in x]
    if where == "after":
        forged = line[:-1] + b"," + PASSING_MEMBERS + b"}"
    else:
        forged = b"{" + PASSING_MEMBERS + b"," + line[1:]
    commit_files(remote, {SHARD: shard.replace(line, forged)}, work, f"duplicate {where}")
    assert not _passing_approval_stands(remote)


def _approved_then_withdrawn(remote: Path, between: Callable[[], object] = lambda: None) -> Event:
    """Rubricate's commits: a passing approval of PR #1, then (after `between`) a revision
    request that withdraws it, in a commit of its own (returned)."""
    passing = scored("approved", 1, 2, "comment:7#0", [5] * 5, verdict="pass")
    request = event("revision_requested", 1, 3, "review:8")
    with DataBranchStore(str(remote)) as store:
        store.append(completed_job(1, [3] * 5, [3] * 5)[:1])
        store.append([passing])
    between()
    with DataBranchStore(str(remote)) as store:
        store.append([request])
    return request


def _assert_resign_signs_the_bot_s_request(
    remote: Path,
    request: Event,
    mp: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    unsigned: int = 0,
) -> None:
    """`ledger resign` leaves `unsigned` lines and signs the bot's `request`: it withdraws."""
    mp.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    assert f"left unsigned: {unsigned} line(s)" in capsys.readouterr().out
    assert request.id in _signed_ids(remote)
    assert not _passing_approval_stands(remote)


@pytest.mark.parametrize("into", [EARLIER, SHARD])
def test_a_copy_of_a_bot_line_never_keeps_resign_from_signing_the_bot_s_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], into: str
) -> None:
    """The bot's revision request, which withdraws a passing approval, copied by hand (into
    another shard, or the same one): the copy is not the bot's and stays unsigned, but the line
    the bot wrote is signed all the same, so the request still withdraws the approval. Were
    both left unsigned, a copy would delete the request from every keyed reader's view."""
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    request = _approved_then_withdrawn(remote)
    shard = branch_files(remote)[SHARD]
    (line,) = [x for x in shard.split(b"\n") if request.id.encode() in x]
    copied = {into: (shard if into == SHARD else b"") + line + b"\n"}
    commit_files(remote, copied, work, "copy the request")
    _assert_resign_signs_the_bot_s_request(remote, request, monkeypatch, capsys, unsigned=1)


def test_a_merge_that_changes_nothing_never_takes_the_bot_s_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A merge of the commit before the bot's withdrawal and the withdrawal itself, with the
    withdrawal's tree: it changes no file, so what it adds against its first parent is the
    bot's commit's, reached through its second parent, and is signed as the bot's."""
    remote = bare_remote(tmp_path)
    request = _approved_then_withdrawn(remote)
    tree = git("rev-parse", f"{BRANCH}^{{tree}}", cwd=remote)
    merge = git("commit-tree", tree, "-p", f"{BRANCH}^", "-p", BRANCH, "-m", "m", cwd=remote)
    git("update-ref", f"refs/heads/{BRANCH}", merge, cwd=remote)
    _assert_resign_signs_the_bot_s_request(remote, request, monkeypatch, capsys)


def test_a_maintainer_s_pull_merge_never_takes_the_bot_s_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A maintainer edits README.md one bot commit behind and pulls with a merge: the bot's
    withdrawal comes in through the merge's second parent and is still the bot's."""
    remote, work = bare_remote(tmp_path), tmp_path / "work"
    clone = ("clone", "--quiet", "--branch", BRANCH, str(remote), str(work))
    request = _approved_then_withdrawn(remote, lambda: git(*clone))
    (work / "README.md").write_text("the data branch\n", encoding="utf-8")
    git("add", "README.md", cwd=work)
    git("commit", "--quiet", "-m", "readme", cwd=work)
    git("pull", "--quiet", "--no-rebase", "--no-edit", "origin", BRANCH, cwd=work)
    git("push", "--quiet", "origin", BRANCH, cwd=work)
    assert len(git("rev-parse", f"{BRANCH}^@", cwd=remote).split()) == 2
    _assert_resign_signs_the_bot_s_request(remote, request, monkeypatch, capsys)


def test_another_history_joined_to_this_one_by_a_side_merge_stays_the_merger_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another data branch's bot commits made the first parent of a side merge whose second
    parent is this branch's first commit, and that side merge merged in: the side merge is of
    this branch's history, the other branch's commits are not, so its lines are the side
    merge's, never the bot's."""
    remote, other = bare_remote(tmp_path), bare_remote(tmp_path, "other.git")
    _bot_ledger(remote)
    approval = scored("approved", 1, 3, "comment:8#0", [5] * 5, verdict="pass")
    with DataBranchStore(str(other)) as store:
        store.append([approval])
    git("fetch", "--quiet", str(other), f"{BRANCH}:other", cwd=remote)
    root = git("rev-list", "--max-parents=0", BRANCH, cwd=remote)
    side = git("commit-tree", "other^{tree}", "-p", "other", "-p", root, "-m", "s", cwd=remote)
    work = tmp_path / "work"
    git("clone", "--quiet", "--branch", BRANCH, str(remote), str(work))
    git("fetch", "--quiet", "origin", side, cwd=work)
    git("merge", "--quiet", "-s", "ours", "--no-edit", side, cwd=work)
    union = branch_files(remote)[SHARD] + branch_files(other)[SHARD]
    (work / SHARD).write_bytes(union)
    git("commit", "--quiet", "--amend", "-am", "merge the side line", cwd=work)
    git("push", "--quiet", "origin", BRANCH, cwd=work)
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert main(["ledger", "resign", "--remote", str(remote)]) == 0
    assert approval.id not in _signed_ids(remote)
    assert not _passing_approval_stands(remote)
