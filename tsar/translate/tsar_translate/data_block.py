# SPDX-License-Identifier: BSD-3-Clause
"""`#pragma tsar data map(...)` before a block: the arrays a data environment (tsar/data.h)
keeps on the devices for the block's loops, with their shapes, checked; and how a loop in
the block registers them (with the environment's shape, as TSAR requires)."""

from dataclasses import dataclass, field

from . import clang_ast as ca
from .analysis import Array, factors_of, geometry, row_of
from .clang_ast import K, kind
from .source import TranslateError

FLAGS = {"to": "TSAR_MEM_IN", "from": "TSAR_MEM_OUT", "tofrom": "TSAR_MEM_INOUT"}


@dataclass
class DataArray:
    name: str
    offset: int
    map_type: str
    elem: str
    rows: str
    cols: str
    row: tuple  # the row length as factors_of gives it
    flags: str


@dataclass
class DataBlock:
    offset: int  # the directive
    start: int  # its line
    end: int  # past its line
    block_end: int  # past the block's '}'
    arrays: list = field(default_factory=list)
    function: object = None

    def contains(self, offset):
        return self.end <= offset < self.block_end

    def array(self, name):
        return next((a for a in self.arrays if a.name == name), None)

    def apply(self, a):
        """Array `a` of a loop in the block: registered with the environment's shape."""
        d = self.array(a.name)
        if d is None:
            return
        if d.map_type == "to" and a.map_type != "to":
            raise TranslateError(a.offset, f"the loop writes '{a.name}', which the data "
                                 "directive maps to (read-only): map it tofrom there")
        if a.part and a.flattened and d.row is not None and \
                factors_of(a.cols.replace(" ", "")) != d.row:
            raise TranslateError(a.offset, f"'{a.name}': rows of {a.cols} elements here, of "
                                 f"{d.cols} in the data directive; a data environment keeps "
                                 "one shape")
        a.elem, a.rows, a.cols = d.elem, d.rows, d.cols

    def implicit(self, named, refs):
        """The block's arrays a loop uses without naming them (`named`): read whole, as
        map(to:) would say. refs: the loop's variables, name -> (declaration, first use)."""
        out = []
        for d in self.arrays:
            if d.name in named or d.name not in refs:
                continue
            decl, where = refs[d.name]
            out.append(Array(d.name, where, decl, part=False, map_type="to", elem=d.elem,
                             rows=d.rows, cols=d.cols, flags="TSAR_MEM_IN"))
        return out


def analyze_data(unit, directive, line, stmt, lookup):
    """The DataBlock of `directive` (TsarData) and its statement; lookup(name) gives the
    declaration a name has at the block."""
    block = DataBlock(directive.offset, line.start, line.end, stmt.extent.end.offset,
                      function=unit.enclosing_function(stmt.extent.start.offset))
    _no_jumps_out(stmt)
    for map_type, item in directive.maps:
        if block.array(item.var):
            raise TranslateError(item.offset, f"'{item.var}' is mapped twice")
        decl = lookup(item.var)
        if decl is None:
            raise TranslateError(item.offset, f"no variable '{item.var}' here")
        if not ca.is_pointer_like(decl.type):
            raise TranslateError(item.offset, f"'{item.var}' is not an array or a pointer "
                                 f"('{decl.type.spelling}')")
        rank, elem, whole_rows = geometry(decl, item.var, item.offset)
        secs = item.sections
        for s in secs[:1]:
            if s.lower.text.strip() not in ("0", ""):
                raise TranslateError(s.lower.offset, f"map({item.var}): the rows start at 0")
        if rank == 1:
            if not secs:
                raise TranslateError(item.offset, f"map({item.var}): give its rows, "
                                     f"{item.var}[0:rows][0:columns] or {item.var}[0:n]")
            rows = secs[0].length.text
            cols, row = row_of(item.var, secs[1:]) if len(secs) > 1 else ("1", (1, ()))
        else:
            if secs:
                rows = secs[0].length.text
            elif whole_rows:
                rows = whole_rows
            else:
                raise TranslateError(item.offset, f"map({item.var}): give its rows, "
                                     f"{item.var}[0:rows]")
            cols, row = f"sizeof({item.var}[0]) / {elem}", None
        block.arrays.append(DataArray(item.var, item.offset, map_type, elem, rows, cols, row,
                                      FLAGS[map_type]))
    return block


def _no_jumps_out(stmt):
    """The block must end at its end: a return, goto, or a break/continue of a loop outside it
    would skip bringing the results back (as OpenMP requires of target data)."""
    loops = (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.CXX_FOR_RANGE_STMT)
    for n, up in ca.walk(stmt):
        k = kind(n)
        inside = up[up.index(stmt) + 1:] if stmt in up else ()
        if any(kind(a) in ca.FUNCTION_KINDS for a in inside):
            continue  # a lambda's return
        if k in (K.RETURN_STMT, K.GOTO_STMT, K.INDIRECT_GOTO_STMT) or (
                k == K.BREAK_STMT and not any(kind(a) in loops + (K.SWITCH_STMT,) for a in inside)) or (
                k == K.CONTINUE_STMT and not any(kind(a) in loops for a in inside)):
            raise TranslateError(n.extent.start.offset, "a tsar data block must not be left by "
                                 "return, goto, break or continue: the results would not come "
                                 "back to the host")
