"""Documentation written as code: where Julia docstrings and their doc tests begin and end."""

from __future__ import annotations

import pytest

from rubricate.evidence.doc_syntax import julia_doc_lines, julia_doctest_lines

JL = (
    "module M\n"  # 1
    "\n"  # 2
    '"""\n'  # 3
    "    area(r)\n"  # 4
    "\n"  # 5
    "```jldoctest\n"  # 6
    "julia> area(1)\n"  # 7
    "3.14\n"  # 8
    "```\n"  # 9
    '"""\n'  # 10
    "area(r) = pi * r^2\n"  # 11
    "\n"  # 12
    'const NAME = """\n'  # 13
    "value\n"  # 14
    '"""\n'  # 15
    "\n"  # 16
    "function usage()\n"  # 17
    '    """\n'  # 18
    "    usage: m [flags]\n"  # 19
    '    """\n'  # 20
    "end\n"  # 21
    "\n"  # 22
    "show(io,\n"  # 23
    '     """\n'  # 24
    "     text\n"  # 25
    '     """)\n'  # 26
    '@doc raw"""\n'  # 27
    "    f(x) = \\x\n"  # 28
    '"""\n'  # 29
    "f(x) = x\n"  # 30
    '"One line."\n'  # 31
    '"""One line."""\n'  # 32
    "g() = 1\n"  # 33
    "end\n"  # 34
)


def test_julia_docstrings_stand_alone_before_what_they_document() -> None:
    lines = JL.splitlines()
    assert sorted(julia_doc_lines(lines)) == [3, 4, 5, 6, 7, 8, 9, 10, 27, 28, 29, 32]


def test_julia_doc_tests_are_the_jldoctest_blocks_of_docstrings() -> None:
    assert sorted(julia_doctest_lines(JL.splitlines())) == [6, 7, 8, 9]


@pytest.mark.parametrize(
    "text",
    [
        'x = 1\n"""\nnever closed\n',
        '"""\ndoc\n"""\n\nf() = 1\n',
        'msg = """\n```jldoctest\njulia> 1\n```\n"""\n',
    ],
)
def test_strings_that_are_not_docstrings_hold_no_doc_test(text: str) -> None:
    lines = text.splitlines()
    assert julia_doc_lines(lines) == set()
    assert julia_doctest_lines(lines) == frozenset()
