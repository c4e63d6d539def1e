"""Which changed lines are code: edits that leave the code as it was are not code changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubricate.evidence.code_lines import changes_code, code_part, comment_style

from .gitrepo import FileValue, snapshot_of

GO = (
    "package m\n\nfunc f() {\n"
    '\tresp, err := do(req) //nolint:gosec // self-sabatoge\n\t_ = "a // b"\n}\n'
)
FETCH = "export const u = fetch('https://x/api/v1');\n"
RS_VERSION = 'pub const VERSION: &str = "1.0";\n'
LOOP = "def f(items):\n    for i in items:\n        process(i)\n        save()\n"
EX = (
    'defmodule M do\n  @moduledoc """\n  Sends a chunked response.\n  """\n\n'
    '  @doc ~S"""\n  Encodes a cookie.\n  """\n  def encode(k), do: k\n\n'
    '  def page, do: """\n  Hello\n  """\nend\n'
)
RS_DOC = '#![doc(\n    html_root_url = "https://docs.rs/a/0.4.24"\n)]\nfn f() {}\n'
RS_CFG = '#![cfg_attr(\n    feature = "std",\n    allow(dead_code)\n)]\nfn f() {}\n'
RET = "def f():\n    log()\n    return (\n        '''abc'''\n        '''def'''\n    )\n"
CALL = "def f():\n    log()\n    print(\n        '''Hello'''\n    )\n"
SIGNATURE = '"""Module."""\n\n\ndef f(\n    a: int,\n) -> int:\n    """Does f."""\n    return a\n'
RS_HIDDEN = "#[doc(hidden)] pub fn f(\n    a: u8,\n) -> u8 {\n    a\n}\n"
RS_OWN_LINE = RS_HIDDEN.replace("] pub", "]\npub")
EX_DOC = 'defmodule M do\n  @doc """\n  Encodes.\n  """\n  def encode(k), do: k\nend\n'
JL_DOC = (
    '"""\n    groupby(d::AbstractDataFrame, cols)\n\nGroup the rows.\n"""\n'
    "groupby(df, cols) = group(df, cols)\n\n"
    'function usage()\n    """\n    usage: m\n    """\nend\n'
)
PY_DOC = 'def f():\n    """\n    Does f.\n    """\n    log()\n    return 1\n\n\nX = """\nrow\n"""\n'


def changed(tmp_path: Path, path: str, before: str, after: str) -> bool:
    base: dict[str, FileValue] = {path: before}
    snapshot = snapshot_of(tmp_path, base, {path: after})
    (change,) = snapshot.changes
    return changes_code(change)


@pytest.mark.parametrize(
    ("path", "before", "after", "code"),
    [
        ("m.go", GO, GO.replace("sabatoge", "sabotage"), False),
        ("m.go", GO, GO.replace("do(req)", "do(req, 1)"), True),
        ("m.go", GO, GO.replace('"a // b"', '"a // c"'), True),
        ("pkg/__init__.py", '__version__ = "0.3.1"\n', '__version__ = "0.3.2"\n', False),
        ("pkg/a.py", "x = 1.5\n", "x = 2.5\n", True),
        ("pkg/a.py", "x = f(a,  b)  # old\n", "x = f(a, b)  # new\n", False),
        (
            "src/lib.rs",
            '#![doc(html_root_url = "https://docs.rs/a/1.0")]\nfn f() {}\n',
            '#![doc(html_root_url = "https://docs.rs/b/1.0")]\nfn f() {}\n',
            False,
        ),
        ("src/lib.rs", "#[inline]\nfn f() {}\n", "#[cold]\nfn f() {}\n", True),
        ("src/a.py", LOOP, LOOP.replace("        save()", "    save()"), True),
        ("src/a.py", "x = f(a)\n", "x  =  f(a)  # spaced\n", False),
        ("src/a.js", FETCH, FETCH.replace("api/v1'", "evil/v2', {method: 'DELETE'}"), True),
        ("scripts2/clean.sh", 'rm -rf "$R"/${DIR#/tmp/}\n', 'rm -rf "$R"/${DIR#/}\n', True),
        ("scripts2/clean.sh", "rm -rf x # old\n", "rm -rf x # new\n", False),
        ("src/a.py", 'HOST = "127.0.0.1"\n', 'HOST = "0.0.0.0"\n', True),
        ("src/a.py", 'TIMEOUT = "1.5"\n', 'TIMEOUT = "30.0"\n', True),
        ("src/a.py", 'c.connect(version="2.1")\n', 'c.connect(version="1.0")\n', True),
        ("src/lib.rs", RS_VERSION, RS_VERSION.replace("1.0", "1.1"), False),
        ("src/a.py", LOOP, LOOP.replace("        save()", "        # save()"), True),
        ("src/a.py", LOOP, LOOP.replace("        save()", ""), True),
        ("src/a.py", PY_DOC, PY_DOC.replace("    Does f.", ""), False),
        ("src/a.go", GO, GO.replace("// self-sabatoge", "\n\t// self-sabotage"), False),
        ("lib/m.ex", EX, EX.replace("Sends a", "Streams a"), False),
        ("lib/m.ex", EX, EX.replace("Encodes a", "Encodes one"), False),
        ("lib/m.ex", EX, EX.replace("do: k", "do: {k}"), True),
        ("lib/m.ex", EX, EX.replace("Hello", "Bye"), True),
        ("src/lib.rs", RS_DOC, RS_DOC.replace("0.4.24", "0.4.25"), False),
        ("src/lib.rs", RS_DOC, RS_DOC.replace("fn f() {}", "fn f() { g() }"), True),
        ("src/lib.rs", RS_CFG, RS_CFG.replace("dead_code", "unused"), True),
        ("src/a.py", PY_DOC, PY_DOC.replace('    """\n    Does f.\n    """\n', ""), False),
        ("src/a.py", PY_DOC, PY_DOC.replace('X = """\nrow\n"""\n', ""), True),
        (
            "src/a.py",
            PY_DOC,
            PY_DOC.replace('    """\n    Does f.\n    """\n    log()\n', ""),
            True,
        ),
        ("src/a.py", RET, RET.replace("        '''def'''\n", ""), True),
        ("src/a.py", CALL, CALL.replace("        '''Hello'''\n", ""), True),
        ("src/a.py", SIGNATURE, SIGNATURE.replace('    """Does f."""\n', ""), False),
        ("src/a.py", SIGNATURE, SIGNATURE.replace('"""Module."""\n', ""), False),
        ("src/lib.rs", RS_HIDDEN, RS_HIDDEN.replace("a: u8", "a: u16"), True),
        ("src/lib.rs", RS_HIDDEN, RS_HIDDEN.replace("pub fn f(", "pub fn g("), True),
        ("src/lib.rs", RS_OWN_LINE, RS_OWN_LINE.replace("(hidden)", "(inline)"), False),
        (
            "lib/m.ex",
            EX_DOC,
            EX_DOC.replace('  """\n  def encode(k), do: k', "  def f(k), do: k"),
            True,
        ),
        ("lib/m.ex", EX_DOC, EX_DOC.replace("Encodes.", "Encodes a key."), False),
        ("src/g.jl", JL_DOC, JL_DOC.replace("(d::", "(df::"), False),
        (
            "src/g.jl",
            JL_DOC,
            JL_DOC.replace("the rows.", "the rows.\n\n!!! note\n    Fast."),
            False,
        ),
        ("src/g.jl", JL_DOC, JL_DOC.replace("group(df", "regroup(df"), True),
        ("src/g.jl", JL_DOC, JL_DOC.replace("usage: m", "usage: m [flags]"), True),
    ],
)
def test_code_changes_only_when_the_code_differs(
    tmp_path: Path, path: str, before: str, after: str, *, code: bool
) -> None:
    assert changed(tmp_path, path, before, after) is code


def test_the_code_part_drops_a_trailing_comment_outside_strings() -> None:
    go, py = comment_style("a.go"), comment_style("a.py")
    assert go is not None
    assert py is not None
    assert code_part('x := "a // b" // note', go, "go") == 'x := "a // b"'
    assert code_part("version = '1.2.3'  # pin", py, "py") == "version = '0'"


def test_a_long_unclosed_version_like_string_is_read_in_linear_time(tmp_path: Path) -> None:
    line = 'LABEL = "1.0' + "a" * 5000 + '!"\n'
    assert changed(tmp_path, "src/a.py", 'LABEL = "x"\n', line) is True


def test_an_added_function_in_a_file_that_is_not_utf8_changes_code(tmp_path: Path) -> None:
    base = "/* caf\xe9 */\nint f(void) { return 1; }\n".encode("latin-1")
    head = base + b"int g(void) { return 2; }\n"
    snapshot = snapshot_of(tmp_path, {"src/a.c": base}, {"src/a.c": head})
    (change,) = snapshot.changes
    assert change.text is None
    assert changes_code(change) is True


def test_an_addition_to_a_file_over_one_mib_changes_code(tmp_path: Path) -> None:
    base = "".join(f"int x{i} = {i};\n" for i in range(80_000))
    assert changed(tmp_path, "src/big.c", base, base + "int g(void) { return 1; }\n") is True


def test_comment_and_string_scans_take_one_pass_over_a_long_line() -> None:
    go = comment_style("a.go")
    assert go is not None
    line = "x := f(" + '"http://a",' * 40_000 + ") // note"
    assert code_part(line, go, "go") == line[: -len(" // note")]
