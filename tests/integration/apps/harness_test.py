#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""apps/mpi/bench_apps.py on the vendored applications at a small size, at most 2 ranks (LULESH
1: its ranks must be a cube): every run exits 0 and passes the application's own verification,
every symmer run had the shim's analyzer running (it logged its configuration), the summaries
come out, and the JSON lines carry the keys the harness documents. No timings are checked.

    harness_test.py --bin <build/bin> --mpiexec <mpiexec.mpich>
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../apps/mpi/bench_apps.py')
RUN_KEYS = {'app', 'config', 'case', 'variant', 'rep', 'time_s', 'wall_s', 'verified', 'moves',
            'moved_at_s', 'moved_to', 'reaction_s', 'analyzed', 'steal_s', 'node_steal_s',
            'mapping', 'noise_cpus'}
SUMMARY_KEYS = {'app', 'config', 'case', 'plain_s', 'symmer_s', 'oracle_s', 'recovered',
                'symmer_over_plain', 'symmer_over_oracle', 'shim_over_plain', 'moves',
                'moved_at_s', 'verified'}
# (application, configuration, cases, scale, variants): 9 runs of a few seconds each.
RUNS = [('minife', '2x1', 'noisy1,balanced', 0.25, 'plain,symmer'),
        ('miniamr', '2x1', 'balanced', 0.1, 'plain,symmer'),
        ('lulesh', '1x1', 'balanced', 0.25, 'plain,symmer,shim')]


def fail(msg):
    print(f'FAIL {msg}')
    sys.exit(1)


def harness(args, apps, configs, cases, scale, variants):
    cmd = [sys.executable, HARNESS, '--bin', args.bin, '--mpiexec', args.mpiexec, '--apps', apps,
           '--configs', configs, '--cases', cases, '--repeat', '1', '--scale', str(scale)] + \
        (['--shim-variant'] if 'shim' in variants else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=500)
    if p.returncode != 0:
        fail(f'{" ".join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}')
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith('{')]


def check_lulesh_timer():
    """LULESH prints "Elapsed time" to two significant digits (12 s for 12.3): the harness must
    read the eight-digit copy on the grind-time line."""
    spec = importlib.util.spec_from_file_location('bench_apps', HARNESS)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = ('Final Origin Energy =  2.025075e+05\n        MaxRelDiff   = 1.0e-15\n'
           'Elapsed time         =         12 (s)\n'
           'Grind time (us/z/c)  =  0.51234567 (per dom)  (  12.345678 overall)\n')
    t, ok, _ = bench.Lulesh(None).parse(out)
    if t != 12.345678 or not ok:
        fail(f'LULESH output parsed as time {t}, verified {ok}')


def check_steal():
    """Stolen time is read per CPU from /proc/stat's steal column and summed over the CPUs
    asked for."""
    spec = importlib.util.spec_from_file_location('bench_apps', HARNESS)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    hz = os.sysconf('SC_CLK_TCK')
    stat = ('cpu  10 0 10 100 0 0 0 {t} 0 0\n'
            'cpu0 5 0 5 50 0 0 0 {a} 0 0\ncpu1 5 0 5 50 0 0 0 {b} 0 0\nintr 1 2 3\n')
    path = os.path.join(os.environ.get('TMPDIR', '/tmp'), f'harness-stat-{os.getpid()}')
    readings = []
    for t, a, b in ((3, 1, 2), (3 + 3 * hz, 1 + hz, 2 + 2 * hz)):
        with open(path, 'w') as f:
            f.write(stat.format(t=t, a=a, b=b))
        readings.append(bench.steal_ticks(path))
    os.unlink(path)
    if readings[0] != {0: 1, 1: 2}:
        fail(f'steal ticks read as {readings[0]}')
    got = (bench.steal_seconds(*readings, {1}), bench.steal_seconds(*readings),
           bench.steal_seconds({}, readings[1]))
    if got != (2.0, 3.0, None):
        fail(f'steal seconds {got}, expected (2.0, 3.0, None)')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--bin', required=True)
    parser.add_argument('--mpiexec', required=True)
    args = parser.parse_args()
    check_lulesh_timer()
    check_steal()
    if len(os.sched_getaffinity(0)) < 2:
        print('SKIP: needs 2 CPUs')
        return 77
    lines = [l for run in RUNS for l in harness(args, *run)]
    runs = [l for l in lines if 'variant' in l]
    summaries = [l for l in lines if l.get('summary')]
    skipped = [l for l in lines if 'skipped' in l]
    if skipped:
        fail(f'skipped: {skipped}')
    expected = {(a, c, k, v) for a, c, ks, _, vs in RUNS for k in ks.split(',')
                for v in vs.split(',')}
    got = {(r['app'], r['config'], r['case'], r['variant']) for r in runs}
    if got != expected or len(runs) != len(expected):
        fail(f'runs {sorted(got)}, expected {sorted(expected)}')
    for r in runs:
        missing = RUN_KEYS - set(r)
        if missing or not r['verified'] or 'error' in r or r['time_s'] is None:
            fail(f'run {json.dumps(r)[:800]} (missing keys {missing})')
        if r['analyzed'] != (r['variant'] == 'symmer'):
            fail(f'{r["app"]} {r["variant"]}: analyzer ran: {r["analyzed"]}')
        # A completed move has its time on the analyzer's clock, within the run.
        if (r['moves'] > 0) != bool(r['moved_at_s']) or \
                any(not 0 <= t <= r['wall_s'] for t in r['moved_at_s']):
            fail(f'{r["app"]} {r["variant"]}: moves {r["moves"]} at {r["moved_at_s"]} s')
        if len(r['moved_to']) != r['moves']:
            fail(f'{r["app"]} {r["variant"]}: {r["moves"]} moves, targets {r["moved_to"]}')
        if r['case'] == 'noisy1' and r['noise_cpus'] != [int(r['mapping'][0].split(',')[0])]:
            fail(f'noise not on rank 0\'s first CPU: {r}')
    want = {(a, c, k) for a, c, ks, _, _ in RUNS for k in ks.split(',')}
    if {(s['app'], s['config'], s['case']) for s in summaries} != want or \
            any(SUMMARY_KEYS - set(s) or not s['verified'] for s in summaries):
        fail(f'summaries: {summaries}')
    with_shim = {a for a, _, _, _, vs in RUNS if 'shim' in vs.split(',')}
    for s in summaries:
        if (s['shim_over_plain'] is None) == (s['app'] in with_shim):
            fail(f'{s["app"]}: shim_over_plain {s["shim_over_plain"]}')
    print(f'ok: {len(runs)} runs verified, {len(summaries)} summaries')
    return 0


if __name__ == '__main__':
    sys.exit(main())
