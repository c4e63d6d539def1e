"""Documentation written as code: where Julia docstrings and their doc tests begin and end."""

from __future__ import annotations

import pytest

from rubricate.evidence.doc_syntax import julia_doc_lines

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


@pytest.mark.parametrize(
    "text",
    [
        'x = 1\n"""\nnever closed\n',
        '"""\ndoc\n"""\n\nf() = 1\n',
        'msg = """\n```jldoctest\njulia> 1\n```\n"""\n',
    ],
)
def test_strings_that_are_not_docstrings_are_no_documentation(text: str) -> None:
    assert julia_doc_lines(text.splitlines()) == set()


JL_QUOTES = (
    "module P\n"  # 1
    '# Long text goes in """ strings\n'  # 2
    '#= a block comment with """ in it =#\n'  # 3
    '"""\n'  # 4
    "    f(x)\n"  # 5
    '\nQuote with `\\"""` and "\\"".\n'  # 6, 7
    '"""\n'  # 8
    "f(x) = x + 1\n"  # 9
    'g(c) = c == \'#\' ? """\n'  # 10
    "    text\n"  # 11
    '    """ : c\n'  # 12
    '"""\n'  # 13
    "    h()\n"  # 14
    '"""\n'  # 15
    "h() = 1\n"  # 16
    "end\n"  # 17
)


def test_quotes_in_comments_or_escaped_pair_no_docstring() -> None:
    assert sorted(julia_doc_lines(JL_QUOTES.splitlines())) == [4, 5, 6, 7, 8, 13, 14, 15]


def test_unpaired_quotes_the_old_reading_paired_are_still_read_as_quotes() -> None:
    # must-flag side: a plain `\"""` after code still opens a string that closes below
    text = 'x = 1\ns = """\n"""\n"""\n    k()\n"""\nk() = 1\n'
    assert sorted(julia_doc_lines(text.splitlines())) == [4, 5, 6]
