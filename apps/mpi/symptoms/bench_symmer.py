#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The symptom benchmarks plain, under symmer-run, and on the best static mapping, side by side.

    bench_symmer.py --bin <build/bin> [--ranks N] [--benchmarks idleness,outofsync,...]

Every benchmark starts from the same pinned mapping (mpiexec -bind-to user:<cores>) with the
same disturbance and the same work (one work rate, measured at the start, passed to every run
with --units-per-ms: a rate measured by each run would vary the work itself), in the same run:

  idleness   symmer-idleness (rank 0 computes 4x the last rank); symmer-noise takes --share of
             the core rank 0 starts on (a core losing time to interrupt processing)
  outofsync  symmer-outofsync, buffered large transfers, odd ranks compute twice what even
             ranks do; the noisy core is the one rank 1 starts on
  locality   symmer-locality with split pairing (partners far apart): a bad initial mapping,
             no noise
  balanced   symmer-idleness with equal compute and no noise: a good mapping that symmer
             should leave alone (the no-harm check)

Each runs plain, under symmer-run (embedded analyzer, decision log), and plain on the best
static mapping (oracle): the disturbed rank on a free clean core when the allowed cores leave
one, else swapped with the rank that suffers least there; partners side by side for locality;
the start mapping itself for balanced. Repetitions interleave the variants, in alternating
order (plain symmer oracle, then oracle symmer plain, ...) so that drift of the machine (other
load, clock, temperature) falls on every variant alike; times are medians. The balanced run
is the no-harm check of a goal of 1%, well inside the run-to-run noise of a single pair of
runs: it repeats --balanced-repeat times (at least --repeat).

Progress and a readable table go to stderr; stdout gets one JSON line per benchmark:
  bench, ranks, plain_s, symmer_s, oracle_s (medians), speedup (plain/symmer), recovered (share
  of the plain-to-oracle gap symmer won back; null when the gap is under 2%), symmer_ratio
  (symmer/plain of the runs of one repetition, which ran next to each other: median, min, max,
  and the spread of plain/plain between repetitions for scale), reaction_s (first symptom to
  the first completed move, from the decision log), moved_at_s (the same seen by the
  benchmark: first time a rank ran on another CPU, from the start of its timed loop), moves,
  move_metrics, rollbacks, faults, analyzer (CPU seconds the embedded analysis took, start-up
  and windows, from the decision log's summary), noise (cores, share asked, share achieved),
  mappings, runs (every time, in run order).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Bench:
    """One benchmark: program, arguments, start mapping, noisy cores, oracle mapping."""

    def __init__(self, name, program, args, start, noisy, oracle):
        self.name, self.program, self.args = name, program, args
        self.start, self.noisy, self.oracle = start, noisy, oracle


def benches(ranks, cores, seconds):
    """Mappings are lists of CPUs, rank i on entry i."""
    start = cores[:ranks]
    spare = [c for c in cores if c not in start]
    out = []

    # idleness: rank 0 busiest (4 x 5 ms per step); its core is noisy.
    it = max(20, int(seconds / 0.020))
    noisy = [start[0]]
    if spare:
        oracle = [spare[0]] + start[1:]
    else:
        oracle = list(start)
        oracle[0], oracle[-1] = oracle[-1], oracle[0]
    out.append(Bench('idleness', 'symmer-idleness',
                     ['--iterations', it, '--work-ms', 5, '--ratio', 4], start, noisy, oracle))

    # outofsync: odd ranks compute 2x (2 x 10 ms per iteration); rank 1's core is noisy.
    # Swapping rank 1 with its partner puts the lighter rank on the noisy core and both finish
    # their steps together.
    it = max(10, int(seconds / 0.020))
    noisy = [start[1]]
    oracle = list(start)
    if spare:
        oracle[1] = spare[0]
    else:
        oracle[0], oracle[1] = oracle[1], oracle[0]
    out.append(Bench('outofsync', 'symmer-outofsync',
                     ['--iterations', it, '--work-ms', 10, '--ratio', 0.5, '--bytes', 1 << 20],
                     start, noisy, oracle))

    # locality: partner of r is r + ranks/2; the oracle puts partners on adjacent cores.
    it = max(20, int(seconds / 0.004))
    half = ranks // 2
    oracle = [0] * ranks
    for r in range(ranks):
        pair, second = (r, 0) if r < half else (r - half, 1)
        oracle[r] = start[2 * pair + second]
    out.append(Bench('locality', 'symmer-locality',
                     ['--iterations', it, '--work-ms', 1, '--bytes', 4 << 20, '--pairing', 'split'],
                     start, [], oracle))

    # balanced: equal compute, no noise, a good mapping already.
    it = max(20, int(seconds / 0.010))
    out.append(Bench('balanced', 'symmer-idleness',
                     ['--iterations', it, '--work-ms', 10, '--ratio', 1], start, [], None))
    return out


class Runner:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='symmer-bench-')

    def env(self):
        e = {k: v for k, v in os.environ.items() if not k.startswith('SYMMER_')}
        e.pop('LD_PRELOAD', None)
        return e

    def noise(self, cores):
        """Starts symmer-noise on `cores` (None when there is nothing to disturb)."""
        if not cores:
            return None
        cmd = [os.path.join(self.args.bin, 'symmer-noise'), '--cpus',
               ','.join(map(str, cores)), '--share', str(self.args.noise_share)]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.env())
        time.sleep(0.3)  # running before the job starts: the symptom is there from the start
        if p.poll() is not None:
            raise SystemExit(f'bench: symmer-noise failed: {p.stderr.read()}')
        return p

    @staticmethod
    def stop_noise(p):
        if p is None:
            return None
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        if 'SCHED_FIFO refused' in err:
            log('  (symmer-noise ran SCHED_OTHER: it steals less than asked from busy cores)')
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return None

    def calibrate(self, mapping, times=3):
        """The work rate every run is given (--units-per-ms), so that all variants do the same
        work: the median of a few measurements on `mapping` (each the fastest core's)."""
        rates = []
        for _ in range(times):
            cmd = [self.args.mpiexec, '-n', str(len(mapping)), '-bind-to',
                   'user:' + ','.join(map(str, mapping)),
                   os.path.join(self.args.bin, 'symmer-idleness'), '--iterations', '1',
                   '--work-ms', '0']
            p = subprocess.run(cmd, capture_output=True, text=True, env=self.env(),
                               timeout=self.args.timeout)
            if p.returncode != 0:
                raise SystemExit(f'bench: calibration {" ".join(cmd)} failed:\n{p.stderr}')
            rates.append(json.loads(p.stdout.strip().splitlines()[-1])['units_per_ms'])
        self.units_per_ms = statistics.median(rates)
        return rates

    def run(self, bench, mapping, symmer):
        """One run; returns (benchmark JSON, decision-log events, noise JSON)."""
        a = self.args
        cmd = [a.mpiexec, '-n', str(len(mapping)), '-bind-to',
               'user:' + ','.join(map(str, mapping)),
               os.path.join(a.bin, bench.program), *map(str, bench.args),
               '--units-per-ms', repr(self.units_per_ms)]
        decisions = None
        if symmer:
            decisions = os.path.join(self.tmp, f'{bench.name}-{time.monotonic_ns()}.jsonl')
            cmd = [os.path.join(a.bin, 'symmer-run'), '--decision-log', decisions, *cmd]
        noise = self.noise(bench.noisy)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=self.env(),
                               timeout=a.timeout)
        finally:
            noise_out = self.stop_noise(noise)
        if p.returncode != 0:
            raise SystemExit(f'bench: {" ".join(cmd)} failed ({p.returncode}):\n'
                             f'{p.stdout}\n{p.stderr}')
        result = json.loads(p.stdout.strip().splitlines()[-1])
        events = []
        if decisions and os.path.exists(decisions) and a.keep:
            os.makedirs(a.keep, exist_ok=True)
            shutil.copy(decisions, a.keep)
        if decisions and os.path.exists(decisions):
            with open(decisions) as f:
                for line in f:
                    try:
                        events.append(json.loads(line))
                    except ValueError:
                        pass
        # What symmer said (analyzer warnings, errors; spdlog writes to stdout): kept with the
        # figures.
        said = [l.strip() for l in (p.stdout + p.stderr).splitlines()
                if 'symmer' in l and not l.startswith('{')]
        return result, events, noise_out, said


def decision_figures(events):
    reaction = None
    moves = 0
    metrics = []
    rollbacks = 0
    faults = []
    planned = {}
    cost = None
    for e in events:
        kind = e.get('event')
        if kind == 'summary' and 'cpu_s' in e:
            cost = {k: e.get(k) for k in ('cpu_s', 'startup_cpu_s', 'windows')}
        elif kind == 'plan':
            planned[e.get('plan')] = e.get('metrics', [])
        elif kind == 'fault':
            faults.append(e.get('message'))
        elif kind == 'actuation':
            faults += e.get('faults', [])
            if not e.get('completed'):
                continue
            if e.get('rollback'):
                rollbacks += 1
                continue
            moves += len(e.get('moves_in_effect', []))
            metrics += [m for m in planned.get(e.get('plan'), []) if m not in metrics]
            if reaction is None and e.get('reaction_s') is not None:
                reaction = e['reaction_s']
    return {'reaction_s': reaction, 'moves': moves, 'move_metrics': metrics,
            'rollbacks': rollbacks, 'faults': faults, 'analyzer': cost}


def spread(values, digits=4):
    """Median, min and max of `values` (None when empty)."""
    if not values:
        return None
    return {'median': round(statistics.median(values), digits),
            'min': round(min(values), digits), 'max': round(max(values), digits)}


def measure(runner, bench, repeat):
    variants = [('plain', bench.start, False), ('symmer', bench.start, True)]
    if bench.oracle is not None and bench.oracle != bench.start:
        variants.append(('oracle', bench.oracle, False))
    times = {v[0]: [] for v in variants}
    figures = []
    moved_at = []
    achieved = []
    for rep in range(repeat):
        for name, mapping, symmer in (variants if rep % 2 == 0 else variants[::-1]):
            result, events, noise, said = runner.run(bench, mapping, symmer)
            times[name].append(result['time_s'])
            if noise:
                achieved += [c.get('achieved_share') for c in noise.get('cores', [])]
            if symmer:
                figures.append(decision_figures(events))
                figures[-1]['messages'] = list(dict.fromkeys(said))[:5]
                ts = [r['moved_at_s'] for r in result['per_rank'] if r['moved_at_s'] is not None]
                moved_at.append(min(ts) if ts else None)
            log(f'  {bench.name} {name:6s} run {rep + 1}/{repeat}: {result["time_s"]:.3f} s'
                + (f', {figures[-1]["moves"]} move(s)' if symmer else ''))
    plain = statistics.median(times['plain'])
    symmer = statistics.median(times['symmer'])
    oracle = statistics.median(times['oracle']) if 'oracle' in times else plain
    gap = plain - oracle
    # The figures of the symmer run whose time is the median (the one reported).
    pick = sorted(range(len(times['symmer'])), key=lambda i: times['symmer'][i])[
        (len(times['symmer']) - 1) // 2]
    f = figures[pick]
    # symmer/plain within each repetition (neighbours in time), and for scale how much plain
    # itself varies between repetitions (each plain run over the median plain run).
    ratios = [s / p for s, p in zip(times['symmer'], times['plain'])]
    plain_noise = [p / plain for p in times['plain']]
    costs = [x['analyzer'] for x in figures if x.get('analyzer')]
    return {
        'bench': bench.name,
        'ranks': len(bench.start),
        'plain_s': round(plain, 4),
        'symmer_s': round(symmer, 4),
        'oracle_s': round(oracle, 4),
        'speedup': round(plain / symmer, 4),
        'recovered': round((plain - symmer) / gap, 4) if gap > 0.02 * plain else None,
        'symmer_ratio': dict(spread(ratios), plain_spread=spread(plain_noise)),
        'reaction_s': None if f['reaction_s'] is None else round(f['reaction_s'], 3),
        'moved_at_s': None if moved_at[pick] is None else round(moved_at[pick], 3),
        'moves': f['moves'],
        'move_metrics': f['move_metrics'],
        'rollbacks': f['rollbacks'],
        'faults': f['faults'][:5],
        'messages': f['messages'],
        'analyzer': {
            'cpu_s': spread([c['cpu_s'] for c in costs if c.get('cpu_s') is not None]),
            'startup_cpu_s': spread([c['startup_cpu_s'] for c in costs
                                     if c.get('startup_cpu_s') is not None]),
            'windows': spread([c['windows'] for c in costs if c.get('windows') is not None], 1),
        } if costs else None,
        'noise': {'cores': bench.noisy, 'share': runner.args.noise_share if bench.noisy else 0,
                  'achieved': [round(a, 3) for a in achieved if a is not None][:4]},
        'mappings': {'start': bench.start, 'oracle': bench.oracle or bench.start},
        'units_per_ms': runner.units_per_ms,
        'runs': {k: [round(t, 4) for t in v] for k, v in times.items()},
        'repeat': repeat,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--bin', required=True, help='folder of the built programs')
    parser.add_argument('--mpiexec', default=os.environ.get('SYMMER_MPIEXEC', 'mpiexec.mpich'))
    parser.add_argument('--ranks', type=int, default=2, help='ranks per benchmark (even)')
    parser.add_argument('--benchmarks', default='idleness,outofsync,locality,balanced')
    parser.add_argument('--seconds', type=float, default=8.0,
                        help='runtime of each benchmark on its best mapping (about)')
    parser.add_argument('--repeat', type=int, default=1, help='runs of each variant (median)')
    parser.add_argument('--balanced-repeat', type=int, default=5,
                        help='runs of each variant of the balanced (no-harm) benchmark')
    parser.add_argument('--noise-share', type=float, default=0.5)
    parser.add_argument('--timeout', type=float, default=300)
    parser.add_argument('--keep', help='copy the decision logs of the symmer runs here')
    args = parser.parse_args()

    if args.ranks < 2 or args.ranks % 2:
        raise SystemExit('bench: --ranks must be even and at least 2 (the benchmarks use pairs)')
    if shutil.which(args.mpiexec) is None:
        raise SystemExit(f'bench: {args.mpiexec} not found (MPICH hydra; set SYMMER_MPIEXEC)')
    for p in ('symmer-idleness', 'symmer-outofsync', 'symmer-locality', 'symmer-noise',
              'symmer-run'):
        if not os.access(os.path.join(args.bin, p), os.X_OK):
            raise SystemExit(f'bench: {p} is not built in {args.bin}')
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < args.ranks:
        raise SystemExit(f'bench: {args.ranks} ranks need {args.ranks} cores; '
                         f'this process may use {len(cores)}')
    wanted = args.benchmarks.split(',')
    all_benches = {b.name: b for b in benches(args.ranks, cores, args.seconds)}
    unknown = [w for w in wanted if w not in all_benches]
    if unknown:
        raise SystemExit(f'bench: unknown benchmark(s) {unknown}; known: {list(all_benches)}')

    log(f'bench symmer: {args.ranks} ranks on cores {cores[:args.ranks]} of {cores}, '
        f'noise {args.noise_share:.0%}, load average {os.getloadavg()[0]:.1f}')
    runner = Runner(args)
    rates = runner.calibrate(all_benches[wanted[0]].start)
    log(f'work rate {runner.units_per_ms:.0f} units/ms for every run (measured '
        f'{", ".join(f"{r:.0f}" for r in rates)})')
    rows = []
    try:
        for name in wanted:
            repeat = max(args.repeat, args.balanced_repeat if name == 'balanced' else 1)
            row = measure(runner, all_benches[name], repeat)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(runner.tmp, ignore_errors=True)

    log(f'\n{"bench":10s} {"plain s":>8s} {"symmer s":>9s} {"oracle s":>9s} {"speedup":>8s} '
        f'{"recovered":>9s} {"reaction s":>10s} {"moves":>5s}  symmer/plain (min-max, runs)')
    for r in rows:
        rec = '-' if r['recovered'] is None else f'{100 * r["recovered"]:.0f}%'
        rea = '-' if r['reaction_s'] is None else f'{r["reaction_s"]:.2f}'
        q = r['symmer_ratio']
        log(f'{r["bench"]:10s} {r["plain_s"]:8.3f} {r["symmer_s"]:9.3f} {r["oracle_s"]:9.3f} '
            f'{r["speedup"]:8.3f} {rec:>9s} {rea:>10s} {r["moves"]:5d}  '
            f'{q["median"]:.3f} ({q["min"]:.3f}-{q["max"]:.3f}, {r["repeat"]})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
