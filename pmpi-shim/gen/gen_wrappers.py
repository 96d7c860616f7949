#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generates the PMPI shim's wrappers from one table of MPI calls (../mpi_calls.txt).

Outputs (into --out):
  pmpi_table.hpp       PmpiTable: a pointer to each real PMPI_ function, ABI-neutral types
  pmpi_table.cpp       resolve_pmpi_table(): fills it with dlsym(RTLD_NEXT, "PMPI_...")
  wrappers_c.cpp       the C bindings MPI_... (ABI-neutral: no mpi.h)
  wrappers_fortran.cpp the Fortran bindings mpi_..._ (gfortran naming) over pmpi_..._
  signature_check.cpp  compiled against mpi.h: every table prototype matches the library's

Why ABI-neutral: the wrappers never include mpi.h; handles travel as uintptr_t and are
forwarded bit for bit. A shim built for one MPI, preloaded into an application of another,
can then disable itself and pass every call through unharmed (src/hooks.cpp checks the
library at MPI_Init). The typed accounting code lives in src/ and includes mpi.h.
"""
import argparse
import re
import sys
from pathlib import Path

HANDLE_TYPES = {'MPI_Comm', 'MPI_Datatype', 'MPI_Op', 'MPI_Win', 'MPI_Group', 'MPI_Info',
                'MPI_Message', 'MPI_Request', 'MPI_Errhandler'}
POINTER_ONLY_TYPES = HANDLE_TYPES | {'MPI_Status'}

# How each kind of call is accounted. `cls`: CallClass; `before`/`after`: hook calls, with
# {arg} placeholders naming the call's arguments ({a|b}: the first of a, b the call has) and
# {mode} the send mode flag; `status`: status arguments the shim must see even when the
# application passes MPI_STATUS(ES)_IGNORE (replaced by per-thread scratch); `poll`: the call
# never blocks (timed by sampling, src/call.hpp) and `after` runs only when this holds.
# A `before` of before_complete or before_wait says whether any request is followed (`followed`,
# which `after` may use); `after` runs only then. `cached`: a test, before the FastCall, that
# what `after` needs is cached in the thread's state; `cached_after` then replaces `after`.
# `eager`: a test, on a cached hit, that the send surely does not wait for its receiver; such a
# send is then timed by sampling, as ts.eager_sends (src/call.hpp). Not generated for sync mode.
KINDS = {
    'send': dict(cls='kSend', after='after_send<SendMode::{mode}>(call.info(), {count}, {datatype}, {dest}, {comm})',
                 cached='send_cached(ts, {count}, {datatype}, {dest}, {comm})',
                 cached_after='after_send_cached<SendMode::{mode}>(call.info())',
                 eager='send_eager<SendMode::{mode}>(ts)'),
    'recv': dict(cls='kRecv', status='status', after='after_recv(call.info(), {comm}, {status})'),
    'mrecv': dict(cls='kRecv', status='status', after='after_mrecv(call.info(), {status})'),
    'sendrecv': dict(cls='kSendrecv', status='status',
                     after='after_sendrecv(call.info(), {sendcount|count}, {sendtype|datatype}, {dest}, {comm}, {status})'),
    'isend': dict(cls='kIsend', after='after_isend<SendMode::{mode}>(call.info(), {count}, {datatype}, {dest}, {comm}, {request})',
                  cached='send_cached(ts, {count}, {datatype}, {dest}, {comm})',
                  cached_after='after_isend_cached<SendMode::{mode}>(call.info(), {request})'),
    'irecv': dict(cls='kIrecv', after='after_irecv(call.info(), {source}, {comm}, {request})'),
    'imrecv': dict(cls='kIrecv', after='after_imrecv(call.info(), {request})'),
    'send_init': dict(cls='kPersistent',
                      after='after_send_init(call.info(), {count}, {datatype}, {dest}, {comm}, {request}, SendMode::{mode})'),
    'recv_init': dict(cls='kPersistent', after='after_recv_init(call.info(), {source}, {comm}, {request})'),
    'start': dict(cls='kPersistent', after='after_start(call.info(), 1, {request})'),
    'startall': dict(cls='kPersistent', after='after_start(call.info(), {count}, {array_of_requests})'),
    'request_free': dict(cls='kPersistent', before='before_request_free(call.info(), {request})'),
    'wait': dict(cls='kWait', before='before_wait(call.info(), {request})', status='status',
                 after='after_wait(call.info(), followed, {status})'),
    'waitall': dict(cls='kWait', before='before_complete(call.info(), {count}, {array_of_requests})',
                    statuses=('array_of_statuses', 'count'), after='after_waitall(call.info(), rc, {array_of_statuses})'),
    'waitany': dict(cls='kWait', before='before_complete(call.info(), {count}, {array_of_requests})', status='status',
                    after='after_waitany(call.info(), rc, {index}, {status})'),
    'waitsome': dict(cls='kWait', before='before_complete(call.info(), {incount}, {array_of_requests})',
                     statuses=('array_of_statuses', 'incount'),
                     after='after_waitsome(call.info(), rc, {outcount}, {array_of_indices}, {array_of_statuses})'),
    'test': dict(cls='kTest', before='before_wait(call.info(), {request})', status='status',
                 poll='*{flag}', after='after_wait(call.info(), followed, {status})'),
    'testall': dict(cls='kTest', before='before_complete(call.info(), {count}, {array_of_requests})',
                    statuses=('array_of_statuses', 'count'), poll='*{flag}',
                    after='after_testall(call.info(), rc, {flag}, {array_of_statuses})'),
    'testany': dict(cls='kTest', before='before_complete(call.info(), {count}, {array_of_requests})', status='status',
                    poll='*{flag}', after='after_testany(call.info(), rc, {index}, {flag}, {status})'),
    'testsome': dict(cls='kTest', before='before_complete(call.info(), {incount}, {array_of_requests})',
                     statuses=('array_of_statuses', 'incount'),
                     after='after_waitsome(call.info(), rc, {outcount}, {array_of_indices}, {array_of_statuses})'),
    'get_status': dict(cls='kTest'),
    'probe': dict(cls='kProbe', status='status', after='after_probe(call.info(), {source}, {comm}, nullptr, {status})'),
    'iprobe': dict(cls='kIprobe', status='status', poll='*{flag}',
                   after='after_probe(call.info(), {source}, {comm}, {flag}, {status})'),
    'mprobe': dict(cls='kProbe', status='status', after='after_mprobe(call.info(), {source}, {comm}, nullptr, {status})'),
    'improbe': dict(cls='kIprobe', status='status', poll='*{flag}',
                    after='after_mprobe(call.info(), {source}, {comm}, {flag}, {status})'),
    'coll': dict(cls='kCollective'),
    'coll_post': dict(cls='kIcollective'),
    'rma_sync': dict(cls='kRmaSync'),
    'init': dict(special=True),
    'init_thread': dict(special=True),
    'finalize': dict(special=True),
}


def completes(spec):
    """Whether the call completes requests (wait/test): its `after` hook runs whatever the
    return code, to let go of the requests it followed. Every other call's hook runs only
    after MPI_SUCCESS: it must never query MPI about arguments the library refused (a bad
    datatype would raise an error the application did not ask for)."""
    return spec.get('before', '').startswith(('before_complete', 'before_wait'))


KEPT_WORDS = 6  # ThreadState::kept (src/runtime.hpp)

MODES = {'standard': 'kStandard', 'buffered': 'kBuffered', 'ready': 'kReady', 'sync': 'kSync'}


class Param:
    """One C parameter: `const MPI_Datatype sendtypes[]` -> base MPI_Datatype, 1 level, const."""

    def __init__(self, text):
        text = text.strip()
        self.array = text.endswith('[]')
        if self.array:
            text = text[:-2].strip()
        m = re.match(r'^(.*?)([A-Za-z_][A-Za-z0-9_]*)$', text)
        if not m:
            raise ValueError(f'cannot parse parameter {text!r}')
        type_text, self.name = m.group(1).strip(), m.group(2)
        self.const = type_text.startswith('const ')
        if self.const:
            type_text = type_text[len('const '):]
        self.stars = type_text.count('*')
        self.base = type_text.replace('*', '').strip()
        self.levels = self.stars + (1 if self.array else 0)

    def typed(self):
        """The type as mpi.h declares it (arrays decayed to pointers)."""
        return ('const ' if self.const else '') + self.base + '*' * self.levels

    def neutral(self):
        """The type the wrappers use: handles as uintptr_t, MPI structs behind void*."""
        const = 'const ' if self.const else ''
        if self.base in POINTER_ONLY_TYPES:
            if self.levels == 0:
                if self.base == 'MPI_Status':
                    raise ValueError('MPI_Status by value')
                return 'symmer_handle'
            return const + 'void' + '*' * self.levels
        base = {'MPI_Aint': 'long', 'MPI_Count': 'long long', 'MPI_Fint': 'int'}.get(self.base, self.base)
        return const + base + '*' * self.levels


class Call:
    def __init__(self, kind, flags, name, params, line):
        if kind not in KINDS:
            raise ValueError(f'line {line}: unknown kind {kind!r}')
        self.kind, self.name, self.line = kind, name, line
        self.flags = set() if flags == '-' else set(flags.split(','))
        self.mode = 'standard'
        for f in list(self.flags):
            if f.startswith('mode='):
                self.mode = f[len('mode='):]
                if self.mode not in MODES:
                    raise ValueError(f'line {line}: unknown send mode {self.mode!r}')
                self.flags.discard(f)
        unknown = self.flags - {'mpi4', 'nofortran'}
        if unknown:
            raise ValueError(f'line {line}: unknown flags {sorted(unknown)}')
        self.params = [Param(p) for p in params.split(',')] if params.strip() else []
        self.spec = KINDS[kind]
        names = {p.name for p in self.params}
        # Every placeholder of the kind must name an argument of the call.
        for key in ('before', 'after', 'cached', 'cached_after'):
            for ph in re.findall(r'\{([a-z_|]+)\}', self.spec.get(key, '')):
                if ph != 'mode' and not any(a in names for a in ph.split('|')):
                    raise ValueError(f'line {line}: {name} has no argument {ph!r} needed by kind {kind}')

    @property
    def pname(self):
        return 'P' + self.name

    def fill(self, template):
        def sub(m):
            ph = m.group(1)
            if ph == 'mode':
                return MODES[self.mode]
            names = {p.name for p in self.params}
            return next(a for a in ph.split('|') if a in names)
        return re.sub(r'\{([a-z_|]+)\}', sub, template)


def read_table(path):
    calls = []
    for n, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        m = re.match(r'^(\S+)\s+(\S+)\s+(MPI_\w+)\s*\((.*)\)\s*$', line)
        if not m:
            raise ValueError(f'{path}:{n}: cannot parse {raw!r}')
        calls.append(Call(m.group(1), m.group(2), m.group(3), m.group(4), n))
    seen = set()
    for c in calls:
        if c.name in seen:
            raise ValueError(f'{c.name} listed twice')
        seen.add(c.name)
    return calls


# Fortran entry points with hand-written wrappers (their C bindings differ in shape).
FORTRAN_SPECIALS = [('pmpi_init_', 'int* ierr'),
                    ('pmpi_init_thread_', 'int* required, int* provided, int* ierr'),
                    ('pmpi_finalize_', 'int* ierr')]

HEADER = '// Generated by pmpi-shim/gen/gen_wrappers.py from pmpi-shim/mpi_calls.txt. Do not edit.\n'


def guard_open(c):
    return '#if SYMMER_MPI_VERSION >= 4\n' if 'mpi4' in c.flags else ''


def guard_close(c):
    return '#endif\n' if 'mpi4' in c.flags else ''


def neutral_params(c):
    return ', '.join(f'{p.neutral()} {p.name}' for p in c.params) or 'void'


def arg_names(c):
    return ', '.join(p.name for p in c.params)


def gen_table_hpp(calls):
    out = [HEADER, '#pragma once\n', '#include "abi.hpp"\n\n', 'namespace symmer::shim {\n\n',
           '/// The real MPI entry points, resolved with dlsym(RTLD_NEXT) (null where the\n',
           '/// process has no such function). ABI-neutral types: see abi.hpp.\n',
           'struct PmpiTable {\n']
    for c in calls:
        out.append(f'  int (*{c.pname})({neutral_params(c)});\n')
    for c in calls:
        if 'nofortran' not in c.flags:
            out.append(f'  void (*{c.pname.lower()}_)({fortran_params(c)});\n')
    for name, params in FORTRAN_SPECIALS:
        out.append(f'  void (*{name})({params});\n')
    out.append('};\n\n/// The table, filled before main() by resolve_pmpi_table().\n')
    out.append('extern PmpiTable pmpi __attribute__((visibility("hidden")));  // reached PC-relative\n\n')
    out.append('/// Resolves every entry of `table`.\nvoid resolve_pmpi_table(PmpiTable& table);\n\n')
    out.append('}  // namespace symmer::shim\n')
    return ''.join(out)


def gen_table_cpp(calls):
    out = [HEADER, '#include "pmpi_table.hpp"\n\n#include <dlfcn.h>\n\n', 'namespace symmer::shim {\n\n',
           'PmpiTable pmpi;\n\n', 'void resolve_pmpi_table(PmpiTable& t) {\n']
    for c in calls:
        out.append(f'  t.{c.pname} = reinterpret_cast<decltype(t.{c.pname})>(dlsym(RTLD_NEXT, "{c.pname}"));\n')
    fortran = [c.pname.lower() + '_' for c in calls if 'nofortran' not in c.flags]
    for f in fortran + [name for name, _ in FORTRAN_SPECIALS]:
        out.append(f'  t.{f} = reinterpret_cast<decltype(t.{f})>(dlsym(RTLD_NEXT, "{f}"));\n')
    out.append('}\n\n}  // namespace symmer::shim\n')
    return ''.join(out)


def gen_c_wrapper(c):
    s = c.spec
    out = [guard_open(c)]
    signature = f'extern "C" SYMMER_EXPORT int {c.name}({neutral_params(c)}) {{\n'
    args = arg_names(c)
    if c.kind in ('init', 'init_thread'):
        required = 'required' if c.kind == 'init_thread' else '-1'
        provided = 'provided' if c.kind == 'init_thread' else 'nullptr'
        out.append(signature)
        out.append('  hooks::init_begin();\n')
        out.append(f'  const int rc = pmpi.{c.pname}({args});\n')
        out.append(f'  hooks::init_end(rc, {required}, {provided});\n')
        out.append('  return rc;\n}\n')
    elif c.kind == 'finalize':
        out.append(signature)
        out.append('  hooks::finalize_begin();\n')
        out.append(f'  return pmpi.{c.pname}();\n}}\n')
    else:
        # The accounting is written once, for both kinds of Call (src/call.hpp); the exported
        # wrapper takes the FastCall path when it can, else the Call one, out of line.
        tracked = f'{c.name}_tracked'
        params = ', '.join(['C& call'] + [f'{p.neutral()} {p.name}' for p in c.params])
        out.append(f'template <class C>\nSYMMER_INLINE int {tracked}({params}) {{\n')
        out.append(tracked_body(c, s.get('after')))
        out.append('}\n')
        call_args = ', '.join(['call'] + [p.name for p in c.params])
        eager = 'eager' in s and c.mode != 'sync'
        fparams = ', '.join(['FastCall& call'] + [f'{p.neutral()} {p.name}' for p in c.params])
        if 'cached' in s:
            out.append(f'SYMMER_INLINE int {c.name}_cached({fparams}) {{\n')
            out.append(tracked_body(c, s['cached_after']))
            out.append('}\n')
        if eager:
            out.append(f'SYMMER_INLINE int {c.name}_eager({fparams}) {{\n')
            out.append(tracked_body(c, s['cached_after'], sampled=True))
            out.append('}\n')
        out.append(f'[[gnu::noinline]] int {c.name}_generic({neutral_params(c)}) {{\n')
        out.append(f'  Call call(CallClass::{s["cls"]});\n')
        out.append(f'  if (!call.tracked()) return pmpi.{c.pname}({args});\n')
        out.append(f'  return {tracked}({call_args});\n}}\n')
        out.append(signature)
        out.append('  if (ThreadState& ts = *t_state; FastCall::possible(ts)) {\n')
        if 'cached' in s:
            out.append(f'    if (hooks::{c.fill(s["cached"])}) {{\n')
            if eager:
                out.append(f'      if (hooks::{c.fill(s["eager"])}) {{\n')
                out.append(f'        FastCall call(CallClass::{s["cls"]}, ts, ts.eager_sends);\n')
                out.append(f'        return {c.name}_eager({call_args});\n      }}\n')
            out.append(f'      FastCall call(CallClass::{s["cls"]}, ts);\n')
            out.append(f'      return {c.name}_cached({call_args});\n    }}\n')
        out.append(f'    FastCall call(CallClass::{s["cls"]}, ts);\n')
        out.append(f'    return {tracked}({call_args});\n  }}\n')
        out.append(f'  return {c.name}_generic({args});\n}}\n')
    out.append(guard_close(c))
    return ''.join(out)


def before_hook(s, fill):
    """The before-hook's line (none without one) and the after-hook's first guards: a
    completion's says whether any request is followed."""
    if 'before' not in s:
        return [], []
    if completes(s):
        return [f'const auto followed = hooks::{fill(s["before"])};\n'], ['followed']
    return [f'hooks::{fill(s["before"])};\n'], []


def tracked_body(c, after_template, sampled=False):
    """The accounting around the real call, with `after_template` as the after-hook; `sampled`:
    the call is timed by sampling (polls always are)."""
    s = c.spec
    sampled = sampled or 'poll' in s
    args = arg_names(c)
    out = []
    body, guards = before_hook(s, c.fill)
    if 'status' in s:
        body.append(f'{s["status"]} = call.status_arg({s["status"]});\n')
    if 'statuses' in s:
        arr, count = s['statuses']
        body.append(f'{arr} = hooks::statuses_arg(call.info(), {count}, {arr});\n')
    after = c.fill(after_template) if after_template else ''
    if after and not sampled:
        # What the after-hook reads of the arguments waits in the thread's state (Call::keep),
        # not in registers saved around the real call. Polls keep theirs in registers: most
        # end without the hook.
        kept = [n for n in dict.fromkeys(re.findall(r'\b[a-z_]+\b', ' '.join([after] + guards)))
                if n in {p.name for p in c.params} | {'followed'}]
        if len(kept) > KEPT_WORDS:
            raise ValueError(f'line {c.line}: {c.name} keeps more than {KEPT_WORDS} arguments')
        for i, n in enumerate(kept):
            body.append(f'call.keep({i}, {n});\n')
            view = f'call.kept({i}, {n})'
            after = re.sub(rf'\b{n}\b', view, after)
            guards = [re.sub(rf'\b{n}\b', view, g) for g in guards]
    body.append(f'const int rc = pmpi.{c.pname}({args});\n')
    body.append('call.stop_sampled();\n' if sampled else 'call.stop();\n')
    if 'poll' in s:
        guards.insert(0, f'{c.fill(s["poll"])} != 0')
    if not completes(s):
        guards.insert(0, 'rc == 0')  # MPI_SUCCESS (signature_check.cpp)
    if after:
        cond = f'if ({" && ".join(guards)}) ' if guards else ''
        body.append(f'{cond}hooks::{after};\n')
    body.append('call.finish();\nreturn rc;\n')
    if 'poll' in s:
        # A copy for clocked polls: in the other, the compiler knows the poll reads no clock.
        # Not for eager sends: with the copy, GCC keeps their FastCall on the stack.
        out.append('  if (call.clocked()) {\n')
        out += ['    ' + line for line in ''.join(body).splitlines(True)]
        out.append('  }\n')
    out += ['  ' + line for line in ''.join(body).splitlines(True)]
    return ''.join(out)


def gen_wrappers_c(calls):
    out = [HEADER, '// The C bindings: MPI_X accounts the call around the real PMPI_X.\n',
           '#include "call.hpp"\n#include "hooks.hpp"\n#include "pmpi_table.hpp"\n\n',
           'namespace symmer::shim {\nusing segment::CallClass;\n\n']
    out += [gen_c_wrapper(c) + '\n' for c in calls]
    out.append('}  // namespace symmer::shim\n')
    return ''.join(out)


def gen_signature_check(calls):
    out = [HEADER, '// Fails to compile when a table prototype differs from the MPI library\'s mpi.h.\n',
           '#include "mpi_include.hpp"\n\n#include <type_traits>\n\n',
           'static_assert(MPI_SUCCESS == 0, "the wrappers test return codes against 0");\n',
           'static_assert(sizeof(MPI_Request) == SYMMER_REQUEST_BYTES, "request_key reads handles of this size");\n',
           'static_assert(sizeof(MPI_Comm) == SYMMER_REQUEST_BYTES && sizeof(MPI_Datatype) == SYMMER_REQUEST_BYTES,\n'
           '              "handle_bits truncates handles to this size");\n']
    for c in calls:
        typed = ', '.join(p.typed() for p in c.params)
        out.append(guard_open(c))
        out.append(f'static_assert(std::is_same_v<decltype(&::{c.pname}), int (*)({typed})>, '
                   f'"mpi_calls.txt line {c.line}: {c.name} prototype differs from mpi.h");\n')
        out.append(guard_close(c))
    return ''.join(out)


# ---- Fortran ---------------------------------------------------------------------------------
# mpif.h / `use mpi` bindings (gfortran: lower case, one trailing underscore). Every argument is
# passed by reference; handles are MPI_Fint; a trailing MPI_Fint* ierr carries the error code.
# The wrapper calls the library's pmpi_x_ (which implements the Fortran semantics: MPI_BOTTOM,
# 1-based indices, LOGICAL flags...) and hands the accounting hooks C views of the arguments
# (src/fortran.hpp). Nested C calls the Fortran library makes are passed through by Call.

def fortran_param_type(p):
    if p.base in ('void',):
        return ('const ' if p.const else '') + 'void*'
    if p.base == 'MPI_Aint':
        return 'long*'
    if p.base == 'MPI_Count':
        return 'long long*'
    return 'int*'


def fortran_params(c):
    ps = [f'{fortran_param_type(p)} {p.name}' for p in c.params]
    return ', '.join(ps + ['int* ierr'])


# C view of a Fortran argument for the hooks, by C type of the argument.
def fortran_view(c, p):
    if p.base == 'int' and p.levels == 0:
        return f'*{p.name}'
    if p.base == 'MPI_Count' and p.levels == 0:
        return f'*{p.name}'
    if p.base in ('MPI_Datatype', 'MPI_Comm') and p.levels == 0:
        return f'fortran::{p.base[4:].lower()}(*{p.name})'
    raise ValueError(f'{c.name}: no Fortran view for {p.typed()} {p.name}')


def gen_fortran_wrapper(c):
    s = c.spec
    fname = c.name.lower() + '_'
    pf = c.pname.lower() + '_'
    args = ', '.join([p.name for p in c.params] + ['ierr'])
    out = [f'extern "C" SYMMER_EXPORT void {fname}({fortran_params(c)}) {{\n',
           f'  Call call(CallClass::{s["cls"]});\n',
           f'  if (!call.tracked()) return pmpi.{pf}({args});\n']
    byname = {p.name: p for p in c.params}
    # Which hook arguments need which C view: placeholders resolved to argument names.
    used = set()
    for key in ('before', 'after'):
        for ph in re.findall(r'\{([a-z_|]+)\}', s.get(key, '')):
            if ph != 'mode':
                used.add(next(a for a in ph.split('|') if a in byname))
    views = {}
    pre = []
    post = []
    for name in sorted(used):
        p = byname[name]
        if p.base == 'MPI_Request' and p.levels == 1 and name == 'request':
            if c.kind in ('isend', 'irecv', 'imrecv', 'send_init', 'recv_init'):
                post.append(f'  fortran::RequestView {name}_c(*{name});\n')
            else:
                pre.append(f'  fortran::RequestView {name}_c(*{name});\n')
            views[name] = f'{name}_c.get()'
        elif p.base == 'MPI_Request' and name == 'array_of_requests':
            count = 'incount' if 'incount' in byname else 'count'
            pre.append(f'  fortran::RequestArrayView {name}_c(*{count}, {name});\n')
            views[name] = f'{name}_c.get()'
        elif p.base == 'MPI_Status' and p.levels == 1 and name == 'status':
            pre.append(f'  fortran::StatusView {name}_c({name});\n')
            post.append(f'  {name}_c.convert();\n')
            views[name] = f'{name}_c.get()'
        elif p.base == 'MPI_Status' and name == 'array_of_statuses':
            count = 'incount' if 'incount' in byname else 'count'
            pre.append(f'  fortran::StatusArrayView {name}_c(*{count}, {name});\n')
            post.append(f'  {name}_c.convert(*outcount);\n' if 'outcount' in byname
                        else f'  {name}_c.convert(*{count});\n')
            views[name] = f'{name}_c.get()'
        elif name == 'flag':
            post.append(f'  fortran::FlagView {name}_c({name});\n')
            views[name] = f'{name}_c.get()'
        elif name in ('index', 'outcount', 'array_of_indices'):
            pass  # handled below, they depend on each other
        else:
            views[name] = fortran_view(c, p)
    if 'index' in used:
        post.append('  fortran::IndexView index_c(index);\n')
        views['index'] = 'index_c.get()'
    if 'outcount' in used:
        views['outcount'] = 'outcount'  # an INTEGER in both bindings
    if 'array_of_indices' in used:
        post.append('  fortran::IndexArrayView array_of_indices_c(*outcount, array_of_indices);\n')
        views['array_of_indices'] = 'array_of_indices_c.get()'

    def filled(template):
        def sub(m):
            ph = m.group(1)
            if ph == 'mode':
                return MODES[c.mode]
            name = next(a for a in ph.split('|') if a in byname)
            return views[name]
        return re.sub(r'\{([a-z_|]+)\}', sub, template).replace('(call.info(), rc', '(call.info(), *ierr')

    out += pre
    before, guards = before_hook(s, filled)
    out += ['  ' + line for line in before]
    if 'status' in s:
        out.append(f'  {s["status"]} = {s["status"]}_c.fortran_arg();\n')
    if 'statuses' in s:
        arr = s['statuses'][0]
        out.append(f'  {arr} = {arr}_c.fortran_arg();\n')
    out.append(f'  pmpi.{pf}({args});\n')
    if 'poll' in s:
        out.append('  call.stop_sampled();\n')
        guards.insert(0, re.sub(r'\{([a-z_|]+)\}', lambda m: m.group(1), s['poll']) + ' != 0')  # LOGICAL
    else:
        out.append('  call.stop();\n')
    if not completes(s) and 'after' in s:
        guards.insert(0, '*ierr == 0')
    if guards:
        out.append(f'  if ({" && ".join(guards)}) {{\n')
    out += post
    if 'after' in s:
        out.append(f'  hooks::{filled(s["after"])};\n')
    if guards:
        out.append('  }\n')
    out.append('  call.finish();\n}\n')
    return ''.join(out)


def gen_wrappers_fortran(calls):
    out = [HEADER, '// The Fortran bindings (mpif.h, `use mpi`): mpi_x_ accounts the call around the\n',
           '// real pmpi_x_, with C views of the arguments for the hooks.\n',
           '#include "call.hpp"\n#include "fortran.hpp"\n#include "hooks.hpp"\n#include "pmpi_table.hpp"\n\n',
           'namespace symmer::shim {\nusing segment::CallClass;\n\n',
           'extern "C" SYMMER_EXPORT void mpi_init_(int* ierr) {\n',
           '  hooks::init_begin();\n  pmpi.pmpi_init_(ierr);\n  hooks::init_end(*ierr, -1, nullptr);\n}\n\n',
           'extern "C" SYMMER_EXPORT void mpi_init_thread_(int* required, int* provided, int* ierr) {\n',
           '  hooks::init_begin();\n  pmpi.pmpi_init_thread_(required, provided, ierr);\n',
           '  hooks::init_end(*ierr, *required, provided);\n}\n\n',
           'extern "C" SYMMER_EXPORT void mpi_finalize_(int* ierr) {\n',
           '  hooks::finalize_begin();\n  pmpi.pmpi_finalize_(ierr);\n}\n\n']
    for c in calls:
        if 'nofortran' in c.flags:
            continue
        out.append(gen_fortran_wrapper(c) + '\n')
    out.append('}  // namespace symmer::shim\n')
    return ''.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('table')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    try:
        calls = read_table(a.table)
    except ValueError as e:
        sys.exit(f'gen_wrappers: {e}')
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        'pmpi_table.hpp': gen_table_hpp(calls),
        'pmpi_table.cpp': gen_table_cpp(calls),
        'wrappers_c.cpp': gen_wrappers_c(calls),
        'wrappers_fortran.cpp': gen_wrappers_fortran(calls),
        'signature_check.cpp': gen_signature_check(calls),
    }
    for name, text in files.items():
        p = out / name
        if not p.exists() or p.read_text() != text:  # keep timestamps when nothing changed
            p.write_text(text)


if __name__ == '__main__':
    main()
