#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The project's parts depend on each other only as docs/architecture.md allows.

  scripts/check_layering.py [--targets FILE] [ROOT]

Reads the rules from the `layering` block of docs/architecture.md ("Parts and the way they
depend on each other"): which part may use which, which include paths belong to which part,
and what a part must never include or link. Then checks
  - every #include of every source file (a path the rules name, or a file found beside the
    including one), and
  - with --targets (the JSON tests/integration/project writes at configure time: each
    target of the build, its source files and what it links), every link between targets.
Prints each violation with the file or target, the part and the rule; exit status 1 if any.
"""
import json
import os
import re
import subprocess
import sys

RULES_START = "```layering"
SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".hpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


class Rules:
    """The layering block: parts (folders), what each may use, include paths, bans."""

    def __init__(self, text):
        self.may = {}       # part -> set of parts it may use ("*": anything)
        self.headers = []   # (include path prefix, part), longest first
        self.never_include = []  # (part pattern, header)
        self.never_link = []     # (part pattern, link item pattern)
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) < 2:
                raise ValueError(f"layering rule without a verb: {raw!r}")
            part, verb, rest = words[0], words[1], words[2:]
            if verb == "may-use":
                self.may[part] = set(rest)
            elif verb == "owns":
                self.headers += [(prefix, part) for prefix in rest]
            elif verb == "never-includes":
                self.never_include += [(part, h) for h in rest]
            elif verb == "never-links":
                self.never_link += [(part, item) for item in rest]
            else:
                raise ValueError(f"unknown layering verb {verb!r} in: {raw!r}")
        self.headers.sort(key=lambda h: -len(h[0]))
        self.parts = sorted(self.may, key=len, reverse=True)

    def part_of(self, path):
        """The part a project file belongs to (longest folder prefix), or None."""
        for part in self.parts:
            if path == part or path.startswith(part + "/"):
                return part
        return None

    def part_of_include(self, name):
        """The part an include path like "symmer/topology/x.hpp" belongs to, or None."""
        for prefix, part in self.headers:
            if name == prefix or (prefix.endswith("/") and name.startswith(prefix)):
                return part
        return None

    def allows(self, user, used):
        allowed = self.may.get(user, set())
        return used == user or "*" in allowed or used in allowed

    @staticmethod
    def matches(pattern, name):
        return re.fullmatch(re.escape(pattern).replace(r"\*", ".*"), name) is not None


def read_rules(root):
    path = os.path.join(root, "docs", "architecture.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find(RULES_START)
    if start < 0:
        raise ValueError(f"{path}: no {RULES_START} block")
    body = text[start + len(RULES_START):]
    return Rules(body[:body.find("```")])


def source_files(root):
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout.decode()
        files = [p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
            files += [os.path.relpath(os.path.join(top, n), root) for n in names]
    return sorted(f for f in files if f.endswith(SOURCE_SUFFIXES)
                  and os.path.isfile(os.path.join(root, f)))


def header_part(rules, rel):
    """A public header (under some <folder>/include/) belongs to the part owning its include
    path: libsymmer/include/symmer/topology/x.hpp is symmer/topology/x.hpp."""
    head, sep, include_path = rel.partition("/include/")
    return rules.part_of_include(include_path) if sep else None


def check_includes(root, rules):
    problems = []
    for rel in source_files(root):
        user = header_part(rules, rel) or rules.part_of(rel)
        if user is None:
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for bracket, name in INCLUDE.findall(text):
            for pattern, banned in rules.never_include:
                if Rules.matches(pattern, user) and name == banned:
                    problems.append(f"{rel}: {user} includes {name}, which it never may")
            used = rules.part_of_include(name)
            if used is None and bracket == '"':
                beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
                if os.path.isfile(os.path.join(root, beside)):
                    used = header_part(rules, beside) or rules.part_of(beside)
            if used is not None and not rules.allows(user, used):
                problems.append(f"{rel}: {user} includes {name} of {used}; "
                                f"{user} may use {' '.join(sorted(rules.may[user])) or 'nothing'}")
    return problems


def strip_genex(item):
    """$<LINK_ONLY:x>, $<BUILD_INTERFACE:x>, $<$<cond>:x> -> x."""
    while item.startswith("$<") and item.endswith(">"):
        depth, cut = 0, None
        for i, c in enumerate(item):
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            elif c == ":" and depth == 1:
                cut = i
                break
        if cut is None:
            return item
        item = item[cut + 1:-1]
    return item


def check_links(root, rules, targets_file):
    with open(targets_file, encoding="utf-8") as f:
        targets = json.load(f)
    root = os.path.realpath(root)
    parts = {}
    for t in targets:
        found = set()
        for src in t["sources"]:
            path = os.path.realpath(src if os.path.isabs(src) else os.path.join(t["dir"], src))
            if path.startswith(root + os.sep):
                part = rules.part_of(os.path.relpath(path, root))
                if part:
                    found.add(part)
        parts[t["name"]] = found
    problems = []
    for t in targets:
        for raw in t["links"]:
            item = strip_genex(raw)
            name = item.split("::", 1)[1] if "::" in item and item.split("::", 1)[1] in parts \
                else item
            for user in parts[t["name"]]:
                for pattern, banned in rules.never_link:
                    if Rules.matches(pattern, user) and Rules.matches(banned, item):
                        problems.append(f"target {t['name']}: {user} links {item}, "
                                        "which it never may")
                for used in parts.get(name, ()):
                    if not rules.allows(user, used):
                        problems.append(f"target {t['name']}: {user} links {item} ({used}); "
                                        f"{user} may use "
                                        f"{' '.join(sorted(rules.may[user])) or 'nothing'}")
    return problems


def main(argv):
    targets = None
    args = []
    it = iter(argv)
    for a in it:
        if a == "--targets":
            targets = next(it, None)
        else:
            args.append(a)
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    rules = read_rules(root)
    problems = check_includes(root, rules)
    if targets:
        problems += check_links(root, rules, targets)
    for p in problems:
        print(f"check_layering: {p}", file=sys.stderr)
    if problems:
        print(f"check_layering: {len(problems)} violation(s) of docs/architecture.md's "
              "layering rules", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
