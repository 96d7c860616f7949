#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Pictures of what the runtimes did (PNG or SVG, matplotlib).

  scripts/plot.py tsar TRACE [--region NAME] [--passes A:B] [--out DIR] [--format png|svg]
      TSAR_TRACE output (JSON lines, or CSV when the name ends in .csv) of one region:
        tsar-split.*     iterations per device over the passes (the split TSAR learned)
        tsar-timeline.*  per-device timeline of passes A..B: busy, then idle at the barrier
        tsar-bytes.*     bytes each device copied per pass (keys "bytes*" of the trace)
  scripts/plot.py symmer DECISIONS [--out DIR] [--format png|svg]
      a symmer decision log (JSON lines, SYMMER_DECISION_LOG / symmer-run --report):
        symmer-cores.*   per-core timeline of the ranks, each move marked
  scripts/plot.py suite RESULTS [--out DIR] [--format png|svg]
      the output of `scripts/bench.sh tsar` (its JSON lines):
        suite-speedup.*  TSAR's speedup over each peer, per kernel

Passes in the TSAR timeline are laid end to end: the trace holds each pass's length and each
device's busy and idle seconds, not when the pass began, so time between passes is left out.
"""
import argparse
import csv
import json
import os
import sys

try:
    import matplotlib
except ImportError:
    # Debian's python3-matplotlib belongs to /usr/bin/python3; another python3 may come first
    # in PATH (pyenv, a virtual environment).
    system = "/usr/bin/python3"
    if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system):
        os.execv(system, [system] + sys.argv)
    print("plot.py: matplotlib is missing: install python3-matplotlib (scripts/bootstrap.sh)",
          file=sys.stderr)
    sys.exit(1)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

IDLE = "#d0d0d0"


def colors(n):
    # Without the palettes' greys: grey means idle in these pictures.
    if n <= 9:
        cmap, skip = plt.get_cmap("tab10"), {7}
    else:
        cmap, skip = plt.get_cmap("tab20"), {14, 15}
    usable = [cmap(i) for i in range(cmap.N) if i not in skip]
    return [usable[i % len(usable)] for i in range(n)]


def die(message):
    print("plot.py: " + message, file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------------------------------------
# TSAR


def read_trace(path):
    """Passes as dicts {region, schedule, pass, n, seconds, schedule_seconds, devices: [...]}."""
    if path.endswith(".csv"):
        passes = {}
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["region"], int(row["pass"]))
                p = passes.setdefault(key, {
                    "region": row["region"], "schedule": row["schedule"], "pass": key[1],
                    "n": int(row["n"]), "seconds": float(row["pass_seconds"]),
                    "schedule_seconds": float(row["schedule_seconds"]), "devices": []})
                d = {k: row[k] for k in row if k not in p and k not in ("worker", "pass_seconds")}
                for k in ("iterations", "chunks"):
                    d[k] = int(d[k])
                for k in ("busy_seconds", "idle_seconds", "time_per_iteration"):
                    d[k] = float(d[k])
                for k in d:
                    if k.startswith("bytes"):
                        d[k] = float(d[k])
                p["devices"].append(d)
        return list(passes.values())
    out = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                j = json.loads(line)
            except json.JSONDecodeError as e:
                die("%s:%d is not JSON (%s)" % (path, number, e))
            if "devices" in j and "pass" in j:  # not a partition's line, nor a trial's
                out.append(j)
    return out


def pick_region(passes, region):
    # A region name may be reused by a later region object (its passes restart at 0): the
    # last one of each name counts.
    regions = {}
    for p in passes:
        if p["pass"] == 0:
            regions[p["region"]] = []
        regions.setdefault(p["region"], []).append(p)
    if not regions:
        die("the trace has no passes")
    if region is None:  # the region with the most passes
        region = max(regions, key=lambda r: len(regions[r]))
    if region not in regions:
        die("no region '%s' in the trace (regions: %s)" % (region, ", ".join(sorted(regions))))
    return region, sorted(regions[region], key=lambda p: p["pass"])


def plot_split(region, passes, path):
    keys = [d["device"] for d in passes[0]["devices"]]
    cs = colors(len(keys))
    x = [p["pass"] for p in passes]
    shares = [[p["devices"][j]["iterations"] / p["n"] if p["n"] else 0.0 for p in passes]
              for j in range(len(keys))]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    top.stackplot(x, shares, labels=keys, colors=cs, step="mid")
    top.set_ylim(0, 1)
    top.set_ylabel("share of the iterations")
    top.set_title("TSAR split per device over passes: %s (%s)" % (region, passes[0]["schedule"]))
    top.legend(loc="upper right", fontsize="small", ncol=min(4, len(keys)))
    ms = [p["seconds"] * 1e3 for p in passes]
    idle = [sum(d["idle_seconds"] for d in p["devices"]) / max(1, len(keys)) * 1e3 for p in passes]
    bottom.plot(x, ms, color="black", label="pass time")
    bottom.plot(x, idle, color="#c04040", label="mean idle at the barrier")
    bottom.set_ylabel("ms")
    bottom.set_xlabel("pass")
    bottom.set_ylim(bottom=0)
    bottom.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_timeline(region, passes, window, path):
    a, b = window
    shown = passes[a:b]
    if not shown:
        die("--passes %d:%d selects no pass of %d" % (a, b, len(passes)))
    keys = [d["device"] for d in shown[0]["devices"]]
    cs = colors(len(keys))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.45 * len(keys)))
    start = 0.0
    for p in shown:
        for j, d in enumerate(p["devices"]):
            busy, idle = d["busy_seconds"] * 1e3, d["idle_seconds"] * 1e3
            ax.broken_barh([(start, busy)], (j - 0.4, 0.8), facecolors=cs[j])
            ax.broken_barh([(start + busy, idle)], (j - 0.4, 0.8), facecolors=IDLE,
                           hatch="///", edgecolor="white", linewidth=0)
        length = p["seconds"] * 1e3
        ax.axvline(start + length, color="black", linewidth=0.5, alpha=0.5)
        start += length
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(keys)
    ax.invert_yaxis()
    ax.set_xlabel("ms (passes %d-%d end to end; a thin line ends each pass)"
                  % (shown[0]["pass"], shown[-1]["pass"]))
    ax.set_title("TSAR per-device timeline: %s (%s)" % (region, shown[0]["schedule"]))
    ax.legend(handles=[Patch(facecolor=cs[0], label="busy (its ranges, copies included)"),
                       Patch(facecolor=IDLE, hatch="///", label="idle at the barrier")],
              loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_bytes(region, passes, path):
    keys = [d["device"] for d in passes[0]["devices"]]
    fields = sorted({k for p in passes for d in p["devices"] for k in d if k.startswith("bytes")})
    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.set_title("TSAR bytes moved per pass: %s" % region)
    if not fields:
        kinds = sorted({d.get("kind", "?") for p in passes for d in p["devices"]})
        ax.text(0.5, 0.5, "no bytes moved: the trace has no copy counts\n(devices: %s; kinds: %s)"
                % (", ".join(keys), ", ".join(kinds)), ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
    else:
        x = [p["pass"] for p in passes]
        cs = colors(len(keys) * len(fields))
        bottom = [0.0] * len(passes)
        for j, key in enumerate(keys):
            for f, field in enumerate(fields):
                ys = [p["devices"][j].get(field, 0) / 1e6 for p in passes]
                if not any(ys):
                    continue  # host-memory devices copy nothing
                ax.bar(x, ys, bottom=bottom, color=cs[j * len(fields) + f],
                       label="%s %s" % (key, field), width=0.9)
                bottom = [b + y for b, y in zip(bottom, ys)]
        ax.set_xlabel("pass")
        ax.set_ylabel("MB")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def cmd_tsar(args):
    passes = read_trace(args.input)
    region, mine = pick_region(passes, args.region)
    try:
        a, b = (int(v) if v else None for v in args.passes.split(":"))
    except ValueError:
        die("--passes takes A:B (pass numbers, B excluded)")
    window = (a or 0, b if b is not None else len(mine))
    out = []
    for name, draw in (("tsar-split", lambda p: plot_split(region, mine, p)),
                       ("tsar-timeline", lambda p: plot_timeline(region, mine, window, p)),
                       ("tsar-bytes", lambda p: plot_bytes(region, mine, p))):
        path = os.path.join(args.out, "%s.%s" % (name, args.format))
        draw(path)
        out.append(path)
    return out


# ---------------------------------------------------------------------------------------------
# symmer


def read_events(path):
    events = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # the job may have died mid-line
    return sorted((e for e in events if "t_s" in e), key=lambda e: e["t_s"])


def placements(events):
    """[(t, {rank: core})] from the evidence and the completed moves, in time order."""
    out, current = [], {}
    for e in events:
        ranks = (e.get("evidence") or {}).get("ranks")
        changed = False
        if ranks:
            for r in ranks:
                if "rank" in r and r.get("core", -1) >= 0 and current.get(r["rank"]) != r["core"]:
                    current[r["rank"]] = r["core"]
                    changed = True
        if e["event"] == "actuation" and e.get("completed"):
            for m in e.get("moves_in_effect", []):
                current[m["rank"]] = m["to_core"]
                changed = True
        if changed:
            out.append((e["t_s"], dict(current)))
    return out


def cmd_symmer(args):
    events = read_events(args.input)
    if not events:
        die("%s has no decision-log events" % args.input)
    states = placements(events)
    if not states:
        die("%s names no rank placement (no evidence with ranks, no moves)" % args.input)
    end = max(e["t_s"] for e in events)
    ranks = sorted({r for _, s in states for r in s})
    cores = sorted({c for _, s in states for c in s.values()} |
                   {m[k] for e in events for m in e.get("moves", []) for k in ("from_core", "to_core")})
    lane = {c: i for i, c in enumerate(cores)}
    cs = colors(len(ranks))
    color = {r: cs[i] for i, r in enumerate(ranks)}
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.55 * len(cores)))
    # The first placement seen is taken to hold from the start of the job.
    times = [0.0] + [t for t, _ in states[1:]] + [end]
    for (t, state), t0, t1 in zip(states, times[:-1], times[1:]):
        for rank, core in state.items():
            ax.broken_barh([(t0, max(t1 - t0, 1e-9))], (lane[core] - 0.35, 0.7),
                           facecolors=color[rank], alpha=0.85)
            if t1 - t0 > 0.08 * end:  # room for the label
                ax.text(t0 + (t1 - t0) / 2, lane[core], "rank %d" % rank, ha="center",
                        va="center", fontsize="small", color="white")
    for e in events:
        if e["event"] == "actuation":
            bad = not e.get("completed") or e.get("rollback")
            for m in e.get("moves_in_effect", []):
                ax.annotate("", xy=(e["t_s"], lane[m["to_core"]]), xytext=(e["t_s"], lane[m["from_core"]]),
                            arrowprops=dict(arrowstyle="->", color="#c00000" if bad else "black",
                                            lw=1.5))
            label = "rollback" if e.get("rollback") else "move"
            ax.axvline(e["t_s"], color="#c00000" if bad else "black", linestyle="--", lw=0.8)
            ax.text(e["t_s"], len(cores) - 0.45, " %s (plan %s)" % (label, e.get("plan")),
                    fontsize="small", va="bottom")
        elif e["event"] == "evaluation":
            ax.text(e["t_s"], -0.6, " %+.0f%% progress" % (100 * e.get("observed_gain", 0)),
                    fontsize="small", va="top", color="#006000")
        elif e["event"] == "symptom" and e.get("present"):
            ax.plot([e["t_s"]], [-0.45], marker="v", color="#c08000", markersize=6)
    ax.set_yticks(range(len(cores)))
    ax.set_yticklabels(["core %d" % c for c in cores])
    ax.set_ylim(-0.9, len(cores) + 0.5)
    ax.set_xlim(0, end)
    ax.set_xlabel("seconds since the analyzer started (triangles: a symptom seen)")
    ax.set_title("symmer: ranks on cores, with the moves the analyzer made")
    ax.legend(handles=[Patch(facecolor=color[r], label="rank %d" % r) for r in ranks],
              loc="upper right", fontsize="small", ncol=min(8, len(ranks)))
    fig.tight_layout()
    path = os.path.join(args.out, "symmer-cores.%s" % args.format)
    fig.savefig(path)
    plt.close(fig)
    return [path]


# ---------------------------------------------------------------------------------------------
# suite


def cmd_suite(args):
    kernels = []
    with open(args.input) as f:
        for line in f:
            if line.startswith("{"):
                j = json.loads(line)
                if "kernel" in j:
                    kernels.append(j)
    if not kernels:
        die("%s has no kernel lines of scripts/bench.sh tsar" % args.input)
    peers = [r for r in kernels[0]["speedup_vs"]]
    cs = colors(len(peers))
    width = 0.8 / max(1, len(peers))
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(kernels) * max(1, len(peers)) / 3), 4.5))
    for i, peer in enumerate(peers):
        ys = [k["speedup_vs"].get(peer) or float("nan") for k in kernels]
        ax.bar([x + (i - (len(peers) - 1) / 2) * width for x in range(len(kernels))], ys,
               width=width, color=cs[i], label=peer)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(["%s\n(%s)" % (k["kernel"], k["kind"][:5]) for k in kernels],
                       fontsize="small", rotation=0)
    ax.set_ylabel("T(peer) / T(TSAR)  (>1: TSAR faster)")
    ax.set_title("TSAR's speedup over each peer, same kernels and threads")
    ax.legend(fontsize="small", ncol=4)
    fig.tight_layout()
    path = os.path.join(args.out, "suite-speedup.%s" % args.format)
    fig.savefig(path)
    plt.close(fig)
    return [path]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    for name, helptext in (("tsar", "a TSAR_TRACE file"), ("symmer", "a symmer decision log"),
                           ("suite", "scripts/bench.sh tsar output")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("input")
        p.add_argument("--out", default=".", help="folder for the pictures (default: .)")
        p.add_argument("--format", choices=("png", "svg"), default="png")
        if name == "tsar":
            p.add_argument("--region", help="region to draw (default: the one with most passes)")
            p.add_argument("--passes", default="0:12",
                           help="passes A:B of the timeline (default 0:12)")
    args = parser.parse_args()
    if not os.path.isfile(args.input):
        die("no file %s" % args.input)
    os.makedirs(args.out, exist_ok=True)
    written = {"tsar": cmd_tsar, "symmer": cmd_symmer, "suite": cmd_suite}[args.what](args)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
