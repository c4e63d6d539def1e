"""Arbitrary changes, specs and patches never crash the checks (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rubricate.cli.rubric_cmd import resolve_rubric
from rubricate.config import Config, Deliverable
from rubricate.evidence.autoscore import auto_score
from rubricate.evidence.render import render_markdown, render_table
from rubricate.evidence.results import report_json
from rubricate.evidence.snapshot import FileChange, Snapshot
from rubricate.evidence.spec import parse_spec

NAMES = st.sampled_from(
    [
        "a.py",
        "t/test_a.py",
        "out/r.json",
        "c.yml",
        "p.toml",
        "d.md",
        "x.csv",
        "requirements.txt",
        "b",
    ]
)
TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)
CONTENT = st.one_of(st.none(), st.binary(max_size=40), TEXT.map(str.encode))


@st.composite
def changes(draw: st.DrawFn) -> FileChange:
    lines = draw(
        st.lists(
            st.sampled_from(["+", "-", " ", "\\", "@@ -1 +1,2 @@", ""]).flatmap(
                lambda head: TEXT.map(lambda tail: head + tail.replace("\n", " "))
            ),
            max_size=8,
        )
    )
    return FileChange(
        path=draw(NAMES),
        status=draw(st.sampled_from(["added", "modified", "deleted", "renamed", "typechange"])),
        patch="\n".join(lines),
        old_path=draw(st.none() | NAMES),
        binary=draw(st.booleans()),
        symlink=draw(st.booleans()),
        size=draw(st.none() | st.integers(0, 3_000_000)),
        content=draw(CONTENT),
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(changes(), max_size=6, unique_by=lambda c: c.path), TEXT, TEXT)
def test_scoring_arbitrary_changes_never_crashes(
    items: list[FileChange], spec: str, body: str
) -> None:
    snapshot = Snapshot(
        base_sha="b" * 40,
        head_sha="h" * 40,
        spec="- [ ] " + spec,
        body=body,
        changes=tuple(items),
        head_paths=frozenset(c.path for c in items if c.status != "deleted"),
    )
    config = Config(deliverables=(Deliverable(glob="out/*.json", schema={"type": "object"}),))
    report = auto_score(snapshot, resolve_rubric("agora-v3"), config)
    assert report.result.verdict in ("pass", "fail", "incomplete")
    render_markdown(report)
    render_table(report)
    report_json(report)


@given(st.text(max_size=300))
def test_any_spec_text_parses(text: str) -> None:
    spec = parse_spec(text)
    assert all(item.line >= 1 for item in spec.checklist)
