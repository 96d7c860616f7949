#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every source, script and CMake file of the project names its licence in an SPDX line.

  scripts/check_spdx.py [ROOT]         lists the files without one; exit status 1 if any
  scripts/check_spdx.py --fix [ROOT]   adds `SPDX-License-Identifier: BSD-3-Clause` to them

A file counts as source by its name (C, C++, CUDA, Fortran, Python, shell, CMake, templates,
configuration, manual pages) or when it starts with `#!`. The line must be among the first
three (after a shebang, for instance). Files come from git (tracked and untracked, not
ignored) or, without git (a release tarball), from the tree less build folders. Test fixtures
(data captured from real nodes) have none of these names and are left alone.
"""
import os
import subprocess
import sys

LICENSE = "BSD-3-Clause"
TAG = "SPDX-License-Identifier:"
# How a comment starts, by file name ending.
COMMENT = {
    ".c": "//", ".h": "//", ".cc": "//", ".cpp": "//", ".hpp": "//", ".cu": "//",
    ".cuh": "//", ".f90": "!", ".F90": "!", ".py": "#", ".sh": "#", ".cmake": "#",
    ".in": "#", ".toml": "#", ".service": "#", "CMakeLists.txt": "#",
    # manual pages (docs/man/<name>.<section>)
    **{f".{section}": '.\\"' for section in range(1, 9)},
}
HEAD_LINES = 3


def comment_of(path, first_line):
    """The comment start of a source file, or None when the file is not source."""
    name = os.path.basename(path)
    for ending, start in COMMENT.items():
        if name.endswith(ending):
            return start
    return "#" if first_line.startswith("#!") else None


def project_files(root):
    """Relative paths of the project's files (git's view when there is one)."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout
        return sorted({p for p in out.decode().split("\0") if p})
    except (OSError, subprocess.CalledProcessError):
        found = []
        for top, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
            found += [os.path.relpath(os.path.join(top, f), root) for f in files]
        return sorted(found)


def read_head(path):
    """The first lines of a text file, or None for a binary or unreadable one."""
    try:
        with open(path, encoding="utf-8") as f:
            return [f.readline() for _ in range(HEAD_LINES)]
    except (OSError, UnicodeDecodeError):
        return None


def add_line(path, start):
    """Inserts the SPDX line first, or second after a shebang."""
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    at = 1 if lines and lines[0].startswith("#!") else 0
    lines.insert(at, f"{start} {TAG} {LICENSE}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def main(argv):
    fix = "--fix" in argv
    args = [a for a in argv if a != "--fix"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    missing = []
    for rel in project_files(root):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue  # deleted but still in git's index
        head = read_head(path)
        if head is None:
            continue
        start = comment_of(rel, head[0])
        if start is None or any(TAG in line for line in head):
            continue
        missing.append(rel)
        if fix:
            add_line(path, start)
    if missing and not fix:
        print(f"check_spdx: {len(missing)} file(s) without an SPDX line in their first "
              f"{HEAD_LINES} lines (run scripts/check_spdx.py --fix):", file=sys.stderr)
        for rel in missing:
            print(f"  {rel}", file=sys.stderr)
        return 1
    if fix:
        print(f"check_spdx: added the SPDX line to {len(missing)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
