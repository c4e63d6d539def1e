"""Reading checklist, deliverables and scope out of a markdown spec."""

from __future__ import annotations

import pytest

from rubricate.evidence.spec import looks_like_path, parse_spec, significant_words, stem

SPEC = """\
# Add a report

Please see `docs/guide.md` and call `parse()`.

- [ ] Write the parser in `src/parse.py`
- [x] Agree on the format
* [ ] Handle empty input files gracefully

```md
- [ ] not a real item
```
<!-- - [ ] hidden item -->

## Deliverables
- `out/report.json`
- out/summary.csv with totals
- nothing here

## Scope
- `src/`
- `tests/**`

## Out of scope
- `vendor/`

Deliverable: `out/extra.json`
"""


def test_parse_spec() -> None:
    spec = parse_spec(SPEC)
    assert [(i.text, i.checked, i.line) for i in spec.checklist] == [
        ("Write the parser in `src/parse.py`", False, 5),
        ("Agree on the format", True, 6),
        ("Handle empty input files gracefully", False, 7),
    ]
    assert [i.text for i in spec.open_items] == [
        "Write the parser in `src/parse.py`",
        "Handle empty input files gracefully",
    ]
    assert spec.checklist[0].paths == ("src/parse.py",)
    assert spec.deliverables == ("out/report.json", "out/summary.csv", "out/extra.json")
    assert spec.scope == ("src/", "tests/**")
    assert spec.out_of_scope == ("vendor/",)


def test_empty_spec() -> None:
    spec = parse_spec("")
    assert spec.checklist == ()
    assert spec.deliverables == ()
    assert spec.scope == ()


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("out/x.json", True),
        ("docs/", True),
        ("*.csv", True),
        ("README.md", True),
        ("parse()", False),
        ("os.path", False),
        ("https://x.org/a.json", False),
        ("../shared/x.md", False),
        ("--fail-on", False),
        ("TODO", False),
        ("/etc/passwd", False),
    ],
)
def test_looks_like_path(token: str, expected: bool) -> None:
    assert looks_like_path(token) is expected


def test_significant_words_stem_and_split() -> None:
    assert significant_words("Handles the parsedFiles and test_cases") == [
        "handl",
        "pars",
        "test",
        "case",
    ]


@pytest.mark.parametrize(
    "family", [["handle", "handles", "handled", "handling"], ["parse", "parsing"]]
)
def test_stems_agree(family: list[str]) -> None:
    assert len({stem(word) for word in family}) == 1
