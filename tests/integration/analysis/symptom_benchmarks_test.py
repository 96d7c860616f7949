#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The symptom benchmarks end to end with a real mpiexec (ctest label mpi).

    symptom_benchmarks_test.py --bin <build/bin> --mpiexec <mpiexec.mpich> <case>

Each case runs one benchmark with 2 pinned ranks and checks what it reports against what it
was asked to do: the final JSON line's shape and parameters, one entry per rank, ranks on the
CPUs mpiexec pinned them to, every rank's time accounted for. Bad arguments must give a clear
message and a non-zero exit. Nothing here depends on how fast the machine is.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))
from symmer_testing.cases import Cases, check  # noqa: E402
from symmer_testing.mpi_jobs import last_json_line  # noqa: E402

CASES = Cases()
case = CASES.case


def run(args, bench, *options, ranks=2, expect_ok=True):
    cmd = [args.mpiexec, '-n', str(ranks), '-bind-to', 'core',
           f'{args.bin}/symmer-{bench}', *options]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
    if expect_ok:
        check(p.returncode == 0, f'{" ".join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}')
        report = last_json_line(p.stdout)
        check(report is not None, f'{bench}: no result line:\n{p.stdout}')
        return report, p
    return None, p


def check_report(report, bench, ranks, params):
    check(report['bench'] == bench, f'bench is {report["bench"]}')
    check(report['ranks'] == ranks, f'ranks is {report["ranks"]}')
    for key, value in params.items():
        check(report['params'][key] == value, f'params.{key} is {report["params"][key]}, asked {value}')
    per_rank = report['per_rank']
    check([r['rank'] for r in per_rank] == list(range(ranks)), f'per_rank ranks: {per_rank}')
    check(report['time_s'] > 0, 'time_s must be positive')
    for r in per_rank:
        # Everything a rank does in the loop is compute or MPI: the two add up to its loop
        # time, which cannot exceed the runtime (measured from the same barrier).
        total = r['compute_s'] + r['wait_s']
        check(total <= report['time_s'] * 1.01 + 0.01, f'rank {r["rank"]}: {total} s > runtime')
        check(total >= report['time_s'] * 0.5, f'rank {r["rank"]}: only {total} s of {report["time_s"]} accounted')
        check(r['cpu_start'] >= 0 and r['cpu_end'] >= 0, f'rank {r["rank"]}: no cpu')
    # -bind-to core: the two ranks start on different CPUs and nothing moves them.
    check(len({r['cpu_start'] for r in per_rank}) == ranks, f'ranks share a CPU: {per_rank}')
    check(all(r['moved_at_s'] is None for r in per_rank), f'a rank moved without symmer: {per_rank}')
    return per_rank


@case
def idleness(args):
    report, _ = run(args, 'idleness', '--iterations', '20', '--work-ms', '2', '--ratio', '4')
    per_rank = check_report(report, 'idleness', 2, {'iterations': 20, 'ratio': 4.0, 'work_ms': 2.0})
    # Rank 0 computes 4x what rank 1 does, so rank 1 is the one that waits.
    check(per_rank[1]['wait_s'] > per_rank[0]['wait_s'], f'rank 1 should wait more: {per_rank}')
    # The rate it measured; given one, it measures nothing and uses that (fixed work for runs
    # that are compared).
    check(report['units_per_ms'] > 0, f'no work rate reported: {report}')
    given = report['units_per_ms'] / 2
    report, _ = run(args, 'idleness', '--iterations', '5', '--work-ms', '2',
                    '--units-per-ms', repr(given))
    check(report['units_per_ms'] == given, f'asked rate {given}, used {report["units_per_ms"]}')


@case
def outofsync_modes(args):
    for mode in ('buffered', 'send', 'isend'):
        report, _ = run(args, 'outofsync', '--iterations', '10', '--work-ms', '2', '--mode', mode,
                        '--bytes', str(1 << 20))
        check_report(report, 'outofsync', 2, {'iterations': 10, 'mode': mode, 'bytes': 1 << 20})


@case
def locality(args):
    for pairing in ('split', 'adjacent'):
        report, _ = run(args, 'locality', '--iterations', '20', '--bytes', str(1 << 20),
                        '--pairing', pairing)
        check_report(report, 'locality', 2, {'iterations': 20, 'pairing': pairing, 'heavy_pairs': 1})


@case
def bad_arguments(args):
    for bench, option in (('idleness', ['--ratio', '0.5']), ('outofsync', ['--mode', 'sideways']),
                          ('locality', ['--bytes', 'lots'])):
        _, p = run(args, bench, *option, expect_ok=False)
        check(p.returncode != 0, f'{bench} {option}: exit code 0')
        check(option[0] in p.stderr + p.stdout, f'{bench} {option}: message does not name the option:\n{p.stderr}')
    _, p = run(args, 'outofsync', ranks=1, expect_ok=False)
    check(p.returncode != 0 and 'even number of ranks' in p.stderr, f'odd ranks: {p.stderr}')


if __name__ == '__main__':
    sys.exit(CASES.main(['--bin', '--mpiexec']))
