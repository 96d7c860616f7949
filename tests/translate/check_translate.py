#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Golden and refusal tests of tsar-translate.

  check_translate.py --tool TOOL golden [--update] [--cc CC --cxx CXX -I DIR...]
      translates each golden/NAME (.c, .cpp) and compares it with golden/NAME.expected
      (--update rewrites them); with --cc/--cxx, compiles each output (-fsyntax-only) too.
  check_translate.py --tool TOOL errors
      translates each errors/NAME and expects it refused with exactly the errors its
      comments announce, one per line:   expect LINE:COLUMN: part of the message
  check_translate.py --tool TOOL man PAGE
      every option, directive and clause of --help appears in the man page
  check_translate.py --tool TOOL guide GUIDE
      the code of the porting guide's tsar-translate section is the tested kernel it names
      (apps/translate/kernels/..., which tests/translate translates, builds and checks)
  check_translate.py --tool TOOL targets FILE
      every OpenMP target construct of FILE says defaultmap(none), so that the compiler
      refuses a host variable (a body's chunk, say) read inside it
Run from tests/translate (file names in the outputs are relative). Exit 0 when all pass."""

import argparse
import difflib
import glob
import os
import re
import subprocess
import sys


def translate(tool, path):
    return subprocess.run([sys.executable, tool, path], capture_output=True, text=True,
                          encoding="latin-1")


def golden(args):
    failed = 0
    for path in sorted(glob.glob("golden/*.c") + glob.glob("golden/*.cpp")):
        r = translate(args.tool, path)
        if r.returncode != 0:
            print(f"FAIL {path}: refused\n{r.stderr}")
            failed += 1
            continue
        expected_path = path + ".expected"
        if args.update:
            with open(expected_path, "w", encoding="latin-1") as f:
                f.write(r.stdout)
            print(f"updated {expected_path}")
            continue
        with open(expected_path, encoding="latin-1") as f:
            expected = f.read()
        if r.stdout != expected:
            diff = difflib.unified_diff(expected.splitlines(True), r.stdout.splitlines(True),
                                        expected_path, "output")
            print(f"FAIL {path}: output differs from {expected_path}\n" + "".join(diff))
            failed += 1
            continue
        if args.cc:
            cpp = path.endswith(".cpp")
            compiler = args.cxx if cpp else args.cc
            cmd = [compiler, "-fsyntax-only", "-fopenmp", "-foffload=disable", "-Wall",
                   "-Wextra", "-Werror", "-Wno-unknown-pragmas", "-x", "c++" if cpp else "c",
                   "-std=c++17" if cpp else "-std=c11", "-"]
            cmd += [f"-I{d}" for d in args.include] + ["-Igolden"]
            c = subprocess.run(cmd, input=r.stdout, capture_output=True, text=True,
                               encoding="latin-1")
            if c.returncode != 0:
                print(f"FAIL {path}: the translation does not compile\n{c.stderr}")
                failed += 1
                continue
        print(f"ok   {path}")
    return failed


EXPECT = re.compile(r"expect (\d+):(\d+): (.+?)\s*(\*/)?$")


def errors(args):
    failed = 0
    for path in sorted(glob.glob("errors/*.c") + glob.glob("errors/*.cpp")):
        with open(path, encoding="latin-1") as f:
            wanted = [(int(m.group(1)), int(m.group(2)), m.group(3))
                      for m in (EXPECT.search(line) for line in f) if m]
        r = translate(args.tool, path)
        got = []
        for line in r.stderr.splitlines():
            m = re.match(re.escape(path) + r":(\d+):(\d+): error: (.*)", line)
            if m:
                got.append((int(m.group(1)), int(m.group(2)), m.group(3)))
        problems = []
        if r.returncode != 1:
            problems.append(f"exit status {r.returncode}, expected 1")
        if not wanted:
            problems.append("the file announces no error")
        for w in wanted:
            if not any(g[0] == w[0] and g[1] == w[1] and w[2] in g[2] for g in got):
                problems.append(f"missing: {w[0]}:{w[1]}: ...{w[2]}...")
        for g in got:
            if not any(g[0] == w[0] and g[1] == w[1] and w[2] in g[2] for w in wanted):
                problems.append(f"unexpected: {g[0]}:{g[1]}: {g[2]}")
        if problems:
            print(f"FAIL {path}\n  " + "\n  ".join(problems) + f"\n  stderr: {r.stderr}")
            failed += 1
        else:
            print(f"ok   {path}")
    return failed


def man(args):
    help_text = subprocess.run([sys.executable, args.tool, "--help"], capture_output=True,
                               text=True, check=True).stdout
    with open(args.page, encoding="utf-8") as f:
        page = f.read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
    words = set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", help_text))
    words |= set(re.findall(r"\b(hetero|depersist|part_map|map|persist|if|name)\(", help_text))
    words |= set(re.findall(r"#pragma tsar (\w+)", help_text))
    missing = sorted(w for w in words if w not in page)
    for w in missing:
        print(f"FAIL {args.page} does not mention '{w}' of --help")
    if not missing:
        print(f"ok   {args.page}: {len(words)} options and clauses of --help")
    return len(missing)


def guide(args):
    with open(args.page, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Keeping the OpenMP loop: tsar-translate"):]
    section = section.split("\n## ", 1)[0]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    failed = 0
    for m in re.finditer(r"```c\n(.*?)```", section, flags=re.S):
        named = re.findall(r"`(apps/translate/kernels/[\w.]+)`", section[:m.start()])
        if not named:
            print(f"FAIL {args.page}: a code block names no tested kernel before it")
            failed += 1
            continue
        with open(os.path.join(root, named[-1]), encoding="utf-8") as f:
            if m.group(1) not in f.read():
                print(f"FAIL {args.page}: a code block is not in {named[-1]}")
                failed += 1
                continue
        print(f"ok   {args.page}: a code block of {named[-1]}")
    return failed


def targets(args):
    with open(args.page, encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    found = re.findall(r"^#pragma omp target\b.*$", text, flags=re.M)
    bare = [c for c in found if "defaultmap(none)" not in c]
    for c in bare:
        print(f"FAIL {args.page}: no defaultmap(none): {c}")
    if not found:
        print(f"FAIL {args.page}: no target construct")
        return 1
    if not bare:
        print(f"ok   {args.page}: {len(found)} target constructs say defaultmap(none)")
    return len(bare)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("what", choices=("golden", "errors", "man", "guide", "targets"))
    ap.add_argument("page", nargs="?")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--cc")
    ap.add_argument("--cxx")
    ap.add_argument("-I", dest="include", action="append", default=[])
    args = ap.parse_args()
    failed = {"golden": golden, "errors": errors, "man": man, "guide": guide,
              "targets": targets}[args.what](args)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
