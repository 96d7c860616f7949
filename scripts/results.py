#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs/results: measured runs filed by question, and the index that says which one is current.

  scripts/results.py record QUESTION --node NODE --commit COMMIT --command CMD --input FILE
                            [--date YYYY-MM-DD] [--describe TEXT] [--node-description TEXT]
      Files FILE as docs/results/QUESTION/<date>-<node>-<commit>.<jsonl|txt> (jsonl when every
      line is JSON), moves the file it supersedes (same question, same node) to
      docs/results/archive/QUESTION/, and updates docs/results/README.md. QUESTION is
      <part>/<question>, e.g. tsar/suite-cpu; a new one needs --describe, a new node
      --node-description. COMMIT must be a clean commit (not "-dirty", not "unknown").
  scripts/results.py check [ROOT]
      The index and the files agree: every file is listed once, with a name that matches its
      row, current files in their question's folder and superseded ones in archive/; and every
      docs/results/... path cited anywhere in the project exists.

scripts/bench.sh <benchmark> ... --record QUESTION --node NODE runs a benchmark and records
its output this way. $SYMMER_RESULTS_DIR overrides docs/results (tests).
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
INDEX = "README.md"
NAME = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})-(?P<node>[a-z0-9]+)-(?P<commit>[0-9a-f]{7,40})"
                  r"(?:\.(?P<label>[a-z0-9-]+))?\.(?P<ext>jsonl|json|txt)$")
QUESTION = re.compile(r"^(symmer|tsar)/[a-z0-9]+(?:-[a-z0-9]+)*$")
NODE = re.compile(r"^[a-z0-9]+$")
# Words of how the work was done, not of what was measured.
DIARY = re.compile(r"session|round|final|lead|helper", re.I)
FILES_HEADER = ["question", "file", "node", "commit", "command", "superseded by"]


def results_dir():
    return os.environ.get("SYMMER_RESULTS_DIR") or os.path.join(ROOT, "docs", "results")


class Table:
    """A markdown table of the index: header, rows (lists of cells), where it sits."""

    def __init__(self, header, rows, start, end):
        self.header, self.rows, self.start, self.end = header, rows, start, end

    def render(self):
        lines = ["| " + " | ".join(self.header) + " |",
                 "| " + " | ".join("---" for _ in self.header) + " |"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return lines


def split_row(line):
    """Cells of a table line; '\\|' stays inside a cell."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in cells[1:-1]]


def find_table(lines, header):
    for i, line in enumerate(lines):
        if line.startswith("|") and [c.lower() for c in split_row(line)] == header:
            end = i + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            return Table(split_row(line), [split_row(l) for l in lines[i + 2:end]], i, end)
    raise ValueError(f"{INDEX}: no table with the columns {' | '.join(header)}")


class Index:
    """docs/results/README.md: the nodes, the questions and the files tables."""

    def __init__(self, directory):
        self.path = os.path.join(directory, INDEX)
        with open(self.path, encoding="utf-8") as f:
            self.lines = f.read().splitlines()
        self.nodes = find_table(self.lines, ["node", "machine"])
        self.questions = find_table(self.lines, ["question", "what it answers"])
        self.files = find_table(self.lines, FILES_HEADER)

    def write(self):
        tables = sorted([self.nodes, self.questions, self.files], key=lambda t: -t.start)
        lines = list(self.lines)
        for t in tables:  # from the bottom up, so earlier positions stay valid
            lines[t.start:t.end] = t.render()
        with open(self.path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    @staticmethod
    def link_target(cell):
        m = re.search(r"\]\(([^)]+)\)", cell)
        return m.group(1) if m else cell.strip("`")

    def rows(self):
        """Each file row as a dict: question, path (relative to docs/results), node, ..."""
        out = []
        for r in self.files.rows:
            d = dict(zip(["question", "file", "node", "commit", "command", "superseded"], r))
            d["path"] = self.link_target(d["file"])
            d["superseded_path"] = self.link_target(d["superseded"]) if d["superseded"] else ""
            out.append(d)
        return out


def link(path):
    return f"[{os.path.basename(path)}]({path})"


def is_jsonl(text):
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        return False
    try:
        for l in lines:
            json.loads(l)
    except ValueError:
        return False
    return True


def record(args):
    directory = results_dir()
    if not QUESTION.match(args.question):
        sys.exit(f"results: question {args.question!r}: give <symmer|tsar>/<words-with-dashes>")
    if not NODE.match(args.node):
        sys.exit(f"results: node {args.node!r}: lower-case letters and digits only (h200x2)")
    if not re.fullmatch(r"[0-9a-f]{7,40}", args.commit):
        sys.exit(f"results: commit {args.commit!r}: a recorded run must come from a committed "
                 "build (12 hex digits; not -dirty, not unknown)")
    for value, what in ((args.question, "question"), (args.node, "node")):
        if DIARY.search(value):
            sys.exit(f"results: {what} {value!r} speaks of how the work went, not of what it "
                     "measures")
    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    if not text.strip():
        sys.exit(f"results: {args.input} is empty: nothing to record")
    date = args.date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    ext = "jsonl" if is_jsonl(text) else "txt"
    path = f"{args.question}/{date}-{args.node}-{args.commit}.{ext}"
    index = Index(directory)
    if os.path.exists(os.path.join(directory, path)):
        sys.exit(f"results: {path} exists already")
    if args.node not in [r[0] for r in index.nodes.rows]:
        if not args.node_description:
            sys.exit(f"results: node {args.node} is new: describe it with --node-description")
        index.nodes.rows.append([args.node, args.node_description])
    if args.question not in [r[0] for r in index.questions.rows]:
        if not args.describe:
            sys.exit(f"results: question {args.question} is new: say what it answers with "
                     "--describe")
        index.questions.rows.append([args.question, args.describe])
        index.questions.rows.sort()
    for row in index.files.rows:  # the current file of this question on this node retires
        r = dict(zip(["question", "file", "node"], row))
        if r["question"] == args.question and r["node"] == args.node and not row[5]:
            old = Index.link_target(row[1])
            archived = "archive/" + old
            os.makedirs(os.path.dirname(os.path.join(directory, archived)), exist_ok=True)
            os.replace(os.path.join(directory, old), os.path.join(directory, archived))
            row[1] = link(archived)
            row[5] = link(path)
            for older in index.files.rows:  # files it superseded now point at its archive
                if older[5] and Index.link_target(older[5]) == old:
                    older[5] = link(archived)
    os.makedirs(os.path.dirname(os.path.join(directory, path)), exist_ok=True)
    with open(os.path.join(directory, path), "w", encoding="utf-8") as f:
        f.write(text)
    command = "`" + args.command.replace("|", "\\|") + "`"
    index.files.rows.append([args.question, link(path), args.node, args.commit, command, ""])
    index.files.rows.sort(key=lambda r: (r[0], bool(r[5]), r[2], Index.link_target(r[1])))
    index.write()
    print(os.path.join(directory, path))


def cited_paths(root):
    """Files under docs/results/ cited in the project's tracked text files (placeholders such as
    docs/results/<part>/ are not files and not checked)."""
    try:
        out = subprocess.run(["git", "-C", root, "grep", "--untracked", "-I", "-o", "-E",
                              r"docs/results/[a-z0-9_./-]+\.(jsonl|json|txt|md)", "--",
                              ":!docs/results"],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    cites = []
    for line in out.splitlines():
        where, _, cited = line.partition(":")
        cites.append((where, cited))
    return cites


def check(root):
    directory = os.path.join(root, "docs", "results")
    problems = []
    index = Index(directory)
    nodes = {r[0] for r in index.nodes.rows}
    questions = {r[0] for r in index.questions.rows}
    rows = index.rows()
    listed = {}
    for r in rows:
        listed[r["path"]] = listed.get(r["path"], 0) + 1
    on_disk = set()
    for top, _, names in os.walk(directory):
        for n in names:
            rel = os.path.relpath(os.path.join(top, n), directory)
            if rel != INDEX:
                on_disk.add(rel)
    for rel in sorted(on_disk - set(listed)):
        problems.append(f"{rel}: not in the index")
    for rel, count in listed.items():
        if count > 1:
            problems.append(f"{rel}: listed {count} times")
    paths = {r["path"] for r in rows}
    current = {}
    for r in rows:
        p, q = r["path"], r["question"]
        if p not in on_disk:
            problems.append(f"{p}: listed but missing")
        if q not in questions:
            problems.append(f"{p}: question {q} is not in the questions table")
        if r["node"] not in nodes:
            problems.append(f"{p}: node {r['node']} is not in the nodes table")
        folder = ("archive/" if r["superseded"] else "") + q + "/"
        if not p.startswith(folder) or "/" in p[len(folder):]:
            problems.append(f"{p}: belongs in {folder}")
        m = NAME.match(os.path.basename(p))
        if not m:
            problems.append(f"{p}: not named <date>-<node>-<commit>[.<label>].<ext>")
        elif m["node"] != r["node"] or m["commit"] != r["commit"]:
            problems.append(f"{p}: its name disagrees with its row (node {r['node']}, "
                            f"commit {r['commit']})")
        if DIARY.search(p):
            problems.append(f"{p}: the name speaks of how the work went")
        if r["superseded"]:
            if r["superseded_path"] not in paths:
                problems.append(f"{p}: superseded by {r['superseded_path']}, not in the index")
        else:
            key = (q, r["node"])
            if key in current:
                problems.append(f"{p} and {current[key]}: two current files for {q} on "
                                f"{r['node']}")
            current[key] = p
    for where, cited in cited_paths(root):
        if not os.path.exists(os.path.join(root, cited)):
            problems.append(f"{where} cites {cited}, which does not exist")
    for p in problems:
        print(f"results: {p}", file=sys.stderr)
    return 1 if problems else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("record", help="file a run and update the index")
    r.add_argument("question")
    r.add_argument("--node", required=True)
    r.add_argument("--commit", required=True)
    r.add_argument("--command", required=True)
    r.add_argument("--input", required=True)
    r.add_argument("--date")
    r.add_argument("--describe")
    r.add_argument("--node-description")
    c = sub.add_parser("check", help="the index and the files agree")
    c.add_argument("root", nargs="?", default=ROOT)
    args = parser.parse_args(argv)
    if args.what == "record":
        record(args)
        return 0
    return check(args.root)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
