# SPDX-License-Identifier: BSD-3-Clause
"""tsar-translate's command line."""

import argparse
import os
import sys

from .grammar import GRAMMAR
from .translate import Translation

# Compiler options that change what libclang parses; the others (optimisation, offloading,
# warnings) are ignored.
_KEEP_JOINED = ("-I", "-D", "-U", "-std=", "-isystem", "-iquote", "-idirafter", "-include")
_KEEP_SEPARATE = ("-I", "-D", "-U", "-isystem", "-iquote", "-idirafter", "-include")


def parse_flags(flags):
    out, k = [], 0
    while k < len(flags):
        f = flags[k]
        if f in _KEEP_SEPARATE and k + 1 < len(flags):
            out += [f, flags[k + 1]]
            k += 2
            continue
        if f.startswith(_KEEP_JOINED):
            out.append(f)
        k += 1
    return out


def main(argv=None, version="unknown"):
    argv = sys.argv[1:] if argv is None else argv
    flags = []
    if "--" in argv:
        cut = argv.index("--")
        argv, flags = argv[:cut], argv[cut + 1:]
    ap = argparse.ArgumentParser(
        prog="tsar-translate",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="tsar-translate [-h] [--version] [-x {c,c++}] [-o OUTPUT] [--depfile FILE] "
              "INPUT [-- COMPILER-FLAGS...]",
        description="Co-schedules OpenMP target loops over every CPU core and accelerator "
                    "with TSAR: each loop annotated with '#pragma tsar hetero(...)' becomes "
                    "a TSAR region whose CPU devices run the loop body as written and whose "
                    "OpenMP target devices run the loop's own target construct on their "
                    "share of the iterations. Everything else is copied unchanged.",
        epilog=GRAMMAR)
    ap.add_argument("input", metavar="INPUT", help="the C or C++ source file")
    ap.add_argument("-o", "--output", metavar="OUTPUT",
                    help="where to write the translated source (default: standard output)")
    ap.add_argument("-x", "--language", choices=("c", "c++"),
                    help="the input's language (default: c for .c files, else c++)")
    ap.add_argument("--depfile", metavar="FILE",
                    help="also write a make-style dependency file: OUTPUT depends on INPUT and "
                         "every header it includes")
    ap.add_argument("--version", action="version", version=f"tsar-translate {version}")
    args = ap.parse_args(argv)
    try:
        with open(args.input, "rb") as f:
            data = f.read()
    except OSError as e:
        print(f"tsar-translate: {args.input}: {e.strerror}", file=sys.stderr)
        return 1
    t = Translation(args.input, data, args.language, parse_flags(flags))
    if t.errors:
        for line, col, message in sorted(t.errors):
            print(f"{args.input}:{line}:{col}: error: {message}", file=sys.stderr)
        return 1
    data = t.output.encode("latin-1")
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, args.output)
    else:
        sys.stdout.buffer.write(data)
    if args.depfile:
        target = args.output or "-"
        deps = [args.input] + t.includes
        with open(args.depfile, "w") as f:
            f.write(_escape(target) + ": " + " \\\n  ".join(_escape(d) for d in deps) + "\n")
    return 0


def _escape(path):
    return path.replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
