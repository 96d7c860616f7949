# SPDX-License-Identifier: BSD-3-Clause
"""A file's translation: find the TSAR directives, pair each with its OpenMP construct and
loop, analyse them, and splice the generated code into the source text."""

import re

from . import clang_ast as ca
from .analysis import Analyzer
from .clang_ast import K, Unit, kind
from .data_block import analyze_data
from .directive import (TsarData, TsarDepersist, TsarUpdate, is_target_loop, parse_omp,
                        parse_tsar)
from .emit import Emitter
from .source import Source, TranslateError, directive_lines


def _pragma(line):
    m = re.match(r"#\s*pragma\s+(\w+)", line.text)
    return m.group(1) if m else None


def _skip_space(text, i):
    """The first offset at or after i that is not whitespace or a comment."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = len(text) if close < 0 else close + 2
        elif text.startswith("//", i):
            close = text.find("\n", i)
            i = len(text) if close < 0 else close
        else:
            break
    return i


class Translation:
    """The result: the output text, or errors [(line, column, message)]."""

    def __init__(self, path, data, language=None, flags=()):
        self.source = Source(path, data)
        self.language = language or ("c" if path.endswith(".c") else "c++")
        self.errors = []
        self.includes = []
        self.output = None
        try:
            self._run(list(flags))
        except TranslateError as e:
            self._fail(e)

    def _fail(self, e):
        line, col = self.source.line_col(e.offset)
        if (line, col, e.message) not in self.errors:
            self.errors.append((line, col, e.message))

    def _run(self, flags):
        text = self.source.text
        lines = [d for d in directive_lines(text) if _pragma(d) in ("tsar", "omp")]
        tsar_lines = [d for d in lines if _pragma(d) == "tsar"]
        if not tsar_lines:
            self.output = text  # nothing to do (no parse, so any file passes through)
            return
        unit = Unit(self.source, self.language, flags)
        self.includes = sorted({i.include.name for i in unit.tu.get_includes()})
        analyzer = Analyzer(unit)
        emitter = Emitter(self.source, self.language)
        edits, loops, by_function = [], [], {}
        used_omp = set()
        parsed = []
        for t in tsar_lines:
            if unit.is_skipped(t.start):
                continue
            try:
                parsed.append((t, parse_tsar(t)))
            except TranslateError as e:
                self._fail(e)
        # Data blocks first: the loops and updates inside them need them. What is inside a
        # refused block is not looked at (its errors would follow from the block's).
        blocks, failed = [], []
        for t, d in parsed:
            if not isinstance(d, TsarData):
                continue
            try:
                at = _skip_space(text, t.end)
                stmt = unit.statements.get(at)
                if stmt is None or kind(stmt) != K.COMPOUND_STMT:
                    raise TranslateError(at, "tsar data must be followed by a block { ... } "
                                         "(its data environment lasts as long as the block)")
                failed.append((t.end, ca.statement_end(unit, stmt)))
                function = unit.enclosing_function(at)
                block = analyze_data(unit, d, t, stmt,
                                     lambda name: analyzer.lookup(function, at, name))
                failed.pop()
                blocks.append(block)
                edits.append((t.start, t.end, emitter.data_enter(block)))
                edits.append((block.block_end, block.block_end, emitter.data_exit(block)))
            except TranslateError as e:
                self._fail(e)

        def innermost(offset):
            inside = [b for b in blocks if b.contains(offset)]
            return max(inside, key=lambda b: b.end) if inside else None

        for t, d in parsed:
            try:
                if isinstance(d, TsarData) or any(a <= t.start < b for a, b in failed):
                    continue
                if isinstance(d, TsarDepersist):
                    names = [n for n, _ in d.names]
                    edits.append((t.start, t.end, emitter.depersist(names)))
                    continue
                if isinstance(d, TsarUpdate):
                    block = innermost(t.start)
                    if block is None:
                        raise TranslateError(d.offset, "tsar update belongs inside a tsar data "
                                             "block (it updates that environment's copies)")
                    for name, where in d.to + d.from_:
                        if block.array(name) is None:
                            raise TranslateError(where, f"the data block does not map '{name}'")
                    edits.append((t.start, t.end, emitter.data_update(block, d)))
                    continue
                omp, first, second = self._pair(t, lines, text, used_omp)
                stmt_at = _skip_space(text, second.end)
                stmt = unit.statements.get(stmt_at)
                if stmt is None:
                    raise TranslateError(stmt_at, "expected a for loop after the OpenMP construct")
                loop = analyzer.analyze(d, t, omp, omp_line(first, second, t), stmt,
                                        innermost(t.start))
                loops.append(loop)
                edits.append((loop.start, loop.end, emitter.at_loop(loop, d)))
                if self.language == "c":
                    if loop.function is None:
                        raise TranslateError(loop.offset, "the loop is not inside a function")
                    by_function.setdefault(loop.function.extent.start.offset, []).append(loop)
            except TranslateError as e:
                self._fail(e)
        for start, fn_loops in by_function.items():
            at = self.source.line_start(start)
            edits.append((at, at, emitter.before_function(fn_loops)))
        if self.errors:
            return
        out, pos = [emitter.prologue(loops)], 0
        for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
            out.append(text[pos:start])
            if out[-1] and not out[-1].endswith("\n"):
                out.append("\n")
            out.append(replacement)
            pos = end
            # the original resumes after the replaced text: on the next line if the replaced
            # text ended its line, else with the rest of that line
            if start != end and text.startswith("\n", end):
                pos = end + 1
            out.append(emitter.line_directive(pos))
        out.append(text[pos:])
        self.output = "".join(out)

    def _pair(self, t, lines, text, used):
        """The OpenMP target loop construct written right before or right after the tsar
        directive: (construct, first directive line, second directive line)."""
        k = lines.index(t)
        after = lines[k + 1] if k + 1 < len(lines) else None
        before = lines[k - 1] if k > 0 else None
        if after is not None and _pragma(after) == "omp" and \
                _skip_space(text, t.end) == after.start + _indent(after):
            first, second, omp_line_ = t, after, after
        elif before is not None and _pragma(before) == "omp" and \
                _skip_space(text, before.end) == t.start + _indent(t):
            first, second, omp_line_ = before, t, before
        else:
            raise TranslateError(t.start + _indent(t), "#pragma tsar hetero must be next to an "
                                 "OpenMP target loop construct (#pragma omp target teams "
                                 "distribute parallel for ...), right before or after it")
        following = lines[k + 2] if first is t and k + 2 < len(lines) else None
        if following is not None and _pragma(following) == "tsar" and \
                _skip_space(text, after.end) == following.start + _indent(following):
            used.add(id(omp_line_))  # the second one says it
            raise TranslateError(following.start + _indent(following),
                                 "two TSAR directives on one construct")
        if id(omp_line_) in used:
            raise TranslateError(t.start + _indent(t), "two TSAR directives on one construct")
        used.add(id(omp_line_))
        omp = parse_omp(omp_line_)
        if not is_target_loop(omp):
            raise TranslateError(omp.offset, "the construct must be a combined OpenMP target loop "
                                 "(target teams distribute parallel for, target parallel for, "
                                 "target simd...), not '" + " ".join(omp.words) + "'")
        return omp, first, second


def omp_line(first, second, tsar_line):
    return second if first is tsar_line else first


def _indent(line):
    return len(line.text) and line.where[0] - line.start
