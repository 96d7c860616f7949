#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The manual pages render without a warning, and each says everything its program's --help
says: every long and short option (of every subcommand, for symmerctl) and, for
symmerd.toml(5), every table and key of the shipped configuration files.

  man_pages_test.py BIN_DIR MAN_DIR SOURCE_DIR [PROGRAM...]

PROGRAMs are paths of programs kept outside BIN_DIR (tsar-translate).
"""
import os
import re
import subprocess
import sys

# program -> its page. A program that is not built here (tsar-translate before it exists) is
# skipped; a page without a program is still rendered.
PAGES = {
    "symmer-run": "symmer-run.1",
    "symmerctl": "symmerctl.1",
    "symmerd": "symmerd.8",
    "tsar-translate": "tsar-translate.1",
}
CONFIG_PAGE = "symmerd.toml.5"
CONFIGS = ("configs/symmerd.toml", "configs/symmer.toml")
LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# A short option where --help lists one: first on its line ("  -h,--help", "  -o OUTPUT, ...").
SHORT_OPTION = re.compile(r"(?m)^\s+(-[a-zA-Z])(?=[, ])")


def page_text(path):
    """The page's words as a reader sees them: roff escapes and font changes removed."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"\\f[BIRP]", "", text)
    text = text.replace("\\-", "-").replace("\\(dq", '"').replace("\\&", "")
    return text


def render(path):
    """Problems `man -l` reports while rendering the page."""
    run = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True,
                         env=dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0"))
    problems = []
    if run.returncode != 0:
        problems.append(f"man -l exited {run.returncode}")
    problems += [line for line in run.stderr.splitlines() if line.strip()]
    if not run.stdout.strip():
        problems.append("renders nothing")
    return problems


def help_text(program, *args):
    run = subprocess.run([program, *args, "--help"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise RuntimeError(f"{program} {' '.join(args)} --help exited {run.returncode}")
    return run.stdout


def subcommands(help_output):
    """The subcommand names CLI11 lists under "Subcommands:"."""
    names, listing = [], False
    for line in help_output.splitlines():
        if line.strip() == "Subcommands:":
            listing = True
        elif listing and re.match(r"^\s+[a-z][a-z0-9-]*\s", line):
            names.append(line.split()[0])
        elif listing and line.strip():
            listing = False
    return names


def main(bin_dir, man_dir, source_dir, *elsewhere):
    failures = []
    pages = sorted(p for p in os.listdir(man_dir) if re.search(r"\.[1-8]$", p))
    if not pages:
        failures.append(f"no manual pages in {man_dir}")
    for page in pages:
        failures += [f"{page}: {p}" for p in render(os.path.join(man_dir, page))]
    checked = 0
    for program, page in PAGES.items():
        exe = os.path.join(bin_dir, program)
        exe = next((p for p in elsewhere if os.path.basename(p) == program), exe)
        if not os.access(exe, os.X_OK):
            continue
        if page not in pages:
            failures.append(f"{program} has no manual page {page}")
            continue
        text = page_text(os.path.join(man_dir, page))
        helps = [("", help_text(exe))]
        for sub in subcommands(helps[0][1]):
            if not re.search(r"(?m)^\.B " + re.escape(sub) + r"\b", text):
                failures.append(f"{page}: subcommand {sub} is not described")
            helps.append((sub + " ", help_text(exe, sub)))
        for prefix, output in helps:
            for option in sorted(set(LONG_OPTION.findall(output))):
                if option not in text:
                    failures.append(f"{page}: {program} {prefix}{option} is not in the page")
            for option in sorted(set(SHORT_OPTION.findall(output))):
                if not re.search(r"(?<![\w-])" + re.escape(option) + r"\b", text):
                    failures.append(f"{page}: {program} {prefix}{option} is not in the page")
        checked += 1
    if checked == 0:
        failures.append(f"no program with a manual page in {bin_dir}")
    config_text = page_text(os.path.join(man_dir, CONFIG_PAGE))
    for config in CONFIGS:
        with open(os.path.join(source_dir, config), encoding="utf-8") as f:
            for line in f:
                table = re.match(r"^\[([a-z_]+)\]", line)
                key = re.match(r"^([a-z_]+)\s*=", line)
                word = f"[{table.group(1)}]" if table else key.group(1) if key else None
                if word and word not in config_text:
                    failures.append(f"{CONFIG_PAGE}: {word} of {config} is not described")
    for f in failures:
        print(f"FAIL: {f}")
    if not failures:
        print(f"manual pages: {len(pages)} rendered, {checked} programs' options found")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
