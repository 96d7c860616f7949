#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Real MPI applications plain, under symmer-run, and on the best static mapping, side by side.

    bench_apps.py --bin <build/bin> [--apps lulesh,minife,...] [--ranks 8] [--repeat 2]

Applications the project did not write, each checked by its own verification:

  lulesh     LULESH 2.0 (vendored, MPICH, MPI + OpenMP): symmetry of its final energy field
  minife     miniFE (vendored, MPICH, MPI + OpenMP): its solution against the analytic one
  miniamr    miniAMR (vendored, MPICH): its own checksums every few steps
  nwchem     NWChem (Debian nwchem-mpich): DFT energy of a water cluster, found in every run
  lammps     LAMMPS (Debian, Open MPI; Debian's build has no OPENMP package): energy
             conserved in an NVE Lennard-Jones melt
  hpcc       HPC Challenge (Debian, Open MPI): its own verdict (Success=1); its fixed-size
             tests take 10+ s a run, so it is not among the default applications

Each runs in configurations of ranks x threads (--configs, default 8x1 and a hybrid 4x2 where
the application has threads), pinned one rank per set of cores (MPICH -bind-to user:..., Open
MPI a rankfile), in three cases:

  noisy1    symmer-noise takes --noise-share of rank 0's first core
  noisy2    the same on the first cores of rank 0 and rank ranks/2
  balanced  no noise: symmer should change nothing (the no-harm check)

and these variants, interleaved (plain symmer oracle, then oracle symmer plain, ...):

  plain     the pinned mapping
  symmer    the same under symmer-run --domain node (the job may use the node's free cores)
  oracle    the best static mapping: each noisy rank's set on free clean cores (when there are
            none, the plain mapping: nothing better exists statically)
  shim      only with --shim-variant: symmer-run --analyzer off, the shim measuring and no
            analyzer: it splits what symmer costs a balanced run between the two

stdout: one JSON line per run (app, config, case, variant, rep, time_s from the application's
own timer, wall_s, verified, moves, moved_at_s (the analyzer's clock at each completed move,
from the decision log), moved_to (each completed move's local rank and Linux CPUs, from and
to), reaction_s (first symptom to the first completed move), analyzed
(symmer's analyzer logged its configuration: the shim was loaded), steal_s (seconds the
hypervisor ran something else on the mapping's CPUs while this machine wanted them, from
/proc/stat; null where the kernel does not count it) and node_steal_s (the same, every CPU):
what a virtual node's neighbours took from the run, and what went wrong),
then one summary line per application, configuration and case: plain_s, symmer_s, oracle_s
(medians), recovered (share of the plain-to-oracle gap symmer won back, null when the gap is
under 2% of plain), symmer_over_plain (median of the per-repetition ratios: the balanced
case's is the no-harm figure), symmer_over_oracle and shim_over_plain (the same; null without
the variants), moves, moved_at_s (median of the symmer runs' first moves: it
tells a gap left because the move came late from one left because no move helped), verified
(every run of it). Progress goes to stderr. Applications whose programs are missing are
skipped with a line saying so.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def emit(obj):
    print(json.dumps(obj), flush=True)


# ---- the applications -------------------------------------------------------------------


class App:
    """How to run one application and read its own time and verification."""
    name = ''
    mpi = 'mpich'
    threaded = False  # runs OpenMP threads (a hybrid configuration makes sense)

    def __init__(self, args):
        self.args = args

    def program(self):
        return None

    def usable(self, ranks):
        """None when it can run with `ranks` ranks here, else why not."""
        p = self.program()
        if p is None or not (os.path.isfile(p) or shutil.which(p)):
            return f'{self.name}: {p or "its program"} not found'
        return None

    def argv(self, ranks, threads, workdir):
        raise NotImplementedError

    def env(self, threads):
        e = {'OMP_NUM_THREADS': str(threads)}
        if self.mpi == 'openmpi' and os.geteuid() == 0:  # containers run as root
            e.update(OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
        return e

    def parse(self, out):
        """(time_s or None, verified, detail) from the application's output."""
        raise NotImplementedError


def find(bin_dir, name, system=None):
    here = os.path.join(bin_dir, name)
    if os.path.isfile(here):
        return here
    return shutil.which(system or name)


def number(pattern, text, flags=0):
    m = re.search(pattern, text, flags)
    return float(m.group(1)) if m else None


class Lulesh(App):
    name, threaded = 'lulesh', True

    def program(self):
        return find(self.args.bin, 'lulesh2.0')

    def usable(self, ranks):
        cube = round(ranks ** (1 / 3))
        if cube ** 3 != ranks:
            return f'lulesh: {ranks} ranks is not a cube (1, 8, 27...)'
        return super().usable(ranks)

    def argv(self, ranks, threads, workdir):
        s = int(self.args.scale * 30)
        return [self.program(), '-s', str(s), '-i', str(int(self.args.scale * 100 * threads))]

    def parse(self, out):
        # "Elapsed time" is printed to two significant digits; the grind-time line repeats it
        # to eight.
        t = number(r'\(\s*([0-9.eE+-]+) overall\)', out) or \
            number(r'Elapsed time\s*=\s*([0-9.eE+-]+)', out)
        rel = number(r'MaxRelDiff\s*=\s*([0-9.eE+-]+)', out)
        energy = number(r'Final Origin Energy\s*=\s*([0-9.eE+-]+)', out)
        ok = rel is not None and rel < 1e-8 and energy is not None
        return t, ok, {'final_origin_energy': energy, 'max_rel_diff': rel}


class MiniFE(App):
    name, threaded = 'minife', True

    def program(self):
        return find(self.args.bin, 'miniFE.x')

    def argv(self, ranks, threads, workdir):
        n = int(self.args.scale * 100 * round((ranks * threads / 8) ** (1 / 3), 3))
        return [self.program(), f'nx={n}', f'ny={n}', f'nz={n}', 'verify_solution=1']

    def parse(self, out):
        ok = 'solution matches analytic solution' in out
        t = None
        m = re.search(r'Total Program Time:\s*([0-9.eE+-]+)', out)
        if m:
            t = float(m.group(1))
        return t, ok, {}

    def time_from_files(self, workdir):
        for f in os.listdir(workdir):
            if f.endswith('.yaml'):
                with open(os.path.join(workdir, f)) as y:
                    v = number(r'Total Program Time:\s*([0-9.eE+-]+)', y.read())
                    if v is not None:
                        return v
        return None


class MiniAMR(App):
    name = 'miniamr'

    def program(self):
        return find(self.args.bin, 'miniAMR.x')

    def argv(self, ranks, threads, workdir):
        # Ranks in a px x py x pz grid of the mesh.
        px, py, pz = grid3(ranks)
        steps = max(2, int(self.args.scale * 40))
        refine = max(1, min(4, int(self.args.scale * 16)))  # levels: 4 from scale 0.25
        blocks = max(200, int(self.args.scale * 4000))  # allocated up front, per rank
        return [self.program(), '--npx', str(px), '--npy', str(py), '--npz', str(pz),
                '--nx', '16', '--ny', '16', '--nz', '16', '--num_tsteps', str(steps),
                '--num_refine', str(refine), '--max_blocks', str(blocks), '--init_x', '1', '--init_y', '1',
                '--init_z', '1', '--num_objects', '2', '--object', '2', '0', '-1.10', '-1.10',
                '-1.10', '0.030', '0.030', '0.030', '1.5', '1.5', '1.5', '0.0', '0.0', '0.0',
                '--object', '2', '0', '0.5', '0.5', '1.76', '0.0', '0.0', '-0.025', '0.75',
                '0.75', '0.75', '0.0', '0.0', '0.0', '--checksum_freq', '4', '--stages_per_ts',
                '16']

    def parse(self, out):
        # "Summary: ranks 2 ts 10 time 16.1 calc 0.79 ..." (its total time, seconds)
        t = number(r'^Summary:.*?\btime\s+([0-9.eE+-]+)', out, re.M)
        ok = 'difference too large' not in out and ('Summary' in out or t is not None)
        return t, ok, {}


class NWChem(App):
    name = 'nwchem'

    def program(self):
        return find(self.args.bin, 'nwchem', 'nwchem.mpich') or shutil.which('nwchem')

    def argv(self, ranks, threads, workdir):
        # A water cluster, direct DFT (B3LYP): compute-bound, global-array traffic.
        n = max(2, int(round(self.args.scale * 6)))
        atoms = []
        for i in range(n):
            x = 3.0 * i
            atoms += [f'  O {x:.3f} 0.000 0.000', f'  H {x + 0.757:.3f} 0.586 0.000',
                      f'  H {x - 0.757:.3f} 0.586 0.000']
        nw = os.path.join(workdir, 'water.nw')
        with open(nw, 'w') as f:
            f.write('start water\nscratch_dir ' + workdir + '\npermanent_dir ' + workdir +
                    '\ngeometry units angstrom noautoz nocenter\n' + '\n'.join(atoms) +
                    '\nend\nbasis\n  * library cc-pvdz\nend\ndft\n  xc b3lyp\n  direct\nend\n'
                    'task dft energy\n')
        return [self.program(), nw]

    def env(self, threads):
        e = super().env(threads)
        # Debian's build finds its basis library here unless told otherwise.
        for d in (os.path.join(os.path.dirname(self.args.bin), 'share', 'nwchem', 'libraries'),
                  '/usr/share/nwchem/libraries'):
            if os.path.isdir(d):
                e['NWCHEM_BASIS_LIBRARY'] = d + '/'
                break
        return e

    def parse(self, out):
        energy = number(r'Total DFT energy =\s*([0-9.eE+-]+)', out)
        t = number(r'Total times\s+cpu:\s*[0-9.]+s\s+wall:\s*([0-9.]+)s', out)
        return t, energy is not None, {'dft_energy': energy}


class Lammps(App):
    name, mpi = 'lammps', 'openmpi'

    def program(self):
        return find(self.args.bin, 'lmp') or shutil.which('lmp')

    def argv(self, ranks, threads, workdir):
        cells = int(round(self.args.scale * 24 * (ranks * threads / 8) ** (1 / 3)))
        steps = int(self.args.scale * 400)
        inp = os.path.join(workdir, 'in.lj')
        with open(inp, 'w') as f:
            f.write(f'units lj\natom_style atomic\nlattice fcc 0.8442\n'
                    f'region box block 0 {cells} 0 {cells} 0 {cells}\ncreate_box 1 box\n'
                    f'create_atoms 1 box\nmass 1 1.0\nvelocity all create 1.44 87287 loop geom\n'
                    f'pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\n'
                    f'neigh_modify delay 0 every 20 check no\nfix 1 all nve\n'
                    f'thermo_style custom step temp pe ke etotal\nthermo {steps}\nrun {steps}\n')
        return [self.program(), '-in', inp, '-log', os.path.join(workdir, 'log.lammps')]

    def parse(self, out):
        t = number(r'Loop time of\s*([0-9.eE+-]+)', out)
        rows = re.findall(r'^\s*(\d+)\s+[-0-9.eE+]+\s+[-0-9.eE+]+\s+[-0-9.eE+]+\s+([-0-9.eE+]+)\s*$',
                          out, re.M)
        ok = False
        detail = {}
        if len(rows) >= 2:
            e0, e1 = float(rows[0][1]), float(rows[-1][1])
            drift = abs(e1 - e0) / max(abs(e0), 1e-12)
            ok = drift < 1e-2  # NVE: total energy conserved
            detail = {'etotal_drift': drift}
        return t, ok, detail


class Hpcc(App):
    name, mpi = 'hpcc', 'openmpi'

    def program(self):
        return find(self.args.bin, 'hpcc') or shutil.which('hpcc')

    def argv(self, ranks, threads, workdir):
        p, q = grid2(ranks)
        n = int(self.args.scale * 5000 * (ranks / 8) ** 0.5)
        with open(os.path.join(workdir, 'hpccinf.txt'), 'w') as f:
            f.write('HPLinpack benchmark input file\nsymmer\nHPL.out\n6\n1\n'
                    f'{n}\n1\n128\n0\n1\n{p}\n{q}\n16.0\n1\n2\n1\n4\n1\n2\n1\n1\n1\n2\n1\n1\n'
                    '0\n0\n1\n8\n##### This line (no. 32) is ignored\n0\n0\n0\n0\n0\n1\n8\n')
        return [self.program()]

    def parse(self, out, workdir=None):
        return None, False, {}

    def parse_files(self, workdir):
        path = os.path.join(workdir, 'hpccoutf.txt')
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return None, False, {'error': 'no hpccoutf.txt'}
        failures = re.findall(r'^(\w+)\s*=\s*.*FAILED', text, re.M)
        ok = 'End of HPC Challenge tests' in text and 'Success=1' in text and not failures
        gflops = number(r'HPL_Tflops=([0-9.eE+-]+)', text)
        return None, ok, {'hpl_tflops': gflops, 'failed': failures[:5]}


APPS = {a.name: a for a in (Lulesh, MiniFE, MiniAMR, NWChem, Lammps, Hpcc)}


def grid2(n):
    p = int(n ** 0.5)
    while n % p:
        p -= 1
    return p, n // p


def grid3(n):
    best = (n, 1, 1)
    for x in range(1, n + 1):
        for y in range(1, n // x + 1):
            if n % (x * y) == 0:
                z = n // (x * y)
                if max(x, y, z) < max(best):
                    best = (x, y, z)
    return best


# ---- the machine ------------------------------------------------------------------------


def steal_ticks(stat='/proc/stat'):
    """Per Linux CPU, the clock ticks the hypervisor gave another guest while this one wanted
    the CPU (the steal column of /proc/stat); {} where the kernel does not count steal."""
    ticks = {}
    try:
        with open(stat) as f:
            for line in f:
                parts = line.split()
                if len(parts) > 8 and parts[0].startswith('cpu') and parts[0][3:].isdigit():
                    ticks[int(parts[0][3:])] = int(parts[8])
    except OSError:
        return {}
    return ticks


def steal_seconds(before, after, cpus=None):
    """Seconds stolen between two steal_ticks() readings on `cpus` (every CPU when None);
    None where there are no readings."""
    if not before or not after:
        return None
    hz = os.sysconf('SC_CLK_TCK')
    keys = [c for c in (after if cpus is None else cpus) if c in before and c in after]
    return round(sum(after[c] - before[c] for c in keys) / hz, 3)


def physical_cpus():
    """One Linux CPU per physical core this process may use (the first hardware thread)."""
    allowed = sorted(os.sched_getaffinity(0))
    seen, out = set(), []
    for c in allowed:
        try:
            with open(f'/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list') as f:
                key = f.read().strip()
        except OSError:
            key = str(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


class Runner:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='symmer-apps-')

    def base_env(self):
        e = {k: v for k, v in os.environ.items() if not k.startswith('SYMMER_')}
        e.pop('LD_PRELOAD', None)
        return e

    def noise(self, cpus):
        if not cpus:
            return None
        p = subprocess.Popen([os.path.join(self.args.bin, 'symmer-noise'), '--cpus',
                              ','.join(map(str, cpus)), '--share', str(self.args.noise_share)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.base_env())
        time.sleep(0.3)
        if p.poll() is not None:
            raise SystemExit(f'bench: symmer-noise failed: {p.stderr.read()}')
        return p

    @staticmethod
    def stop(p):
        if p is None:
            return
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=30)

    def launch(self, app, sets, workdir):
        """The launcher's argv binding rank i to the CPUs of sets[i]."""
        n = str(len(sets))
        if app.mpi == 'openmpi':
            rankfile = os.path.join(workdir, 'rankfile')
            with open(rankfile, 'w') as f:
                for i, s in enumerate(sets):
                    f.write(f'rank {i}=localhost slot={",".join(map(str, s))}\n')
            return [self.args.ompi_mpiexec, '-n', n, '--rankfile', rankfile,
                    '--mca', 'rmaps_rank_file_physical', '1', '--oversubscribe']
        return [self.args.mpiexec, '-n', n, '-bind-to',
                'user:' + ','.join('+'.join(map(str, s)) for s in sets)]

    def run(self, app, config, case, variant, rep, sets, noisy):
        ranks, threads = config
        workdir = tempfile.mkdtemp(dir=self.tmp)
        argv = self.launch(app, sets, workdir) + app.argv(ranks, threads, workdir)
        decisions = os.path.join(workdir, 'decisions.jsonl')
        if variant == 'symmer':
            argv = [os.path.join(self.args.bin, 'symmer-run'), '--domain', 'node',
                    '--decision-log', decisions] + argv
        elif variant == 'shim':
            argv = [os.path.join(self.args.bin, 'symmer-run'), '--analyzer', 'off'] + argv
        env = self.base_env()
        env.update(app.env(threads))
        noise = self.noise(noisy)
        stolen = steal_ticks()
        start = time.monotonic()
        try:
            p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=workdir,
                               timeout=self.args.timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = -1, e.stdout or '', f'timed out after {self.args.timeout} s'
            out = out if isinstance(out, str) else out.decode(errors='replace')
        finally:
            self.stop(noise)
        wall = time.monotonic() - start
        now = steal_ticks()
        if isinstance(app, Hpcc):
            t, ok, detail = app.parse_files(workdir)
        else:
            t, ok, detail = app.parse(out)
            if t is None and isinstance(app, MiniFE):
                t = app.time_from_files(workdir)
        moves, metrics, analyzed, moved_at, moved_to, reaction = 0, [], False, [], [], None
        if variant == 'symmer' and os.path.exists(decisions):
            plans = {}
            with open(decisions) as f:
                for line in f:
                    try:
                        e = json.loads(line)
                    except ValueError:
                        continue
                    analyzed = analyzed or e.get('event') == 'config'
                    if e.get('event') == 'plan':
                        plans[e.get('plan')] = e.get('metrics', [])
                    if e.get('event') == 'actuation' and e.get('completed') and \
                            not e.get('rollback'):
                        moves += len(e.get('moves_in_effect', []))
                        metrics += [m for m in plans.get(e.get('plan'), []) if m not in metrics]
                        if e.get('moves_in_effect'):
                            moved_at.append(round(e.get('t_s', 0.0), 3))
                        moved_to += [f"r{m.get('rank')}: {m.get('from_cpus')} -> "
                                     f"{m.get('to_cpus')}" for m in e.get('moves_in_effect', [])]
                        if reaction is None and e.get('reaction_s') is not None:
                            reaction = round(e['reaction_s'], 3)
        record = {'app': app.name, 'config': f'{ranks}x{threads}', 'case': case,
                  'variant': variant, 'rep': rep, 'time_s': t, 'wall_s': round(wall, 4),
                  'verified': bool(ok and rc == 0), 'moves': moves, 'move_metrics': metrics,
                  'moved_at_s': moved_at, 'moved_to': moved_to, 'reaction_s': reaction,
                  'analyzed': analyzed,
                  'steal_s': steal_seconds(stolen, now, {c for cpus in sets for c in cpus}),
                  'node_steal_s': steal_seconds(stolen, now),
                  'mapping': [','.join(map(str, s)) for s in sets], 'noise_cpus': noisy,
                  'detail': detail}
        if rc != 0:
            record['error'] = f'exit {rc}: ' + (err or out)[-600:]
        if variant == 'symmer' and self.args.keep_logs and os.path.exists(decisions):
            os.makedirs(self.args.keep_logs, exist_ok=True)
            shutil.copy(decisions, os.path.join(
                self.args.keep_logs, f'{app.name}-{ranks}x{threads}-{case}-{rep}.jsonl'))
        shutil.rmtree(workdir, ignore_errors=True)
        return record


def plan(config, cpus, case):
    """(start sets, noisy CPUs, oracle sets or None) for one configuration and case."""
    ranks, threads = config
    sets = [cpus[i * threads:(i + 1) * threads] for i in range(ranks)]
    spare = cpus[ranks * threads:]
    noisy_ranks = {'noisy1': [0], 'noisy2': [0, ranks // 2] if ranks > 1 else [0],
                   'balanced': []}[case]
    noisy = [sets[r][0] for r in noisy_ranks]
    oracle = None
    if noisy_ranks and len(spare) >= threads * len(noisy_ranks):
        oracle = [list(s) for s in sets]
        for k, r in enumerate(noisy_ranks):
            oracle[r] = spare[k * threads:(k + 1) * threads]
    return sets, noisy, oracle


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def median_ratio(times, a, b):
    """Median of the per-repetition ratios of variant a's times to b's (None without either)."""
    r = [x / y for x, y in zip(times.get(a, []), times.get(b, [])) if x and y]
    return round(median(r), 4) if r else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--bin', required=True, help='folder of symmer-run, symmer-noise and '
                        'the vendored applications')
    parser.add_argument('--apps', default='lulesh,minife,miniamr,nwchem,lammps',
                        help=f'some of {",".join(APPS)}')
    parser.add_argument('--ranks', type=int, default=8, help='ranks of the one-thread runs')
    parser.add_argument('--configs', default=None,
                        help='RANKSxTHREADS list, e.g. 8x1,4x2 (default: RANKSx1, and '
                        '(RANKS/2)x2 for threaded applications)')
    parser.add_argument('--cases', default='noisy1,noisy2,balanced')
    parser.add_argument('--repeat', type=int, default=2, help='runs of each variant')
    parser.add_argument('--scale', type=float, default=1.0,
                        help='problem size factor (1: about 2-4 s per run on 16 cores, 8 ranks)')
    parser.add_argument('--noise-share', type=float, default=0.5)
    parser.add_argument('--shim-variant', action='store_true',
                        help='also run each case under symmer-run --analyzer off (variant shim)')
    parser.add_argument('--mpiexec', default=os.environ.get('SYMMER_MPIEXEC', 'mpiexec.mpich'))
    parser.add_argument('--ompi-mpiexec',
                        default=os.environ.get('SYMMER_OMPI_MPIEXEC', 'mpiexec.openmpi'))
    parser.add_argument('--timeout', type=float, default=300)
    parser.add_argument('--keep-logs', metavar='DIR',
                        help="copy each symmer run's decision log into DIR")
    args = parser.parse_args()

    cpus = physical_cpus()
    runner = Runner(args)
    unknown = [a for a in args.apps.split(',') if a not in APPS]
    if unknown:
        raise SystemExit(f'bench: unknown application(s) {unknown}; known: {sorted(APPS)}')
    for name in args.apps.split(','):
        app = APPS[name](args)
        configs = [tuple(map(int, c.split('x'))) for c in args.configs.split(',')] \
            if args.configs else [(args.ranks, 1)] + \
            ([(max(1, args.ranks // 2), 2)] if app.threaded else [])
        for config in configs:
            ranks, threads = config
            why = app.usable(ranks)
            if why is None and ranks * threads > len(cpus):
                why = f'{name}: {ranks}x{threads} needs {ranks * threads} cores, {len(cpus)} here'
            if why is None and app.mpi == 'openmpi' and not shutil.which(args.ompi_mpiexec):
                why = f'{name}: {args.ompi_mpiexec} not found'
            if why:
                log(f'skipped: {why}')
                emit({'app': name, 'config': f'{ranks}x{threads}', 'skipped': why})
                continue
            for case in args.cases.split(','):
                sets, noisy, oracle = plan(config, cpus, case)
                variants = [('plain', sets), ('symmer', sets)] + \
                    ([('shim', sets)] if args.shim_variant else [])
                if oracle is not None:
                    variants.append(('oracle', oracle))
                runs = {v: [] for v, _ in variants}
                for rep in range(args.repeat):
                    for variant, mapping in (variants if rep % 2 == 0 else variants[::-1]):
                        r = runner.run(app, config, case, variant, rep, mapping, noisy)
                        emit(r)
                        runs[variant].append(r)
                        moved = f', {r["moves"]} move(s)' if variant == 'symmer' else ''
                        if r['moved_at_s']:
                            moved += ' at ' + ', '.join(map(str, r['moved_at_s'])) + ' s'
                        log(f'  {name} {ranks}x{threads} {case:8s} {variant:6s} rep {rep + 1}: '
                            f'{r["time_s"]} s{moved}{"" if r["verified"] else ", NOT VERIFIED"}')
                times = {v: [x['time_s'] if x['time_s'] is not None else x['wall_s']
                             for x in rs] for v, rs in runs.items()}
                plain, symmer = median(times['plain']), median(times['symmer'])
                oracle_s = median(times['oracle']) if 'oracle' in times else plain
                gap = plain - oracle_s if plain and oracle_s else 0
                first_moves = [x['moved_at_s'][0] for x in runs['symmer'] if x['moved_at_s']]
                emit({'summary': True, 'app': name, 'config': f'{ranks}x{threads}', 'case': case,
                      'plain_s': plain, 'symmer_s': symmer, 'oracle_s': oracle_s,
                      'recovered': round((plain - symmer) / gap, 4)
                      if plain and symmer and gap > 0.02 * plain else None,
                      'symmer_over_plain': median_ratio(times, 'symmer', 'plain'),
                      'symmer_over_oracle': median_ratio(times, 'symmer', 'oracle'),
                      'shim_over_plain': median_ratio(times, 'shim', 'plain'),
                      'moves': median([x['moves'] for x in runs['symmer']]),
                      'moved_at_s': median(first_moves) if first_moves else None,
                      'verified': all(x['verified'] for rs in runs.values() for x in rs),
                      'repeat': args.repeat})
    shutil.rmtree(runner.tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
