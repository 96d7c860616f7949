# SPDX-License-Identifier: BSD-3-Clause
"""The generated code of a translated loop (see the README for its shape).

C and C++ differ only in where the body function lives and how it names types: in C it is a
static function before the enclosing function, its argument struct typed with __typeof__ of
the variables' spelled types (checked to be nameable at file scope); in C++ it is a
captureless lambda at the loop, its struct typed with decltype, so templates, namespaces and
local types work unchanged."""

import os

from .directive import DEVICES


# The body's locals are named like the variables they stand for (so the loop body is
# unchanged), which shadows them on purpose.
_NO_SHADOW_WARNINGS = "#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wshadow\"\n"
_WARNINGS_BACK = "#pragma GCC diagnostic pop\n"


def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Emitter:
    def __init__(self, source, language):
        self.source = source
        self.cpp = language == "c++"
        self.file = _c_string(source.path)

    def line(self, offset):
        return self.source.line_col(offset)[0]

    def line_directive(self, offset):
        return f"#line {self.line(offset)} {self.file}\n"

    # ---- names ------------------------------------------------------------------------------

    def _ids(self, loop):
        n = self.line(loop.offset)
        return {k: f"tsar_{k}_{n}" for k in ("loop", "held", "buffers", "args", "body",
                                              "lower", "upper", "done", "reductions")}

    def _red(self, loop, r, what):
        return f"tsar_{what}_{self.line(loop.offset)}_{r.name}"

    def _field_type(self, c):
        """The type of the argument struct's field for a captured variable."""
        if self.cpp:
            if c.role == "array":
                return f"decltype(&{c.name}[0])"
            return f"std::decay_t<decltype({c.name})>"
        t = c.decl.type
        if c.role == "array" and t.get_canonical().kind != t.get_canonical().kind.POINTER:
            return f"__typeof__({t.element_type.spelling}) *"
        return f"__typeof__({t.spelling})"

    # ---- the body: one device's range -----------------------------------------------------

    def _body(self, loop, ids, indent):
        """The statements of the body function (shared by C and C++)."""
        cpp = self.cpp
        p = indent
        args = ids["args"]
        out = []
        if cpp:
            out.append(f"{p}const auto* tsar_args_ = static_cast<const {args}*>(tsar_arg_);\n")
        else:
            out.append(f"{p}const struct {args}* tsar_args_ = (const struct {args}*)tsar_arg_;\n")
        out.append(f"{p}const int64_t tsar_b_ = tsar_chunk_->begin, tsar_e_ = tsar_chunk_->end;\n")
        for c in loop.captures:
            f = f"tsar_args_->tsar_{c.name}"
            if c.role == "value":
                decl = "auto" if cpp else f"__typeof__({f})"
                out.append(f"{p}{decl} {c.name} = {f};\n")
        for a in loop.arrays:
            f = f"tsar_args_->tsar_{a.name}"
            t = f"decltype({f})" if cpp else f"__typeof__({f})"
            cast = f"static_cast<{t}>" if cpp else f"({t})"
            out.append(f"{p}{t} {a.name} = {cast}(tsar_mem(tsar_chunk_->region, {f}));\n")
        for r in loop.reductions:
            out.append(f"{p}{self._red_type(loop, r)} {r.name} = {r.identity};\n")
        if not loop.var_declared:
            t = f"std::decay_t<decltype({loop.var})>" if cpp else f"__typeof__({loop.var_type})"
            out.append(f"{p}{t} {loop.var};\n")
        header = self._header(loop)
        out.append(f"{p}if (tsar_chunk_->kind != TSAR_DEVICE_OMP_TARGET) {{\n")
        out.append(f"{p}  const int tsar_team_ = tsar_args_->tsar_cores_[tsar_chunk_->worker];\n")
        out.append(f"{p}  if (tsar_team_ > 1) {{\n")
        out.append(f"{p}    /* a team of cores (team:N-M): they share the range */\n")
        team = " ".join(["num_threads(tsar_team_)"] + loop.cpu_clauses)
        out.append(f"#line {self.line(loop.header_offset) - 1} {self.file}\n")
        out.append(f"#pragma omp parallel for {team}\n")
        out.append(header + loop.body + "\n")
        out.append(f"{p}  }} else {{\n")
        out.append(f"{p}    /* a CPU core (or a host-memory device): the loop body as written */\n")
        out.append(self.line_directive(loop.header_offset))
        out.append(header + loop.body + "\n")
        out.append(f"{p}  }}\n")
        for r in loop.reductions:
            acc = self._acc(loop, r)
            out.append(f"{p}  {acc}\n{p}  *tsar_acc_ = "
                       + r.combine.format(a="(*tsar_acc_)", b=f"({r.name})") + ";\n")
            out.append(f"{p}  }}\n")
        out.append(f"{p}}} else {{\n")
        out.append(f"{p}  /* an OpenMP target device: the construct as written, over the range, "
                   "on TSAR's device copies */\n")
        clauses = " ".join(["device(tsar_chunk_->omp_device)"] + loop.gpu_clauses)
        out.append(f"#line {self.line(loop.header_offset) - 1} {self.file}\n")
        out.append(f"#pragma omp {' '.join(loop.words)} {clauses}\n")
        out.append(header + loop.body + "\n")
        for r in loop.reductions:
            acc = self._acc(loop, r)
            out.append(f"{p}  {acc}\n")
            out.append("#pragma omp target device(tsar_chunk_->omp_device) "
                       "is_device_ptr(tsar_acc_)\n")
            out.append(f"{p}  *tsar_acc_ = "
                       + r.combine.format(a="(*tsar_acc_)", b=f"({r.name})") + ";\n")
            out.append(f"{p}  }}\n")
        out.append(f"{p}}}\n")
        return "".join(out)

    def _acc(self, loop, r):
        t = self._red_type(loop, r)
        cast = f"static_cast<{t}*>" if self.cpp else f"({t}*)"
        return (f"{{ {t}* tsar_acc_ = {cast}(tsar_reduction(tsar_chunk_->region, "
                f"&{self._red(loop, r, 'result')}));")

    def _red_type(self, loop, r):
        if self.cpp:
            return f"decltype({self._red(loop, r, 'result')})"
        return f"__typeof__({r.type_spelling})"

    def _header(self, loop):
        """The loop's header over the device's range, indented like the original."""
        col = self.source.line_col(loop.header_offset)[1]
        t = loop.var_type
        decl = f"{t} " if loop.var_declared else ""
        return (" " * (col - 1) + f"for ({decl}{loop.var} = ({t})tsar_b_; {loop.var} < ({t})tsar_e_;"
                f" ++{loop.var})")

    # ---- pieces before the enclosing function (C) -------------------------------------------

    def _args_struct(self, loop, ids, indent):
        p = indent
        out = [f"{p}struct {ids['args']} {{\n",
               f"{p}  const int* tsar_cores_;\n"]
        for c in loop.captures:
            if c.role in ("value", "array"):
                out.append(f"{p}  {self._field_type(c)} tsar_{c.name};\n")
        for a in loop.arrays:
            if not any(c.name == a.name for c in loop.captures):  # a global array
                t = f"decltype(&{a.name}[0])" if self.cpp else f"__typeof__(&{a.name}[0])"
                out.append(f"{p}  {t} tsar_{a.name};\n")
        out.append(f"{p}}};\n")
        return "".join(out)

    def _reduction_statics(self, loop, indent):
        """Each reduction's proxy (what TSAR combines the devices' accumulators into), its
        identity and its combine function."""
        p = indent
        out = []
        for r in loop.reductions:
            result, identity = self._red(loop, r, "result"), self._red(loop, r, "identity")
            t = f"std::decay_t<decltype({r.name})>" if self.cpp else \
                f"__typeof__({r.type_spelling})"
            out.append(f"{p}static {t} {result};\n")
            out.append(f"{p}static const {t} {identity} = {r.identity};\n")
            if self.cpp:
                continue  # (its combine function is a lambda in the table)
            combine = r.combine.format(a=f"(*({t}*)tsar_inout_)", b=f"(*(const {t}*)tsar_in_)")
            out.append(f"{p}static void {self._red(loop, r, 'combine')}(void* tsar_inout_, "
                       "const void* tsar_in_, void* tsar_ctx_) {\n"
                       f"{p}  (void)tsar_ctx_;\n{p}  *({t}*)tsar_inout_ = {combine};\n{p}}}\n")
        return "".join(out)

    def _reduction_table(self, loop, ids, indent):
        if not loop.reductions:
            return ""
        p = indent
        rows = []
        for r in loop.reductions:
            result, identity = self._red(loop, r, "result"), self._red(loop, r, "identity")
            if self.cpp:
                t = f"decltype({result})"
                combine = r.combine.format(a=f"(*static_cast<{t}*>(tsar_inout_))",
                                           b=f"(*static_cast<const {t}*>(tsar_in_))")
                fn = (f"[](void* tsar_inout_, const void* tsar_in_, void*) {{ "
                      f"*static_cast<{t}*>(tsar_inout_) = {combine}; }}")
            else:
                fn = self._red(loop, r, "combine")
            rows.append(f"{p}  {{&{result}, &{identity}, sizeof {result}, {fn}}},\n")
        return (f"{p}static const tsar_tr_reduction {ids['reductions']}[] = {{\n"
                + "".join(rows) + f"{p}}};\n")

    def before_function(self, loops):
        """C: what goes before the function that holds `loops`."""
        out = []
        for loop in loops:
            ids = self._ids(loop)
            out.append(f"/* tsar-translate: {self.source.path}:{self.line(loop.offset)}: one "
                       "device's range of the loop (tsar_run calls it) */\n")
            out.append(self._args_struct(loop, ids, ""))
            out.append(self._reduction_statics(loop, ""))
            out.append(self._reduction_table(loop, ids, ""))
            out.append(_NO_SHADOW_WARNINGS)
            out.append(f"static void {ids['body']}(const tsar_chunk* tsar_chunk_, "
                       "void* tsar_arg_) {\n")
            out.append(self._body(loop, ids, "  "))
            out.append("}\n")
            out.append(_WARNINGS_BACK)
        return "".join(out)

    # ---- at the loop ----------------------------------------------------------------------

    def at_loop(self, loop, tsar):
        ids = self._ids(loop)
        cpp = self.cpp
        p = "  "
        where = f"{os.path.basename(self.source.path)}:{self.line(loop.offset)}"
        name = tsar.name or _c_string(where)
        schedule = _c_string(tsar.schedule) if tsar.schedule else "NULL"
        div = f"(int)({tsar.div.text})" if tsar.div else "0"
        nbuf = len(loop.arrays)
        out = [_NO_SHADOW_WARNINGS if cpp else "",
               f"{{ /* tsar-translate: the loop of {where} co-scheduled by TSAR */\n"]
        if cpp:
            out.append(self._reduction_statics(loop, p))
            out.append(self._reduction_table(loop, ids, p))
        reductions = (ids["reductions"], len(loop.reductions)) if loop.reductions else \
            ("NULL", 0)
        data = f"&{self._data_id(loop.data)}" if loop.data else "NULL"
        out.append(f"{p}static tsar_tr_buffer {ids['held']}[{max(nbuf, 1)}];\n")
        out.append(f"{p}static tsar_tr_loop {ids['loop']} = TSAR_TR_LOOP({name}, {schedule},\n"
                   f"{p}    {DEVICES[tsar.devices]}, {div}, {ids['held']}, {nbuf}, "
                   f"{reductions[0]}, {reductions[1]}, {data});\n")
        out.append(f"{p}const int64_t {ids['lower']} = (int64_t)({loop.lower});\n")
        out.append(f"{p}const int64_t {ids['upper']} = (int64_t)({loop.upper});\n")
        out.append(f"{p}int {ids['done']} = 0;\n")
        cond = [f"{ids['upper']} > {ids['lower']}"]
        if tsar.condition:
            cond.append(f"({tsar.condition.text})")
        if loop.target_if:
            cond.append(f"({loop.target_if})")
        out.append(f"{p}if ({' && '.join(cond)}) {{\n")
        q = p + "  "
        out.append(f"{q}/* what iteration i uses: {{bytes per element, rows, elements per row, "
                   "row stride, halo rows, association, direction} */\n")
        out.append(f"{q}const tsar_tr_buffer {ids['buffers']}[{max(nbuf, 1)}] = {{\n")
        for a in loop.arrays:
            assoc = "TSAR_ASSOC_ROWS" if a.part else "TSAR_ASSOC_FULL"
            out.append(f"{q}  {{\"{a.name}\", (void*)({a.name}), {{{a.elem}, (size_t)({a.rows}), "
                       f"(size_t)({a.cols}), 0, {a.halo}, {assoc}, {a.flags}}}}},\n")
        if not loop.arrays:
            out.append(f"{q}  {{NULL, NULL, {{0, 0, 0, 0, 0, 0, 0}}}}\n")
        out.append(f"{q}}};\n")
        out.append(f"{q}if (tsar_tr_begin(&{ids['loop']}, {ids['buffers']})) {{\n")
        r = q + "  "
        if cpp:
            out.append(self._args_struct(loop, ids, r))
        kw = "" if cpp else "struct "
        values = [f"{ids['loop']}.cores"]
        values += [c.name for c in loop.captures if c.role in ("value", "array")]
        values += [a.name for a in loop.arrays
                   if not any(c.name == a.name for c in loop.captures)]
        out.append(f"{r}{kw}{ids['args']} tsar_args = {{{', '.join(values)}}};\n")
        for red in loop.reductions:
            out.append(f"{r}{self._red(loop, red, 'result')} = "
                       f"{self._red(loop, red, 'identity')};\n")
        if cpp:
            out.append(f"{r}tsar_tr_run(&{ids['loop']}, {ids['lower']}, {ids['upper']}, "
                       "[](const tsar_chunk* tsar_chunk_, void* tsar_arg_) {\n")
            out.append(self._body(loop, ids, r + "  "))
            out.append(f"{r}}}, &tsar_args);\n")
        else:
            out.append(f"{r}tsar_tr_run(&{ids['loop']}, {ids['lower']}, {ids['upper']}, {ids['body']}, "
                       "&tsar_args);\n")
        for red in loop.reductions:
            out.append(f"{r}{red.name} = " + red.combine.format(
                a=f"({red.name})", b=f"({self._red(loop, red, 'result')})") + ";\n")
        out.append(f"{r}tsar_tr_end(&{ids['loop']});\n")
        out.append(f"{r}{ids['done']} = 1;\n")
        out.append(f"{q}}}\n{p}}}\n")
        out.append(f"{p}if (!{ids['done']}) {{ /* the loop as written */\n")
        out.append(self.line_directive(loop.original_offset))
        out.append(loop.original + "\n")
        out.append(f"{p}}}\n}}\n")
        if cpp:
            out.append(_WARNINGS_BACK)
        return "".join(out)

    # ---- data blocks ------------------------------------------------------------------------

    def _data_id(self, block):
        return f"tsar_data_{self.line(block.offset)}"

    def data_enter(self, block):
        """Replaces `#pragma tsar data ...`: the environment, entered with the block's arrays
        (the block follows, then data_exit)."""
        d = self._data_id(block)
        n = len(block.arrays)
        where = f"{os.path.basename(self.source.path)}:{self.line(block.offset)}"
        rows = "".join(
            f"      {{\"{a.name}\", (void*)({a.name}), {{{a.elem}, (size_t)({a.rows}), "
            f"(size_t)({a.cols}), 0, 0, TSAR_ASSOC_ROWS, {a.flags}}}}},\n" for a in block.arrays)
        return (f"{{ /* tsar-translate: the data environment of {where}: its arrays stay on the "
                "devices for the loops of the block */\n"
                f"  static tsar_tr_buffer {d}_held[{n}];\n"
                f"  static tsar_tr_data {d} = TSAR_TR_DATA({_c_string(where)}, {d}_held, {n});\n"
                "  {\n"
                f"    const tsar_tr_buffer tsar_buffers_[{n}] = {{\n{rows}    }};\n"
                f"    tsar_tr_data_enter(&{d}, tsar_buffers_);\n"
                "  }\n")

    def data_exit(self, block):
        """After the data block: the results back to the host."""
        return f"  tsar_tr_data_exit(&{self._data_id(block)});\n}}\n"

    def data_update(self, block, update):
        d = self._data_id(block)
        calls = [f"tsar_tr_data_update(&{d}, (const void*)({n}), 1);" for n, _ in update.to]
        calls += [f"tsar_tr_data_update(&{d}, (const void*)({n}), 0);" for n, _ in update.from_]
        return "{ " + " ".join(calls) + " }\n"

    def depersist(self, names):
        return "{ " + " ".join(f"tsar_tr_depersist((const void*)({n}));" for n in names) + " }\n"

    def prologue(self, loops):
        lines = [f"/* Generated by tsar-translate from {self.source.path}: edit that file, "
                 "not this one. */\n", "#include \"tsar/translated.h\"\n"]
        kinds = {r.identity for loop in loops for r in loop.reductions}
        if any("HUGE_VAL" in k for k in kinds):
            lines.append("#include <math.h>\n")
        if any(k.endswith("_MIN") or k.endswith("_MAX") for k in kinds):
            lines.append("#include <limits.h>\n")
        lines.append(f"#line 1 {self.file}\n")
        return "".join(lines)
