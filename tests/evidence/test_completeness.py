"""The completeness heuristics over real git changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.evidence import file_kinds as kinds
from rubricate.evidence.completeness import completeness_check
from rubricate.evidence.results import CheckResult
from rubricate.evidence.spec import parse_spec

from .gitrepo import FileValue, snapshot_of

BASE: dict[str, FileValue] = {"README.md": "# p\n", "src/old.py": "# TODO: old debt\nx = 1\n"}


def check(tmp_path: Path, head: dict[str, FileValue], *, spec: str = "") -> CheckResult:
    snap = snapshot_of(tmp_path, BASE, head, spec=spec)
    return completeness_check(snap, parse_spec(spec))


def found(result: CheckResult) -> list[tuple[str | None, int | None, str]]:
    return [(f.path, f.line, f.severity) for f in result.findings]


def test_clean_change(tmp_path: Path) -> None:
    result = check(tmp_path, {"src/new.py": "def f() -> int:\n    return 1\n"})
    assert (result.status, result.value, result.findings) == ("pass", 1.0, ())


def test_markers_only_count_on_added_lines(tmp_path: Path) -> None:
    result = check(
        tmp_path,
        {
            "src/old.py": "# TODO: old debt\nx = 2\n",
            "src/new.py": "x = 1  # FIXME later\ny = 2  # XXX\n# todo in lower case is prose\n",
            "docs/a.md": "This is a placeholder section.\n",
            "web/form.html": '<input placeholder="name">\n',
            "tests/test_a.py": "stub = object()\n",
        },
    )
    assert found(result) == [("src/new.py", 1, "warning"), ("src/new.py", 2, "warning")]
    assert [f.kind for f in result.findings] == ["certain", "note"]  # an XXX may be a warning
    assert result.value == pytest.approx(0.8)


def test_not_implemented_and_empty_bodies(tmp_path: Path) -> None:
    code = (
        "from abc import ABC, abstractmethod\n"
        "from typing import Protocol\n\n"
        "def todo():\n    pass\n\n"
        "def later():\n    '''Docs.'''\n    ...\n\n"
        "def fine():\n    return 1\n\n"
        "def boom():\n    raise NotImplementedError\n\n"
        "class Base(ABC):\n    @abstractmethod\n    def run(self):\n        pass\n\n"
        "class Shape(Protocol):\n    def area(self) -> float: ...\n\n"
        "class Impl:\n    def work(self):\n        pass\n"
    )
    result = check(tmp_path, {"src/mod.py": code, "src/types.pyi": "def f() -> int: ...\n"})
    assert [(f.line, f.message) for f in result.findings] == [
        (15, "not implemented: raise NotImplementedError"),
        (4, "function todo() has an empty body"),
        (7, "function later() has an empty body"),
        (26, "method work() has an empty body (a hook or no-op override?)"),
    ]
    assert [f.kind for f in result.findings] == ["certain", "certain", "certain", "note"]
    assert result.value == pytest.approx(0.25)  # the note cannot take it below 0.25


def test_empty_and_truncated_files(tmp_path: Path) -> None:
    result = check(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/empty.py": "",
            "data/cut.json": '{"a": [1, 2,',
            "src/cut.js": "function f(a, b) {\n  return [a, b",
            "src/ok.js": "const x = 'it''s fine'; // don't (count)",
            "notes.md": "no newline at the end (fine for prose",
        },
    )
    assert [(f.path, f.message) for f in result.findings] == [
        ("data/cut.json", "truncated? the file ends without a newline after ','"),
        ("src/cut.js", "truncated? the file ends without a newline inside 2 open bracket(s)"),
        ("src/empty.py", "the file is empty"),
    ]


def test_python_that_does_not_parse(tmp_path: Path) -> None:
    result = check(tmp_path, {"src/cut.py": "def f(x):\n    return (x +\n"})
    assert found(result) == [("src/cut.py", 2, "warning")]
    assert result.findings[0].message.startswith("Python file does not parse")
    assert result.findings[0].kind == "note"  # newer syntax than this interpreter's fails too
    assert result.value == 0.75


def test_open_spec_items_need_a_matching_change(tmp_path: Path) -> None:
    spec = (
        "- [ ] Parse the config file in `src/config.py`\n"
        "- [ ] Validate timestamps of events\n"
        "- [ ] Document the command line\n"
        "- [x] Already done elsewhere\n"
    )
    head = {
        "src/config.py": "def load(path):\n    return open(path).read()\n",
        "src/events.py": "def validate_timestamp(event):\n    return event.at is not None\n",
    }
    result = check(tmp_path, head, spec=spec)
    assert [f.message for f in result.findings] == [
        "spec item not addressed by the change: Document the command line"
    ]
    assert result.value == pytest.approx(1 - 0.6 / 3)
    assert result.evidence[-1] == "2 of 3 open spec checklist items have a matching change"


def test_empty_change_scores_zero(tmp_path: Path) -> None:
    result = check(tmp_path, {})
    assert (result.status, result.value) == ("fail", 0.0)


def test_findings_per_file_are_capped(tmp_path: Path) -> None:
    result = check(tmp_path, {"src/many.py": "".join(f"x{i} = 1  # TODO\n" for i in range(15))})
    assert len(result.findings) == 11
    assert result.findings[-1].message == "... and 5 more"
    assert result.value == 0.0


def test_an_open_bracket_in_markup_is_not_truncation(tmp_path: Path) -> None:
    page = "<p>Read (the intro</p>\n{% block footer %}{% endblock %}"
    assert check(tmp_path / "a", {"docs/home.html": page}).findings == ()
    code = "const f = (a, b\n"
    result = check(tmp_path / "b", {"src/cut.js": code.rstrip("\n")})
    assert [f.rule for f in result.findings] == ["truncated"]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("proto/api.proto", "message A {\n  string a = 1;"),
        ("infra/main.tf", 'resource "x" "y" {\n  name = "a",'),
        ("src/app.css", ".a {\n  color: red;"),
        ("src/App.m", "- (void)f {\n  [self g:"),
        ("src/Main.groovy", "def f() {\n  g("),
    ],
)
def test_an_open_bracket_at_the_end_of_code_of_any_language_is_truncation(
    tmp_path: Path, path: str, text: str
) -> None:
    assert [f.rule for f in check(tmp_path, {path: text}).findings] == ["truncated"]


def test_a_stand_in_in_a_template_is_its_slot(tmp_path: Path) -> None:
    prompt = "Task: {{ task }}\nResult: [Your concise result here]\n"
    assert check(tmp_path / "a", {"prompts/task.txt": prompt}).findings == ()
    letter = "Dear team,\nResult: [Your concise result here]\n"
    result = check(tmp_path / "b", {"docs/letter.txt": letter})
    assert [f.rule for f in result.findings] == ["placeholder-text"]
    line_slot = "const greet = `Hello ${name}, [your name here]`;\n"
    assert check(tmp_path / "c", {"src/greet.js": line_slot}).findings == ()


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("src/a.js", "const greet = `Hello ${name}`;\nconst email = '<insert email here>';\n"),
        ("docs/guide.md", "# Guide\n\nLorem ipsum dolor sit amet.\n\n```sh\necho ${HOME}\n```\n"),
        ("prompts/task.txt", "Task: {{ task }}\nLorem ipsum dolor sit amet.\n"),
    ],
)
def test_a_stand_in_outside_a_template_or_lorem_ipsum_anywhere_is_placeholder_text(
    tmp_path: Path, path: str, text: str
) -> None:
    assert [f.rule for f in check(tmp_path, {path: text}).findings] == ["placeholder-text"]


HOOKS = (
    "class Callback:\n"
    '    def on_start(self, call_id):\n        """Called first."""\n        pass\n\n'
    "    def on_end(self, call_id):\n        pass\n"
)


def test_a_class_of_empty_hooks_is_an_interface(tmp_path: Path) -> None:
    assert check(tmp_path / "a", {"src/callback.py": HOOKS}).findings == ()
    worker = HOOKS + "\n    def run(self):\n        return 1\n"
    result = check(tmp_path / "b", {"src/callback.py": worker})
    assert [f.rule for f in result.findings] == ["empty-body", "empty-body"]
    plain = HOOKS.replace("Callback", "Events").replace('        """Called first."""\n', "")
    subclassed = (
        plain + "\n\nclass Printer(Events):\n    def on_end(self, call_id):\n        print(1)\n"
    )
    assert check(tmp_path / "c", {"src/events.py": subclassed}).findings == ()


def test_a_new_class_of_empty_methods_is_unfinished(tmp_path: Path) -> None:
    payment = (
        "class PaymentProcessor:\n    def charge(self, amount):\n        pass\n\n"
        "    def refund(self, charge_id):\n        pass\n"
    )
    result = check(tmp_path, {"src/pay.py": payment})
    assert [f.rule for f in result.findings] == ["empty-body", "empty-body"]


OLD_TODO = "x = 1\n# TODO: remove this method, use the terminate states instead\n"


def test_a_re_wrapped_todo_is_moved_not_added(tmp_path: Path) -> None:
    old = OLD_TODO
    base: dict[str, FileValue] = {**BASE, "src/guide.py": old}
    wrapped = "x = 1\n# TODO: remove this method, use the\n# terminate states instead\n"
    moved = snapshot_of(tmp_path / "a", base, {"src/guide.py": None, "src/new/guide.py": wrapped})
    assert completeness_check(moved, parse_spec("")).findings == ()
    fresh = "x = 1\n# TODO: support floats here as well\n"
    added = snapshot_of(tmp_path / "b", base, {"src/new/guide.py": fresh})
    assert [f.rule for f in completeness_check(added, parse_spec("")).findings] == ["todo-marker"]


def test_one_removed_todo_covers_one_re_wrapped_line(tmp_path: Path) -> None:
    base: dict[str, FileValue] = {**BASE, "src/a.py": "x = 1\n# TODO: not done yet\n"}
    parts = "".join(f"# TODO: not done yet: part {i}\ny{i} = 0\n" for i in range(5))
    snapshot = snapshot_of(tmp_path / "a", base, {"src/a.py": "x = 1\n", "src/b.py": parts})
    assert len(completeness_check(snapshot, parse_spec("")).findings) == 4
    cut = "x = 1\n# TODO: remove this method, use the\ny = 2\n"
    snapshot = snapshot_of(tmp_path / "b", base | {"src/g.py": OLD_TODO}, {"src/g.py": cut})
    assert [f.rule for f in completeness_check(snapshot, parse_spec("")).findings] == [
        "todo-marker"
    ]


def test_an_xxx_is_certain_only_when_it_names_work_left(tmp_path: Path) -> None:
    code = (
        "package m\n\n// XXX: Meta and Super are swapped in this protocol.\nconst A = 1\n"
        "// TODO: map the keypad keys\nconst B = 2\n// FIXME: racy\nconst C = 3\n"
        "// XXX: not implemented yet, returns a fake value\nconst D = 4\n"
        "// XXX: Investigate the names of these keys.\nconst E = 5\n"
        "// XXX: this keeps the order of the old protocol\nconst F = 6\n"
    )
    result = check(tmp_path, {"src/mod.go": code})
    assert [(f.line, f.kind, f.rule) for f in result.findings] == [
        (3, "note", "todo-marker"),
        (5, "certain", "todo-marker"),
        (7, "certain", "todo-marker"),
        (9, "certain", "todo-marker"),
        (11, "certain", "todo-marker"),
        (13, "note", "todo-marker"),
    ]


def test_not_implemented_in_a_test_double_nested_in_a_test_is_no_finding(tmp_path: Path) -> None:
    doubles = (
        "def test_handlers():\n    async def receive():\n        raise NotImplementedError\n\n"
        "    app(receive)\n"
    )
    assert check(tmp_path / "a", {"tests/test_app.py": doubles}).findings == ()
    unfinished = "def test_later():\n    raise NotImplementedError\n"
    result = check(tmp_path / "b", {"tests/test_app.py": unfinished})
    assert [(f.line, f.kind) for f in result.findings] == [(2, "note")]
    nested_source = (
        "def outer():\n    def inner():\n        raise NotImplementedError\n    return inner\n"
    )
    result = check(tmp_path / "c", {"src/outer.py": nested_source})
    assert [(f.line, f.kind) for f in result.findings] == [(3, "certain")]


def test_golden_or_snapshot_output_may_end_inside_brackets(tmp_path: Path) -> None:
    screen = "\x1b[?1049h\x1b[?25l\x1b[1;1Hloading ["
    head = {
        "testdata/TestView/alt.golden": screen,
        "pkg/testdata/view.ansi": screen,
        "src/__snapshots__/view.test.ts.snap": "exports[`view 1`] = `\n[",
        "src/view.golden": screen,
    }
    assert check(tmp_path / "a", head).findings == ()


@pytest.mark.parametrize(
    "path",
    ["tests/fixtures/user.json", "testdata/user.yaml", "src/golden/compare.go", "fixtures/a.ts"],
)
def test_source_code_and_data_in_fixture_folders_are_flagged_when_cut(
    tmp_path: Path, path: str
) -> None:
    cut = '{"name": "a", "roles": ["admin",' if kinds.structured_kind(path) else "f(a,"
    assert [f.rule for f in check(tmp_path, {path: cut}).findings] == ["truncated"]


def test_terraform_module_files_may_be_added_empty_and_other_files_may_not(
    tmp_path: Path,
) -> None:
    head = {
        "modules/eks/variables.tf": "",
        "modules/eks/outputs.tf": "",
        "modules/eks/main.tf": "",
        "modules/eks/eks.tf": 'resource "aws_eks_cluster" "this" {}\n',
    }
    assert check(tmp_path / "a", head).findings == ()
    result = check(tmp_path / "b", {"modules/eks/iam.tf": "", "src/variables.py": ""})
    assert [(f.path, f.rule) for f in result.findings] == [
        ("modules/eks/iam.tf", "empty-file"),
        ("src/variables.py", "empty-file"),
    ]


TF = 'resource "aws_s3_bucket" "b" {\n  bucket = var.name\n}\n'


def test_an_emptied_or_lone_terraform_main_file_is_flagged(tmp_path: Path) -> None:
    base = {"README.md": "# p\n", "main.tf": TF, "variables.tf": 'variable "name" {}\n'}
    emptied = snapshot_of(tmp_path / "a", base, {"main.tf": ""})
    assert [f.rule for f in completeness_check(emptied, parse_spec("")).findings] == ["empty-file"]
    lone = {"modules/s3/main.tf": "", "modules/s3/variables.tf": 'variable "n" {}\n'}
    result = check(tmp_path / "b", lone)
    assert [(f.path, f.rule) for f in result.findings] == [("modules/s3/main.tf", "empty-file")]


def test_vendored_code_in_a_library_folder_of_root_deps_is_not_scanned(tmp_path: Path) -> None:
    todo = "int f(void) { return 1; /* TODO: handle the error */ }\n"
    head = {
        "deps/pcre2/pcre2_compile.c": todo,
        "src/deps/own.c": todo,
        "deps/build.jl": "# TODO: Windows\n",
    }
    result = check(tmp_path, head)
    assert sorted((f.path, f.rule, f.kind) for f in result.findings) == [
        ("deps/build.jl", "todo-marker", "certain"),
        ("src/deps/own.c", "todo-marker", "certain"),
    ]


def test_a_marker_in_a_test_helper_keeps_its_source_severity(tmp_path: Path) -> None:
    todo = "// TODO: flush effects\nexport function act(cb) { cb() }\n"
    result = check(tmp_path, {"packages/react-dom/test-utils.js": todo, "src/a.test.js": todo})
    assert sorted((f.path, f.kind) for f in result.findings) == [
        ("packages/react-dom/test-utils.js", "certain"),
        ("src/a.test.js", "note"),
    ]
