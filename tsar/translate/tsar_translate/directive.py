# SPDX-License-Identifier: BSD-3-Clause
"""The two directives a translated loop carries: `#pragma tsar ...` (parsed here into its
clauses, grammar in grammar.py) and the user's `#pragma omp target ...` construct (parsed
into words and clauses, so the GPU branch can repeat it with the device's pointers)."""

import re
from dataclasses import dataclass, field

from .source import TranslateError, tokenize

DEVICES = {
    # TSAR_DEVICE_* kinds of each hetero() device class. CUDA devices are never given to a
    # translated loop: its accelerator branch is an OpenMP target construct.
    "all": "TSAR_DEVICE_CPU | TSAR_DEVICE_OMP_TARGET | TSAR_DEVICE_EMULATED",
    "cpu": "TSAR_DEVICE_CPU",
    "accel": "TSAR_DEVICE_OMP_TARGET | TSAR_DEVICE_EMULATED",
    "gpu": "TSAR_DEVICE_OMP_TARGET | TSAR_DEVICE_EMULATED",
}
SCHEDULES = ("static", "adaptive", "split", "quick", "chunk", "chunk-static", "chunk-dynamic",
             "hybrid", "hguided")
MAP_TYPES = ("to", "from", "tofrom")


@dataclass
class Expr:
    """An expression of a directive, as text, with where it starts in the source."""

    text: str
    offset: int


@dataclass
class Section:
    lower: Expr
    length: Expr


@dataclass
class Item:
    """`var[lower:length][lower:length]...` of a map-like clause."""

    var: str
    offset: int
    sections: list
    text: str


@dataclass
class TsarLoop:
    offset: int
    devices: str = "all"
    schedule: str = None  # None: TSAR_SCHEDULE, else adaptive
    div: Expr = None
    condition: Expr = None
    name: str = None
    part_maps: list = field(default_factory=list)  # (map type, Item)
    maps: list = field(default_factory=list)  # Item (inputs)
    persist: list = field(default_factory=list)  # (name, offset)


@dataclass
class TsarDepersist:
    offset: int
    names: list  # (name, offset)


@dataclass
class TsarData:
    """`#pragma tsar data map(...)` before a block: a data environment for its loops."""

    offset: int
    maps: list = field(default_factory=list)  # (map type, Item)


@dataclass
class TsarUpdate:
    """`#pragma tsar update to(...) from(...)` inside a data block."""

    offset: int
    to: list = field(default_factory=list)  # (name, offset)
    from_: list = field(default_factory=list)


@dataclass
class OmpClause:
    name: str
    text: str  # the whole clause as written (comments removed)
    args: str = None  # between its parentheses
    args_offset: int = 0
    offset: int = 0


@dataclass
class OmpConstruct:
    words: list  # "target", "teams", "distribute", ...
    clauses: list
    offset: int

    def clause(self, name):
        return [c for c in self.clauses if c.name == name]


class _Parser:
    def __init__(self, line, tokens):
        self.line = line
        self.tokens = tokens
        self.i = 0

    def offset(self, tok=None):
        if tok is None:
            tok = self.tokens[self.i] if self.i < len(self.tokens) else None
        if tok is None:
            return self.line.offset(len(self.line.text))
        return self.line.offset(tok.pos)

    def peek(self, k=0):
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, text):
        t = self.peek()
        return t is not None and t.text == text

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text, what):
        t = self.peek()
        if t is None or t.text != text:
            found = "the end of the line" if t is None else f"'{t.text}'"
            raise TranslateError(self.offset(t), f"expected '{text}' {what}, found {found}")
        return self.next()

    def ident(self, what):
        t = self.peek()
        if t is None or t.kind != "ident":
            found = "the end of the line" if t is None else f"'{t.text}'"
            raise TranslateError(self.offset(t), f"expected {what}, found {found}")
        return self.next()

    def expression(self, stops, what):
        """Tokens up to one of `stops` at nesting depth 0, as an Expr (not empty)."""
        depth = 0
        first = self.i
        while True:
            t = self.peek()
            if t is None:
                raise TranslateError(self.offset(), f"unbalanced parentheses in {what}")
            if depth == 0 and t.text in stops:
                break
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
            self.next()
        if self.i == first:
            raise TranslateError(self.offset(), f"expected {what}")
        start, end = self.tokens[first].pos, self.tokens[self.i - 1].end
        return Expr(self.line.text[start:end], self.line.offset(start))

    def item(self, what):
        """var[lower:length]... (sections optional)."""
        var = self.ident(f"a variable in {what}")
        sections = []
        while self.at("["):
            self.next()
            lower = self.expression((":", "]"), f"the lower bound of a section of '{var.text}'")
            self.expect(":", f"in the section of '{var.text}' ([lower:length])")
            length = self.expression(("]",), f"the length of a section of '{var.text}'")
            self.expect("]", f"after the section of '{var.text}'")
            sections.append(Section(lower, length))
        if self.at(".") or self.at("->"):
            member = self.peek(1).text if self.peek(1) is not None else ""
            raise TranslateError(self.offset(), f"{what}: only variables can be mapped, not "
                                 f"members ('{var.text}{self.peek().text}{member}'); copy the "
                                 "member into a local pointer before the loop")
        end = self.tokens[self.i - 1].end
        return Item(var.text, self.line.offset(var.pos), sections,
                    self.line.text[var.pos:end])

    def items(self, what, parse_item):
        out = [parse_item(what)]
        while self.at(","):
            self.next()
            out.append(parse_item(what))
        return out

    def map_type(self, allowed, default):
        t, colon = self.peek(), self.peek(1)
        if t is not None and t.kind == "ident" and colon is not None and colon.text == ":":
            if t.text not in allowed:
                raise TranslateError(self.offset(t), f"map type '{t.text}': expected one of "
                                     + ", ".join(allowed))
            self.i += 2
            return t.text
        return default


def _names(p, what):
    names = p.items(what, lambda w: p.ident(f"a variable in {w}"))
    return [(t.text, p.offset(t)) for t in names]


def _data(p, start):
    d = TsarData(start)
    while p.peek() is not None:
        if p.at(","):
            p.next()
            continue
        clause = p.ident("map(...)")
        if clause.text != "map":
            raise TranslateError(p.offset(clause), f"unknown clause '{clause.text}' of tsar "
                                 "data: expected map([to|from|tofrom:] ...)")
        p.expect("(", "after map")
        kind = p.map_type(MAP_TYPES, "tofrom")
        d.maps.extend((kind, item) for item in p.items("map", p.item))
        p.expect(")", "to close map(...)")
    if not d.maps:
        raise TranslateError(start, "tsar data maps nothing: give map([to|from|tofrom:] ...)")
    return d


def _update(p, start):
    u = TsarUpdate(start)
    while p.peek() is not None:
        if p.at(","):
            p.next()
            continue
        clause = p.ident("to(...) or from(...)")
        if clause.text not in ("to", "from"):
            raise TranslateError(p.offset(clause), f"unknown clause '{clause.text}' of tsar "
                                 "update: expected to(...) or from(...)")
        p.expect("(", f"after {clause.text}")
        (u.to if clause.text == "to" else u.from_).extend(_names(p, clause.text))
        p.expect(")", f"to close {clause.text}(...)")
    if not u.to and not u.from_:
        raise TranslateError(start, "tsar update names nothing: give to(...) or from(...)")
    return u


def parse_tsar(line):
    """Parses `#pragma tsar ...` (a DirectiveLine) into TsarLoop, TsarData, TsarUpdate or
    TsarDepersist."""
    p = _Parser(line, tokenize(line.text, line.offset))
    p.i = 3  # '#', 'pragma', 'tsar'
    start = p.offset()
    head = p.ident("hetero(...), data, update or depersist(...) after '#pragma tsar'")
    if head.text == "data":
        return _data(p, start)
    if head.text == "update":
        return _update(p, start)
    if head.text == "depersist":
        p.expect("(", "after depersist")
        names = _names(p, "depersist")
        p.expect(")", "after the variables of depersist")
        if p.peek() is not None:
            raise TranslateError(p.offset(), "depersist takes no other clause")
        return TsarDepersist(start, names)
    if head.text != "hetero":
        raise TranslateError(p.offset(head), f"unknown TSAR directive '{head.text}': expected "
                             "hetero(...) before an OpenMP target loop, data before a block, "
                             "update or depersist(...)")
    d = TsarLoop(start)
    p.expect("(", "after hetero")
    dev = p.ident("a device class (all, cpu, accel or gpu)")
    if dev.text not in DEVICES:
        raise TranslateError(p.offset(dev), f"unknown device class '{dev.text}': expected all, "
                             "cpu, accel or gpu")
    d.devices = dev.text
    if p.at(","):
        p.next()
        d.schedule = _schedule(p)
        if p.at(","):
            p.next()
            d.div = p.expression((")",), "the sub-passes of hetero (div)")
    p.expect(")", "to close hetero(devices[, schedule[, div]])")
    seen = set()
    while p.peek() is not None:
        if p.at(","):
            p.next()
            continue
        clause = p.ident("a clause (if, name, part_map, map, persist)")
        where = p.offset(clause)
        if clause.text in ("if", "name") and clause.text in seen:
            raise TranslateError(where, f"'{clause.text}' given twice")
        seen.add(clause.text)
        p.expect("(", f"after {clause.text}")
        if clause.text == "if":
            d.condition = p.expression((")",), "the condition of if")
        elif clause.text == "name":
            t = p.next()
            if t is None or t.kind != "string" or not t.text.startswith('"'):
                raise TranslateError(where, "name takes a string literal: name(\"gemm\")")
            d.name = t.text
        elif clause.text == "part_map":
            kind = p.map_type(MAP_TYPES, "tofrom")
            for item in p.items("part_map", p.item):
                d.part_maps.append((kind, item))
        elif clause.text == "map":
            kind = p.map_type(MAP_TYPES, "to")
            if kind != "to":
                raise TranslateError(where, f"map({kind}: ...) of a whole array is not allowed: "
                                     "devices would each write all of it and nothing says whose "
                                     "values win; use part_map for what the loop writes")
            d.maps.extend(p.items("map", p.item))
        elif clause.text == "persist":
            d.persist.extend(_names(p, "persist"))
        else:
            raise TranslateError(where, f"unknown clause '{clause.text}': expected if, name, "
                                 "part_map, map or persist")
        p.expect(")", f"to close {clause.text}(...)")
    return d


def _schedule(p):
    """A schedule: a name (hyphens or underscores), 'runtime', or a string, optional ':size'."""
    t = p.peek()
    if t is not None and t.kind == "string":
        p.next()
        text = t.text.strip('"')
    else:
        e = p.expression((",", ")"), "a schedule")
        text = re.sub(r"\s+", "", e.text).replace("_", "-")
    name = text.split(":")[0]
    if name == "runtime":
        return None
    if name not in SCHEDULES:
        raise TranslateError(p.offset(t), f"unknown schedule '{name}': expected runtime or one of "
                             + ", ".join(SCHEDULES))
    return text


# Words that make up a combined OpenMP construct's name.
_CONSTRUCT_WORDS = {"target", "teams", "distribute", "parallel", "for", "simd", "loop"}
_LOOP_WORDS = {"distribute", "for", "simd", "loop"}


def parse_omp(line):
    """Parses `#pragma omp ...` into its construct words and clauses (text kept as written)."""
    tokens = tokenize(line.text, line.offset)
    p = _Parser(line, tokens)
    p.i = 3  # '#', 'pragma', 'omp'
    words = []
    while p.peek() is not None and p.peek().text in _CONSTRUCT_WORDS:
        words.append(p.next().text)
    clauses = []
    while p.peek() is not None:
        if p.at(","):
            p.next()
            continue
        name = p.ident("an OpenMP clause")
        start = name.pos
        args, args_offset = None, 0
        if p.at("("):
            p.next()
            if p.at(")"):
                args, args_offset = "", p.offset()
            else:
                e = p.expression((")",), f"the arguments of {name.text}")
                args, args_offset = e.text, e.offset
            p.expect(")", f"to close {name.text}(...)")
        end = tokens[p.i - 1].end
        clauses.append(OmpClause(name.text, line.text[start:end], args, args_offset,
                                 line.offset(start)))
    return OmpConstruct(words, clauses, line.offset(tokens[2].pos))


def is_target_loop(construct):
    return bool(construct.words) and construct.words[0] == "target" and any(
        w in _LOOP_WORDS for w in construct.words)


def split_items(text, offset):
    """The comma-separated items of a clause argument list, each as an Expr."""
    out, depth, start = [], 0, 0
    for k, c in enumerate(text + ","):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            piece = text[start:k]
            lead = len(piece) - len(piece.lstrip())
            out.append(Expr(piece.strip(), offset + start + lead))
            start = k + 1
    return out


def split_prefix(text):
    """'to: a[0:n], b' -> ('to', 'a[0:n], b', index of the list); ('', text, 0) without one.
    The prefix is everything before the first top-level ':' that is not part of '::' and
    comes before any '['."""
    depth = 0
    for k, c in enumerate(text):
        if c in "([{":
            if c == "[" and depth == 0:
                return "", text, 0
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            if text[k + 1:k + 2] == ":" or (k > 0 and text[k - 1] == ":"):
                continue
            rest = text[k + 1:]
            return text[:k].strip(), rest.strip(), k + 1 + (len(rest) - len(rest.lstrip()))
    return "", text, 0


def item_base(text):
    """The variable an OpenMP list item names ('a' for 'a[0:n]'), None for members etc."""
    m = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*(\[|$)", text)
    return m.group(1) if m else None
