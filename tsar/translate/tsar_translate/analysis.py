# SPDX-License-Identifier: BSD-3-Clause
"""What a directive-annotated loop is, checked: its iteration variable and bounds, the arrays
the directive maps (rows, columns, halo, direction), the reductions of its OpenMP construct,
the variables its body uses from the enclosing function, and the clauses of the construct as
the GPU branch repeats them. Every refusal is a TranslateError at the position it is about."""

import re
from dataclasses import dataclass, field

from . import clang_ast as ca
from .clang_ast import K, kind, strip
from .directive import item_base, split_items, split_prefix
from .source import TranslateError

# OpenMP reduction operators: identity (C expression; MAX/MIN filled per type) and combine.
REDUCTIONS = {
    "+": ("0", "{a} + {b}"), "-": ("0", "{a} + {b}"), "*": ("1", "{a} * {b}"),
    "&": ("~0", "{a} & {b}"), "|": ("0", "{a} | {b}"), "^": ("0", "{a} ^ {b}"),
    "&&": ("1", "{a} && {b}"), "||": ("0", "{a} || {b}"),
    "max": ("LOWEST", "{a} > {b} ? {a} : {b}"), "min": ("HIGHEST", "{a} < {b} ? {a} : {b}"),
}
# Lowest and highest value of each arithmetic type (limits.h / float.h; math.h for infinities).
LIMITS = {
    ca.T.BOOL: ("0", "1"), ca.T.CHAR_S: ("CHAR_MIN", "CHAR_MAX"),
    ca.T.SCHAR: ("SCHAR_MIN", "SCHAR_MAX"), ca.T.UCHAR: ("0", "UCHAR_MAX"),
    ca.T.SHORT: ("SHRT_MIN", "SHRT_MAX"), ca.T.USHORT: ("0", "USHRT_MAX"),
    ca.T.INT: ("INT_MIN", "INT_MAX"), ca.T.UINT: ("0", "UINT_MAX"),
    ca.T.LONG: ("LONG_MIN", "LONG_MAX"), ca.T.ULONG: ("0", "ULONG_MAX"),
    ca.T.LONGLONG: ("LLONG_MIN", "LLONG_MAX"), ca.T.ULONGLONG: ("0", "ULLONG_MAX"),
    ca.T.FLOAT: ("-HUGE_VALF", "HUGE_VALF"), ca.T.DOUBLE: ("-HUGE_VAL", "HUGE_VAL"),
    ca.T.LONGDOUBLE: ("-HUGE_VALL", "HUGE_VALL"),
}
FLOATING = {ca.T.FLOAT, ca.T.DOUBLE, ca.T.LONGDOUBLE}
# Clauses of the user's construct that also apply to the `parallel for` a team of CPU cores
# shares a range with.
CPU_CLAUSES = {"private", "firstprivate", "reduction", "collapse", "schedule", "default",
               "shared"}
# Clauses of the user's construct that a co-scheduled loop cannot honour.
REFUSED = {
    "nowait": "TSAR waits for every device's range before the loop ends; remove nowait",
    "depend": "dependences between target tasks cannot span TSAR's devices",
    "lastprivate": "the last iteration may run on any device; assign the value after the loop",
    "is_device_ptr": "TSAR splits host arrays over devices; a device pointer of one device "
                     "cannot be split",
    "has_device_addr": "TSAR splits host arrays over devices",
    "in_reduction": "task reductions cannot span TSAR's devices",
    "ordered": "an ordered loop cannot be split over devices that run at the same time",
}


@dataclass
class Array:
    """An array the directive maps: registered with TSAR, its device pointer from tsar_mem."""

    name: str
    offset: int  # where the directive names it
    decl: object
    part: bool  # part_map (rows by iteration) or map (whole, input)
    map_type: str  # to, from, tofrom
    elem: str = ""  # C expression: bytes per element
    rows: str = ""  # C expression: rows
    cols: str = "1"  # C expression: elements per row
    halo: int = 0
    row_offsets: tuple = (0, 0)  # rows iteration i uses: i + lo .. i + hi
    row: tuple = (1, ())  # the row length as factors_of gives it, to see i * row in indices
    flattened: bool = False  # a pointer indexed a[i * row + j], not an array of rows
    flags: str = ""


@dataclass
class Reduction:
    name: str
    decl: object
    type_spelling: str
    identity: str
    combine: str  # C expression of {a} and {b}


@dataclass
class Capture:
    name: str
    decl: object
    role: str  # "value", "array" or "reduction"


@dataclass
class Loop:
    offset: int  # the tsar directive
    start: int  # first offset the translation replaces (first directive line)
    end: int  # offset past the loop statement
    var: str
    var_type: str
    var_declared: bool  # declared in the for-init
    lower: str
    upper: str  # exclusive
    header_offset: int  # the 'for' keyword
    body: str  # the loop statement from its body on (after the header's ')')
    body_offset: int
    original: str  # the OpenMP directive and the loop as written
    original_offset: int
    words: list = field(default_factory=list)
    gpu_clauses: list = field(default_factory=list)
    cpu_clauses: list = field(default_factory=list)  # of the team's parallel for
    target_if: str = None
    arrays: list = field(default_factory=list)
    reductions: list = field(default_factory=list)
    captures: list = field(default_factory=list)
    function: object = None  # the enclosing function definition
    data: object = None  # the DataBlock the loop is in
    var_decl: object = None  # the loop variable's declaration


# ---- linear forms of index expressions ------------------------------------------------------
#
# An index is analysed as a sum of terms coeff * (i?) * factor * factor ..., with factors the
# text of sub-expressions that do not contain the iteration variable i. Enough to see that
# a[(i - 1) * n + j] reads row i - 1 of rows of n, and that a[k * n + i] is not a row of i.


def _norm(text):
    text = re.sub(r"\s+", "", text)
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(t):
    depth = 0
    for c in t:
        depth += c == "("
        depth -= c == ")"
        if depth < 0:
            return False
    return depth == 0


def factors_of(text):
    """'2*k*(d+1)' -> (2, ('d+1', 'k')): an expression as an integer coefficient and the
    sorted texts of its other top-level factors."""
    parts, depth, start = [], 0, 0
    text = _norm(text)
    for k, c in enumerate(text + "*"):
        depth += c in "(["
        depth -= c in ")]"
        if c == "*" and depth == 0:
            parts.append(_norm(text[start:k]))
            start = k + 1
    coeff, rest = 1, []
    for p in parts:
        v = _integer(p)
        if v is None:
            rest.append(p)
        else:
            coeff *= v
    return coeff, tuple(sorted(rest))


class _Linear:
    def __init__(self, unit, var_decl):
        self.unit = unit
        self.var = var_decl

    def _mentions(self, c):
        return any(kind(n) == K.DECL_REF_EXPR and n.referenced == self.var
                   for n, _ in ca.walk(c))

    def _atom(self, c):
        if self.unit.from_macro(c):
            return {(False, (f"<macro@{c.extent.start.offset}>",)): 1}
        coeff, factors = factors_of(self.unit.text(c))
        return {(False, factors): coeff} if coeff else {}

    def form(self, c):
        """{(has_i, factors): coeff}, or None when the index is not linear in i."""
        if not self._mentions(c):
            return self._atom(c)
        c = strip(c)
        k = kind(c)
        if k == K.DECL_REF_EXPR and c.referenced == self.var:
            return {(True, ()): 1}
        if k == K.UNARY_OPERATOR:
            op = self.unit.unary_op(c)
            inner = self.form(list(c.get_children())[0])
            if inner is None or op not in ("-", "+"):
                return None
            return {t: -v for t, v in inner.items()} if op == "-" else inner
        if k != K.BINARY_OPERATOR:
            return None
        op = self.unit.binary_op(c)
        a, b = (self.form(x) for x in c.get_children())
        if op is None or a is None or b is None:
            return None
        if op in ("+", "-"):
            out = dict(a)
            for t, v in b.items():
                out[t] = out.get(t, 0) + (v if op == "+" else -v)
            return {t: v for t, v in out.items() if v != 0}
        if op == "*":
            out = {}
            for (ia, fa), va in a.items():
                for (ib, fb), vb in b.items():
                    if ia and ib:
                        return None
                    t = (ia or ib, tuple(sorted(fa + fb)))
                    out[t] = out.get(t, 0) + va * vb
            return {t: v for t, v in out.items() if v != 0}
        return None


def _integer(text):
    m = re.fullmatch(r"\s*(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*\s*", text)
    return int(m.group(1), 0) if m else None


def _row_offset(form, row):
    """The row offset r of an index i * row + r * row + (column part), None if the index is
    not of that shape. `row` is (coefficient, factors) of the row length. The column part
    may use i (a diagonal) but not multiples of the row length; 1-D arrays (row (1, ()))
    allow only i + r."""
    coeff, factors = row
    if form.get((True, factors)) != coeff:
        return None
    offset = 0
    for (has_i, f), v in form.items():
        if (has_i, f) == (True, factors):
            continue
        if has_i and (not factors or all(x in f for x in factors)):
            return None  # i scaled otherwise: not one row per iteration
        if row == (1, ()):
            if f:
                return None  # 1-D: anything but i + constant moves the element
            offset += v
        elif not factors and not f:
            offset += v // coeff  # rows of a constant length: whole rows of the constant
        elif f == factors:
            if v % coeff:
                return None
            offset += v // coeff
        elif factors and all(x in f for x in factors):
            return None  # (something) * row: a row that depends on another variable
    return offset


# ---- arrays -----------------------------------------------------------------------------------


def geometry(decl, name, offset):
    """(rank, C expression of the element size, C expression of the rows of a constant array
    or None) of array or pointer variable `name`."""
    t = decl.type
    ck = ca.canonical_kind(t)
    if ck == ca.T.POINTER:
        rank = 1 + len(ca.array_dims(t.get_canonical().get_pointee()))
        whole_rows = None
    elif ck == ca.T.CONSTANTARRAY:
        rank = len(ca.array_dims(t))
        whole_rows = f"sizeof({name}) / sizeof({name}[0])"
    else:
        raise TranslateError(offset, f"'{name}' has a variable-length array type: map a pointer "
                             "to it instead")
    return rank, f"sizeof({name}{'[0]' * rank})", whole_rows


def row_of(name, sections):
    """The row of a pointer used as rows of the later sections' elements: (C expression of
    its length, its factors); the sections must start at 0."""
    for s in sections:
        if _integer(s.lower.text) != 0:
            raise TranslateError(s.lower.offset, f"'{name}': the sections after the first must "
                                 "start at 0 (a row is whole)")
    text = " * ".join(f"({s.length.text})" for s in sections)
    return text, factors_of(text.replace(" ", ""))


# ---- the analysis -----------------------------------------------------------------------------


class Analyzer:
    def __init__(self, unit):
        self.unit = unit
        self.data = None

    def error(self, offset, message):
        raise TranslateError(offset, message)

    def analyze(self, tsar, tsar_line, omp, omp_line, stmt, data=None):
        """The Loop of a directive, its construct and its for statement; data: the DataBlock
        the loop is in, or None."""
        u = self.unit
        self.data = data
        if kind(stmt) != K.FOR_STMT:
            self.error(stmt.extent.start.offset, "expected a for loop after the OpenMP construct")
        end = ca.statement_end(u, stmt)
        loop = Loop(offset=tsar.offset, start=min(tsar_line.start, omp_line.start), end=end,
                    var="", var_type="", var_declared=False, lower="", upper="",
                    header_offset=stmt.extent.start.offset, body="", body_offset=0,
                    original="", original_offset=omp_line.start, words=omp.words)
        loop.original = u.source.text[omp_line.start:end]
        if omp_line.start < tsar_line.start < end:  # the tsar directive after the construct
            cut = (tsar_line.start - omp_line.start, tsar_line.end - omp_line.start)
            loop.original = loop.original[:cut[0]] + loop.original[cut[1]:]
        loop.function = u.enclosing_function(stmt.extent.start.offset)
        self._header(loop, stmt, end)
        refs = self._references(stmt, loop)
        self._arrays(loop, tsar, omp, refs)
        if data is not None:
            loop.arrays += data.implicit({a.name for a in loop.arrays}, refs)
            loop.data = data
        self._reductions(loop, omp, refs)
        self._clauses(loop, omp, tsar)
        self._captures(loop, stmt, refs)
        self._check_uses(loop, stmt)
        return loop

    # -- for (init; cond; inc) ------------------------------------------------------------

    def _header(self, loop, stmt, end):
        u = self.unit
        toks = list(stmt.get_tokens())
        # A for written by a macro: libclang's tokens are then the macro's definition's.
        if u.from_macro(stmt) or len(toks) < 2 or toks[0].spelling != "for" or \
                toks[1].spelling != "(" or \
                toks[0].extent.start.offset != stmt.extent.start.offset:
            self.error(stmt.extent.start.offset, "cannot read this for loop's header "
                       "(written with a macro?)")
        depth, semis, close = 0, [], None
        for t in toks[1:]:
            s = t.spelling
            depth += s in "([{"
            depth -= s in ")]}"
            if s == ";" and depth == 1:
                semis.append(t.extent.start.offset)
            if depth == 0:
                close = t.extent.start.offset
                break
        if len(semis) != 2 or close is None:
            self.error(stmt.extent.start.offset, "expected for (init; condition; increment)")
        parts = {"init": None, "cond": None, "inc": None}
        body = None
        for ch in stmt.get_children():
            o = ch.extent.start.offset
            if o < semis[0]:
                parts["init"] = ch
            elif o < semis[1]:
                parts["cond"] = ch
            elif o < close:
                parts["inc"] = ch
            else:
                body = ch
        where = stmt.extent.start.offset
        form = ("the loop must have OpenMP's canonical form: for (int i = lower; i < upper; "
                "++i), step 1")
        init = parts["init"]
        if init is None:
            self.error(where, "the loop has no initialisation: " + form)
        if kind(init) == K.DECL_STMT:
            decls = list(init.get_children())
            if len(decls) != 1 or kind(decls[0]) != K.VAR_DECL:
                self.error(init.extent.start.offset, "declare one loop variable: " + form)
            var = decls[0]
            values = [c for c in var.get_children() if kind(c) not in (K.TYPE_REF,
                                                                        K.NAMESPACE_REF)]
            if not values:
                self.error(var.extent.start.offset, "the loop variable has no initial value")
            lower = values[-1]
            loop.var_declared = True
        elif kind(init) == K.BINARY_OPERATOR and u.binary_op(init) == "=":
            lhs, lower = init.get_children()
            lhs = strip(lhs)
            if kind(lhs) != K.DECL_REF_EXPR:
                self.error(init.extent.start.offset, "assign the loop variable: " + form)
            var = lhs.referenced
        else:
            self.error(init.extent.start.offset, "cannot read the initialisation: " + form)
        t = var.type
        if ca.canonical_kind(t) not in LIMITS or ca.canonical_kind(t) in FLOATING or \
                ca.canonical_kind(t) == ca.T.BOOL:
            self.error(var.extent.start.offset, f"the loop variable '{var.spelling}' must have "
                       f"an integer type, not '{t.spelling}'")
        loop.var, loop.var_decl = var.spelling, var
        loop.var_type = t.spelling
        loop.lower = u.text(lower)
        cond = parts["cond"]
        op = u.binary_op(cond) if cond is not None and kind(cond) == K.BINARY_OPERATOR else None
        if op not in ("<", "<=", ">", ">="):
            self.error(cond.extent.start.offset if cond is not None else where,
                       "the condition must compare the loop variable with <, <=, > or >= "
                       "(not != or a macro): " + form)
        lhs, rhs = cond.get_children()
        is_var = lambda c: kind(strip(c)) == K.DECL_REF_EXPR and strip(c).referenced == var
        if is_var(lhs) and op in ("<", "<="):
            bound = rhs
        elif is_var(rhs) and op in (">", ">="):
            bound = lhs
        else:
            self.error(cond.extent.start.offset, "the loop must count up: i < upper or "
                       "i <= upper (a loop counting down cannot be split): " + form)
        loop.upper = u.text(bound) if op in ("<", ">") else f"({u.text(bound)}) + 1"
        inc = parts["inc"]
        text = re.sub(r"\s+", "", u.text(inc)) if inc is not None else ""
        v = re.escape(var.spelling)
        if not re.fullmatch(rf"\+\+{v}|{v}\+\+|{v}\+=1|{v}={v}\+1|{v}=1\+{v}", text):
            self.error(inc.extent.start.offset if inc is not None else where,
                       f"the increment must be ++{var.spelling} (step 1): " + form)
        if body is None:
            self.error(where, "the loop has no body")
        loop.body_offset = close + 1
        loop.body = u.source.text[close + 1:end]

    # -- variables ------------------------------------------------------------------------

    def _references(self, stmt, loop):
        """Variables the loop uses that are declared outside it: name -> (decl, first use)."""
        refs = {}
        lo, hi = stmt.extent.start.offset, stmt.extent.end.offset
        for n, up in ca.walk(stmt):
            k = kind(n)
            if k == K.CXX_THIS_EXPR or (k == K.MEMBER_REF_EXPR and not list(n.get_children())):
                self.error(n.extent.start.offset, "the loop uses members of 'this': copy them "
                           "into local variables before the loop")
            if k == K.TYPE_REF and self.unit.language == "c":
                d = n.referenced
                if d is not None and ca.is_local(d) and not lo <= d.extent.start.offset < hi:
                    self.error(n.extent.start.offset, f"the loop uses the type '{n.spelling}' "
                               "declared inside the function: declare it at file scope")
            if k != K.DECL_REF_EXPR or n.extent.start.offset < loop.body_offset:
                continue  # (the header's bounds are evaluated before the loop, not in it)
            d = n.referenced
            if d is None:
                continue
            dk = kind(d)
            if dk == K.ENUM_CONSTANT_DECL and self.unit.language == "c" and \
                    ca.is_local(d.semantic_parent):
                self.error(n.extent.start.offset, f"the loop uses '{d.spelling}' of an enum "
                           "declared inside the function: declare it at file scope")
            if dk not in (K.VAR_DECL, K.PARM_DECL) or d == loop.var_decl:
                continue
            if d.location.file is not None and d.location.file.name == self.unit.source.path \
                    and lo <= d.extent.start.offset < hi:
                continue  # declared in the loop
            refs.setdefault(d.spelling, (d, n.extent.start.offset))
        return refs

    def _visible(self, loop):
        """Locals of the enclosing function visible at the loop, by name (for the names in
        the OpenMP clauses, which libclang does not parse here)."""
        return self.visible(loop.function, loop.header_offset)

    def visible(self, function, at):
        """Variables of `function` visible at offset `at`, by name (the innermost)."""
        out = {}
        if function is None:
            return out
        scopes = (K.COMPOUND_STMT, K.FOR_STMT, K.IF_STMT, K.WHILE_STMT, K.SWITCH_STMT,
                  K.CXX_FOR_RANGE_STMT)
        for n, up in ca.walk(function):
            if kind(n) not in (K.VAR_DECL, K.PARM_DECL) or n.extent.start.offset >= at:
                continue
            want = ca.FUNCTION_KINDS if kind(n) == K.PARM_DECL else scopes
            scope = next((a for a in reversed(up) if kind(a) in want), None)
            if scope is None or not scope.extent.start.offset <= at < scope.extent.end.offset:
                continue
            prev = out.get(n.spelling)
            if prev is None or prev.extent.start.offset < n.extent.start.offset:
                out[n.spelling] = n
        return out

    def lookup(self, function, at, name):
        """The variable `name` means at offset `at`: a visible local, else a file-scope one."""
        local = self.visible(function, at).get(name)
        if local is not None:
            return local
        for c in self.unit.tu.cursor.get_children():
            if kind(c) == K.VAR_DECL and c.spelling == name:
                return c
        return None

    # -- arrays -----------------------------------------------------------------------------

    def _omp_maps(self, omp):
        """The construct's map items by variable: name -> list of section (lower, length)."""
        out = {}
        for c in omp.clause("map"):
            _, items, at = split_prefix(c.args)
            for e in split_items(items, c.args_offset + at):
                base = item_base(e.text)
                if base is None:
                    continue
                out[base] = [s.split(":", 1) if ":" in s else [s, "1"]
                             for s in re.findall(r"\[([^\[\]]*)\]", e.text)]
        return out

    def _arrays(self, loop, tsar, omp, refs):
        omp_maps = self._omp_maps(omp)
        names = {}
        entries = [(t, item, True) for t, item in tsar.part_maps] + \
            [("to", item, False) for item in tsar.maps]
        for map_type, item, part in entries:
            if item.var in names:
                self.error(item.offset, f"'{item.var}' is mapped twice")
            if item.var not in refs:
                self.error(item.offset, f"the loop does not use '{item.var}'")
            decl = refs[item.var][0]
            t = decl.type
            if not ca.is_pointer_like(t):
                self.error(item.offset, f"'{item.var}' is not an array or a pointer "
                           f"('{t.spelling}'); scalars need no map")
            a = Array(item.var, item.offset, decl, part, map_type)
            self._shape(a, item, omp_maps.get(item.var), loop)
            # from: the loop writes its rows whole, as OpenMP's map(from:) assumes (the
            # device's copy need not start from the host's values).
            flags = {"to": "TSAR_MEM_IN", "from": "TSAR_MEM_OUT | TSAR_MEM_OVERWRITE",
                     "tofrom": "TSAR_MEM_INOUT"}
            a.flags = flags[map_type]
            if self.data is not None:
                self.data.apply(a)
            names[item.var] = a
            loop.arrays.append(a)
        for name, where in tsar.persist:
            if name not in names:
                self.error(where, f"persist({name}): '{name}' is not in a part_map or map")
            names[name].flags += " | TSAR_MEM_PERSIST"

    def _shape(self, a, item, omp_sections, loop):
        """Element size, rows, columns and halo of an array from its clause, its type and the
        OpenMP map of it (which says how many rows there are)."""
        rank, a.elem, whole_rows = geometry(a.decl, a.name, item.offset)
        a.flattened = rank == 1
        secs = item.sections
        for s in secs[1:] if a.part else ():
            if re.search(rf"\b{re.escape(loop.var)}\b", s.lower.text):
                self.error(s.lower.offset, f"'{a.name}' split by columns: not supported (an "
                           "accelerator's columns are packed, so the loop's indices would "
                           f"change); map it whole, map(to: {a.name}[0:...]), if the loop "
                           "only reads it")
        if a.flattened and len(secs) > 1:
            a.cols, a.row = row_of(a.name, secs[1:])
        elif not a.flattened:
            if len(secs) > rank:
                self.error(item.offset, f"'{a.name}' has {rank} dimensions, the clause {len(secs)}")
            a.cols = f"sizeof({a.name}[0]) / {a.elem}"
        if a.part:
            if not secs:
                self.error(item.offset, f"part_map({a.name}): give the rows iteration "
                           f"{loop.var} uses: {a.name}[{loop.var}:1]...")
            lo, length = self._partition(a, secs[0], loop)
            a.row_offsets = (lo, lo + length - 1)
            if a.map_type != "to" and a.row_offsets != (0, 0):
                self.error(secs[0].lower.offset, f"'{a.name}' is written by the loop: iteration "
                           f"{loop.var} may use row {loop.var} only ([{loop.var}:1]), so no two "
                           "devices write one row")
            a.halo = max(0, -lo, lo + length - 1)
            a.rows = self._rows(a, omp_sections, whole_rows, item)
        else:
            if secs:
                for s in secs:
                    if _integer(s.lower.text) != 0:
                        self.error(s.lower.offset, f"map({a.name}): sections must start at 0")
                if a.flattened:
                    a.rows = " * ".join(f"({s.length.text})" for s in secs)
                    a.cols = "1"
                else:
                    a.rows = secs[0].length.text
            elif whole_rows:
                a.rows = whole_rows
            else:
                self.error(item.offset, f"map({a.name}): give its extent, {a.name}[0:n]")

    def _partition(self, a, sec, loop):
        text = re.sub(r"\s+", "", sec.lower.text)
        v = re.escape(loop.var)
        m = re.fullmatch(rf"{v}(?:([+-])([0-9]+))?|([0-9]+)\+{v}", text)
        length = _integer(sec.length.text)
        if not m or length is None or length < 1:
            self.error(sec.lower.offset, f"'{a.name}': the first section must be the rows "
                       f"iteration {loop.var} uses, [{loop.var}:1] or [{loop.var}-h:2h+1] "
                       f"(the loop variable plus or minus a constant, a constant length)")
        if m.group(3):
            lo = int(m.group(3))
        else:
            lo = int(m.group(2) or 0) * (-1 if m.group(1) == "-" else 1)
        return lo, length

    def _rows(self, a, omp_sections, whole_rows, item):
        if self.data is not None and self.data.array(a.name):
            return ""  # the data environment's (DataBlock.apply)
        if omp_sections:
            for lower, _ in omp_sections:
                if lower.strip() not in ("", "0"):
                    self.error(item.offset, f"'{a.name}': the OpenMP map of it must start at 0 "
                               f"(it starts at {lower.strip()})")
            lengths = [length.strip() for _, length in omp_sections]
            if a.flattened:
                total = " * ".join(f"({x})" for x in lengths)
                if a.cols == "1":
                    return total
                return f"tsar_tr_rows((size_t)({total}), (size_t)({a.cols}))"
            return lengths[0]
        if whole_rows:
            return whole_rows
        self.error(item.offset, f"how many rows has '{a.name}'? Map it on the OpenMP construct "
                   f"(map({a.map_type}: {a.name}[0:n]) or the whole array)")

    # -- reductions -------------------------------------------------------------------------

    def _reductions(self, loop, omp, refs):
        for c in omp.clause("reduction"):
            prefix, items, at = split_prefix(c.args)
            mods = [m.strip() for m in prefix.split(",")]
            op = mods[-1]
            if any(m in ("inscan", "task") for m in mods[:-1]):
                self.error(c.offset, f"reduction modifier {mods[0]} is not supported")
            if op not in REDUCTIONS:
                self.error(c.offset, f"reduction '{op}': TSAR combines +, -, *, &, |, ^, &&, "
                           "||, min and max (not user-defined reductions)")
            for e in split_items(items, c.args_offset + at):
                if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", e.text):
                    self.error(e.offset, f"reduction of '{e.text}': only scalar variables "
                               "(not array sections) can be reduced")
                if e.text not in refs:
                    self.error(e.offset, f"the loop does not use '{e.text}'")
                decl = refs[e.text][0]
                ck = ca.canonical_kind(decl.type)
                cpp = self.unit.language == "c++"
                if ck not in LIMITS and not (cpp and ck == ca.T.UNEXPOSED):
                    self.error(e.offset, f"reduction of '{e.text}': its type "
                               f"'{decl.type.spelling}' is not arithmetic")
                identity, combine = REDUCTIONS[op]
                if cpp:  # types a template may decide: identities from numeric_limits
                    t = f"std::decay_t<decltype({e.text})>"
                    bounds = (f"tsar_tr_lowest<{t}>()", f"tsar_tr_highest<{t}>()")
                else:
                    bounds = LIMITS[ck]
                identity = {"LOWEST": bounds[0], "HIGHEST": bounds[1]}.get(identity, identity)
                if op in ("&", "|", "^") and ck in FLOATING:
                    self.error(e.offset, f"reduction '{op}' of floating-point '{e.text}'")
                loop.reductions.append(Reduction(e.text, decl, decl.type.spelling,
                                                 identity, combine))

    # -- the construct's clauses, as the GPU branch repeats them ----------------------------

    def _clauses(self, loop, omp, tsar):
        arrays = {a.name for a in loop.arrays}
        mapped = set()
        for c in omp.clauses:
            if c.name in REFUSED:
                self.error(c.offset, f"the OpenMP clause '{c.name}' is not supported under "
                           f"TSAR: {REFUSED[c.name]}")
            if c.name == "device":
                continue  # each device's range goes to its own device
            if c.name == "if":
                prefix, cond, _ = split_prefix(c.args)
                if prefix not in ("", "target"):
                    self.error(c.offset, f"if({prefix}: ...) on the construct: only an if for "
                               "the target (whether to offload) can be honoured")
                loop.target_if = cond
                continue
            if c.name != "map":
                loop.gpu_clauses.append(c.text)
                if c.name in CPU_CLAUSES:
                    loop.cpu_clauses.append(c.text)
                continue
            prefix, items, at = split_prefix(c.args)
            kept = []
            for e in split_items(items, c.args_offset + at):
                base = item_base(e.text)
                if base is None:
                    self.error(e.offset, f"map item '{e.text}': only variables and their array "
                               "sections can be co-scheduled (copy members into locals)")
                if base in arrays:
                    continue  # the device's pointer comes from TSAR
                mapped.add(base)
                kept.append(e.text)
            if kept:
                loop.gpu_clauses.append(f"map({prefix + ': ' if prefix else ''}"
                                        + ", ".join(kept) + ")")
        missing = [r for r in loop.reductions if r.name not in mapped]
        if missing:
            loop.gpu_clauses.append("map(tofrom: " + ", ".join(r.name for r in missing) + ")")
        used = [a.name for a in loop.arrays]
        if used:
            loop.gpu_clauses.append("is_device_ptr(" + ", ".join(used) + ")")

    # -- captures ---------------------------------------------------------------------------

    def _captures(self, loop, stmt, refs):
        arrays = {a.name: a for a in loop.arrays}
        reduced = {r.name for r in loop.reductions}
        names = dict((name, d) for name, (d, _) in refs.items())
        visible = self._visible(loop)
        for clause in loop.gpu_clauses:
            for ident in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", clause):
                if ident in visible and ident not in names and ident != loop.var:
                    names[ident] = visible[ident]
        for name, d in names.items():
            if name in arrays:
                if ca.is_local(d):
                    loop.captures.append(Capture(name, d, "array"))
                continue
            if name in reduced:
                loop.captures.append(Capture(name, d, "reduction"))
                continue
            if ca.is_pointer_like(d.type):
                where = refs[name][1] if name in refs else loop.offset
                self.error(where, f"the loop uses '{name}', an array or pointer the directive "
                           f"does not map: add part_map({name}[{loop.var}:1]...) if iteration "
                           f"{loop.var} uses its row {loop.var}, or map(to: {name}[0:n]) if "
                           "every iteration may read all of it")
            if ca.is_local(d):
                loop.captures.append(Capture(name, d, "value"))
        if self.unit.language == "c":
            for c in loop.captures:
                problem = ca.file_scope_problem(c.decl.type)
                if problem:
                    self.error(refs[c.name][1] if c.name in refs else loop.offset,
                               f"'{c.name}' has {problem}, which the generated body function "
                               "cannot name at file scope")
            problem = ca.file_scope_problem(loop.var_decl.type)
            if problem:
                self.error(loop.header_offset, f"the loop variable has {problem}")

    # -- how the body uses the mapped arrays --------------------------------------------------

    def _check_uses(self, loop, stmt):
        arrays = {a.name: a for a in loop.arrays}
        lin = _Linear(self.unit, loop.var_decl)
        for n, up in ca.walk(stmt):
            if kind(n) == K.DECL_REF_EXPR and n.referenced == loop.var_decl and \
                    n.extent.start.offset >= loop.body_offset and self._written(up, n):
                self.error(n.extent.start.offset, f"the body changes the loop variable "
                           f"'{loop.var}'; TSAR hands out ranges of its values")
            if kind(n) != K.DECL_REF_EXPR or n.spelling not in arrays:
                continue
            a = arrays[n.spelling]
            if n.referenced != a.decl:
                continue
            self._check_use(a, n, up, lin, loop)

    def _parent(self, up, node):
        """(the nearest ancestor that is not a cast or parentheses, its ancestors, the child
        under it); the ancestor is None at the top."""
        child = node
        for k in range(len(up) - 1, -1, -1):
            if kind(up[k]) not in ca.TRANSPARENT:
                return up[k], up[:k], child
            child = up[k]
        return None, (), child

    def _written(self, up, node):
        """Whether the expression `node` (with ancestors `up`) is assigned, incremented or
        decremented."""
        p, _, child = self._parent(up, node)
        k = kind(p)
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return list(p.get_children())[0] == child
        if k == K.BINARY_OPERATOR:
            return self.unit.binary_op(p) == "=" and list(p.get_children())[0] == child
        if k == K.UNARY_OPERATOR:
            return self.unit.unary_op(p) in ("++", "--")
        return False

    def _check_use(self, a, ref, up, lin, loop):
        u = self.unit
        where = ref.extent.start.offset
        if u.from_macro(ref) or u.text(ref) != a.name:
            if a.part:
                self.error(where, f"'{a.name}' is used inside a macro expansion here, where "
                           "the translator cannot check which rows it touches: write the index "
                           "in the loop")
            return
        p, p_up, child = self._parent(up, ref)
        k = kind(p)
        access = None  # the subscript or pointer arithmetic, and the index (offset) in it
        index = None
        if k == K.ARRAY_SUBSCRIPT_EXPR and list(p.get_children())[0] == child:
            access, index = p, list(p.get_children())[1]
        elif k == K.BINARY_OPERATOR and u.binary_op(p) in ("+", "-"):
            lhs, rhs = p.get_children()
            if lhs == child:
                access, index = p, (rhs if u.binary_op(p) == "+" else None)
            elif u.binary_op(p) == "+":
                access, index = p, lhs
        elif k == K.BINARY_OPERATOR and u.binary_op(p) == "=" and \
                list(p.get_children())[0] == child:
            self.error(where, f"the loop assigns the pointer '{a.name}' itself")
        if a.map_type == "to" and k == K.ARRAY_SUBSCRIPT_EXPR and access is not None:
            # a[e0][e1]...: the element is the outermost subscript of the chain
            outer, outer_up = access, p_up
            while True:
                q, q_up, q_child = self._parent(outer_up, outer)
                if kind(q) != K.ARRAY_SUBSCRIPT_EXPR or list(q.get_children())[0] != q_child:
                    break
                outer, outer_up = q, q_up
            if self._written(outer_up, outer):
                self.error(where, f"the loop writes '{a.name}', which the directive maps "
                           f"to (read-only): use part_map(tofrom: ...) for arrays the loop writes")
        if not a.part:
            return
        if access is None:
            self.error(where, f"'{a.name}' is used whole here; TSAR gives each device only the "
                       f"rows of its iterations: index it with the loop variable "
                       f"({a.name}[{loop.var}{' * row + j' if a.flattened else ''}])")
        form = lin.form(index) if index is not None else None
        row = a.row if a.flattened else (1, ())
        offset = _row_offset(form, row) if form is not None else None
        text = u.text(access)
        if offset is None:
            shape = f"{loop.var} * {a.cols} + j" if row != (1, ()) else f"{loop.var} + c"
            self.error(index.extent.start.offset if index is not None else where,
                       f"cannot tell which row of '{a.name}' iteration {loop.var} uses in "
                       f"'{text}': the index must be {shape} (c a constant)")
        lo, hi = a.row_offsets
        if not lo <= offset <= hi:
            self.error(index.extent.start.offset, f"'{text}' uses row {loop.var}{offset:+d} of "
                       f"'{a.name}', outside the rows its part_map gives iteration {loop.var} "
                       f"({loop.var}{lo:+d} .. {loop.var}{hi:+d})")
