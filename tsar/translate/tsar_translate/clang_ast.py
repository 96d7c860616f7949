# SPDX-License-Identifier: BSD-3-Clause
"""libclang access: parsing a file, walking its AST, and the few questions the translator
asks of it (source text of a node, operators, types, which code the preprocessor skipped).

The file is parsed WITHOUT OpenMP (with _OPENMP defined, so the same #ifdef branches are
taken): libclang 14 hides the statement under an OpenMP directive inside a captured
statement it does not expose, while without -fopenmp the loop is an ordinary for statement.
OpenMP clauses are read from the directive text instead (directive.py)."""

import ctypes
import re
import sys

try:
    import clang.cindex as ci
except ImportError:  # Debian's python3-clang-14 serves /usr/bin/python3's dist-packages
    sys.path.append("/usr/lib/python3/dist-packages")
    import clang.cindex as ci

from .source import TranslateError

K = ci.CursorKind
FUNCTION_KINDS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                  K.CONVERSION_FUNCTION, K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR}
# Expression wrappers that change nothing the translator asks about.
TRANSPARENT = {K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
               K.CXX_FUNCTIONAL_CAST_EXPR}


def kind(c):
    """The cursor's kind, None for kinds the Python bindings do not know."""
    try:
        return c.kind
    except ValueError:
        return None


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


def _skipped_ranges(tu, path):
    lib = ci.conf.lib
    lib.clang_getSkippedRanges.restype = ctypes.POINTER(_RangeList)
    lib.clang_getSkippedRanges.argtypes = [ci.TranslationUnit, ci.File]
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
    ranges = lib.clang_getSkippedRanges(tu, tu.get_file(path))
    out = [(ranges.contents.ranges[k].start.offset, ranges.contents.ranges[k].end.offset)
           for k in range(ranges.contents.count)]
    lib.clang_disposeSourceRangeList(ranges)
    return out


class Unit:
    """A parsed source file."""

    def __init__(self, source, language, flags):
        self.source = source
        self.language = language
        args = ["-x", language, "-D_OPENMP=201511", "-Wno-unknown-pragmas",
                "-Wno-source-uses-openmp"] + flags
        try:
            self.tu = ci.Index.create().parse(
                source.path, args=args,
                unsaved_files=[(source.path, source.text.encode("latin-1"))],
                options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        except ci.TranslationUnitLoadError as e:
            raise TranslateError(0, f"libclang cannot parse the file ({e})")
        errors = [d for d in self.tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        if errors:
            d = errors[0]
            where = f"{d.location.file}:{d.location.line}:{d.location.column}: " \
                if d.location.file else ""
            raise TranslateError(0, f"libclang cannot parse the file: {where}{d.spelling} "
                                 "(give the compile flags after --: -I, -D, -std)")
        self.skipped = _skipped_ranges(self.tu, source.path)
        self.statements = {}  # start offset -> statement cursor, for the main file
        self.functions = []  # outermost function definitions of the main file: (start, end, c)
        self._index()

    def _in_main(self, c):
        f = c.location.file
        return f is not None and f.name == self.source.path

    def _index(self):
        stack = [(c, 0) for c in self.tu.cursor.get_children()]
        while stack:
            c, depth = stack.pop()
            if not self._in_main(c):
                continue
            k = kind(c)
            if k in FUNCTION_KINDS and depth == 0 and c.is_definition():
                self.functions.append((c.extent.start.offset, c.extent.end.offset, c))
            if k is not None and k.is_statement():
                self.statements.setdefault(c.extent.start.offset, c)
            inner = depth + (1 if k in FUNCTION_KINDS else 0)
            stack.extend((ch, inner) for ch in c.get_children())

    def is_skipped(self, offset):
        return any(a <= offset < b for a, b in self.skipped)

    def enclosing_function(self, offset):
        for start, end, c in self.functions:
            if start <= offset < end:
                return c
        return None

    # ---- text of nodes ----------------------------------------------------------------

    def text(self, c):
        return self.source.text[c.extent.start.offset:c.extent.end.offset]

    def from_macro(self, c):
        """True when the node's text is not what the AST says it is (a macro expansion)."""
        e = c.extent
        return (e.start.file is None or e.start.file.name != self.source.path
                or e.end.offset <= e.start.offset)

    def between(self, a, b):
        """The source text between the end of node a and the start of node b, comments out."""
        lo, hi = a.extent.end.offset, b.extent.start.offset
        if hi < lo or self.from_macro(a) or self.from_macro(b):
            return None
        t = re.sub(r"/\*.*?\*/|//[^\n]*", " ", self.source.text[lo:hi], flags=re.S)
        return t.strip()

    def binary_op(self, c):
        """'+', '<=', '=' ... of a BINARY_OPERATOR; None when it cannot be read (macros)."""
        ch = list(c.get_children())
        if len(ch) != 2:
            return None
        op = self.between(ch[0], ch[1])
        return op if op and re.fullmatch(r"[-+*/%<>=!&|^,]{1,3}", op) else None

    def unary_op(self, c):
        """'++', '-', '*', '&' ... of a UNARY_OPERATOR, prefix or postfix; None for macros."""
        ch = list(c.get_children())
        if len(ch) != 1 or self.from_macro(c) or self.from_macro(ch[0]):
            return None
        t = self.source.text
        before = t[c.extent.start.offset:ch[0].extent.start.offset].strip()
        after = t[ch[0].extent.end.offset:c.extent.end.offset].strip()
        op = before or after
        return op if re.fullmatch(r"\+\+|--|[-+!~*&]", op) else None


def strip(c):
    """The node under implicit conversions, parentheses and casts."""
    while kind(c) in TRANSPARENT:
        ch = list(c.get_children())
        if not ch:
            break
        c = ch[-1]
    return c


def walk(c, parents=()):
    """(node, ancestors) for every node under c, c included, depth first."""
    stack = [(c, parents)]
    while stack:
        node, up = stack.pop()
        yield node, up
        chain = up + (node,)
        stack.extend((ch, chain) for ch in reversed(list(node.get_children())))


def is_local(decl):
    """A variable of a function (parameter or local, static locals included)."""
    p = decl.semantic_parent
    return p is not None and kind(p) in FUNCTION_KINDS


def needs_semicolon(c):
    """Whether the statement's extent stops before its terminating ';'."""
    k = kind(c)
    if k in (K.COMPOUND_STMT, K.DECL_STMT, K.NULL_STMT):
        return False
    if k in (K.FOR_STMT, K.WHILE_STMT, K.IF_STMT, K.SWITCH_STMT, K.CXX_FOR_RANGE_STMT,
             K.LABEL_STMT, K.CASE_STMT, K.DEFAULT_STMT):
        ch = list(c.get_children())
        return needs_semicolon(ch[-1]) if ch else True
    return True


def statement_end(unit, c):
    """Offset just past the statement (its ';' included)."""
    end = c.extent.end.offset
    if not needs_semicolon(c):
        return end
    t = unit.source.text
    i = end
    while i < len(t):
        if t[i].isspace():
            i += 1
        elif t.startswith("/*", i):
            i = t.find("*/", i + 2) + 2 if t.find("*/", i + 2) >= 0 else len(t)
        elif t.startswith("//", i):
            i = t.find("\n", i) if t.find("\n", i) >= 0 else len(t)
        else:
            break
    if i < len(t) and t[i] == ";":
        return i + 1
    raise TranslateError(end, "cannot find the end of the loop statement")


# ---- types --------------------------------------------------------------------------------

T = ci.TypeKind
ARRAYS = {T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY}


def canonical_kind(t):
    return t.get_canonical().kind


def is_pointer_like(t):
    return canonical_kind(t) in ARRAYS | {T.POINTER}


def array_dims(t):
    """Extents of a constant array type, outermost first ([] for other types)."""
    dims = []
    t = t.get_canonical()
    while t.kind == T.CONSTANTARRAY:
        dims.append(t.element_count)
        t = t.element_type.get_canonical()
    return dims


def file_scope_problem(t):
    """Why type t cannot be written at file scope (a local type, a variable-length array),
    None when it can."""
    seen = 0
    while seen < 16:
        seen += 1
        if t.kind in (T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY):
            return "a variable-length array type"
        if t.kind in (T.TYPEDEF, T.RECORD, T.ENUM, T.ELABORATED):
            decl = t.get_declaration()
            if decl is not None and is_local(decl):
                return f"a type declared inside the function ('{decl.spelling or t.spelling}')"
            if "(unnamed" in t.spelling or "(anonymous" in t.spelling:
                return f"a type without a name ('{t.spelling}')"
            if t.kind == T.TYPEDEF:
                return None
            if t.kind == T.ELABORATED:
                t = t.get_named_type()
                continue
            return None
        if t.kind == T.POINTER:
            t = t.get_pointee()
        elif t.kind in ARRAYS:
            t = t.element_type
        else:
            return None
    return None
