# SPDX-License-Identifier: BSD-3-Clause
"""A source file as bytes, its preprocessor directive lines, and the tokens of a directive.

Offsets are byte offsets, as libclang's are: the file is decoded as Latin-1 so that one
character is one byte and the output re-encodes to the same bytes.
"""

import re
from dataclasses import dataclass


class TranslateError(Exception):
    """A refusal that names the source position it is about (a byte offset)."""

    def __init__(self, offset, message):
        super().__init__(message)
        self.offset = offset
        self.message = message


class Source:
    def __init__(self, path, data):
        self.path = path
        self.text = data.decode("latin-1")
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def line_col(self, offset):
        """1-based line and column (in bytes) of a byte offset."""
        lo, hi = 0, len(self._line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self._line_starts[lo] + 1

    def line_start(self, offset):
        return self._line_starts[self.line_col(offset)[0] - 1]

    def offset_of(self, line, column):
        return self._line_starts[line - 1] + column - 1


@dataclass
class DirectiveLine:
    """A preprocessor directive's logical line: continuations joined, comments as spaces."""

    start: int  # offset of the start of its first line (indentation included)
    end: int  # offset just past its last newline
    text: str  # from '#' on
    where: list  # where[k]: the source offset of text[k]

    def offset(self, k):
        return self.where[min(k, len(self.where) - 1)] if self.where else self.start


def _skip_literal(text, i):
    """Index just past the string or character literal starting at text[i]."""
    quote = text[i]
    i += 1
    while i < len(text) and text[i] != quote and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _raw_string_end(text, i):
    """For C++ R"delim(...)delim" at text[i] == 'R', the index past it; None if not one."""
    m = re.match(r'R"([^()\\ \n]{0,16})\(', text[i:])
    if not m:
        return None
    close = text.find(")" + m.group(1) + '"', i + m.end())
    return len(text) if close < 0 else close + len(m.group(1)) + 2


def _read_directive(text, line_start, i):
    out, where = [], []
    n = len(text)
    while i < n:
        if text.startswith("\\\n", i):
            i += 2
        elif text.startswith("\\\r\n", i):
            i += 3
        elif text[i] == "\n":
            i += 1
            break
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            out.append(" ")
            where.append(i)
            i = n if close < 0 else close + 2
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text[i] in "\"'":
            j = _skip_literal(text, i)
            out.extend(text[i:j])
            where.extend(range(i, j))
            i = j
        else:
            out.append(text[i])
            where.append(i)
            i += 1
    return DirectiveLine(line_start, i, "".join(out).rstrip("\r"), where)


def directive_lines(text):
    """Every preprocessor directive of the file, outside comments and literals."""
    found = []
    i, n = 0, len(text)
    at_line_start = True
    line_start = 0
    while i < n:
        if at_line_start:
            line_start = i
            while i < n and text[i] in " \t":
                i += 1
            at_line_start = False
            if i < n and text[i] == "#":
                d = _read_directive(text, line_start, i)
                found.append(d)
                i = d.end
                at_line_start = True
                continue
            continue
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 2 if text.startswith("\\\n", i) else 1
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif c == "R" and (end := _raw_string_end(text, i)) is not None:
            i = end
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):
            # (a ' after a digit or letter is a C++14 digit separator or a suffix, not a literal)
            i = _skip_literal(text, i)
        else:
            i += 1
    return found


@dataclass
class Token:
    kind: str  # "ident", "number", "string", "punct"
    text: str
    pos: int  # index in the directive's text
    end: int


_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*)
      | (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
      | (?P<punct>::|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\.\.|[^\s])
    """,
    re.VERBOSE,
)


def tokenize(text, offset_of):
    """Tokens of a directive's text; offset_of(k) gives the source offset for errors."""
    tokens = []
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m:
            raise TranslateError(offset_of(i), "cannot read the directive here")
        if m.lastgroup != "ws":
            tokens.append(Token(m.lastgroup, m.group(), m.start(), m.end()))
        i = m.end()
    return tokens
