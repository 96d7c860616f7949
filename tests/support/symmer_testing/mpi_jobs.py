# SPDX-License-Identifier: BSD-3-Clause
"""MPI jobs under test: each test gets a private folder for its node segments, and jobs run
with an environment cleaned of the caller's symmer settings, so that nothing installed or
exported on the machine changes what a test sees.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from .cases import Failure


class JobFolder:
    """A temporary folder with `shm/` for the jobs' node segments (SYMMER_SHM_DIR)."""

    def __init__(self, prefix):
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.shm = os.path.join(self.tmp, 'shm')
        os.mkdir(self.shm)

    def env(self, preload=None, **extra):
        """This process's environment without SYMMER* variables and LD_PRELOAD, with the
        private segment folder, `preload` as LD_PRELOAD when given, and `extra` (a None value
        removes the variable)."""
        e = {k: v for k, v in os.environ.items() if not k.startswith('SYMMER')}
        e.pop('LD_PRELOAD', None)
        e['SYMMER_SHM_DIR'] = self.shm
        if preload:
            e['LD_PRELOAD'] = preload
        for k, v in extra.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = str(v)
        return e

    def path(self, name):
        return os.path.join(self.tmp, name)

    def remove(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def run(cmd, env, timeout=120):
    """Runs `cmd` to its end in its own session; returns (exit code, stdout, stderr). A run
    past `timeout` seconds is a hang: it is killed with everything it started, and fails."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise Failure(f'{" ".join(cmd)} hung (killed after {timeout} s)\nstdout: {out}\nstderr: {err}')
    return p.returncode, out, err


def last_json_line(text):
    """The last line of `text` that is a JSON object (benchmarks and test jobs print their
    result last); None when there is none."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith('{'):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def json_lines(path):
    """The JSON objects of a JSON-lines file (a decision log); [] when it does not exist."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def cpus_allowed(pid, tid=None):
    """The CPU list a process (or its thread `tid`) may run on, as /proc shows it ('0-3,8');
    None once it is gone."""
    where = f'/proc/{pid}' if tid is None else f'/proc/{pid}/task/{tid}'
    try:
        with open(f'{where}/status') as f:
            for line in f:
                if line.startswith('Cpus_allowed_list:'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return None


def last_cpu(pid):
    """The CPU a process's main thread last ran on (/proc/PID/stat's processor field); None
    once it is gone."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            # The command name may hold spaces: fields count from its closing parenthesis.
            return int(f.read().rsplit(')', 1)[1].split()[36])
    except (OSError, IndexError, ValueError):
        return None


def cpu_list(text):
    """'0-3,8' -> {0, 1, 2, 3, 8}."""
    cpus = set()
    for part in filter(None, text.split(',')):
        lo, _, hi = part.partition('-')
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def descendants(pid):
    """Processes started by `pid`, directly or not (e.g. the ranks under mpiexec)."""
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def resident_mib(pid):
    """Resident memory (VmRSS) of process `pid`, in MiB."""
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return 0.0


def threads_named(pid, name):
    """Thread ids of `pid` whose name (comm) is `name`."""
    out = []
    try:
        tids = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f'/proc/{pid}/task/{tid}/comm') as f:
                if f.read().strip() == name:
                    out.append(int(tid))
        except OSError:
            pass
    return out


class Noise:
    """symmer-noise taking `share` of the cores of Linux CPUs `cores` while the `with` block
    runs."""

    def __init__(self, bin_dir, cores, share=0.5, env=None):
        self.cmd = [os.path.join(bin_dir, 'symmer-noise'), '--cpus',
                    ','.join(map(str, cores)), '--share', str(share)]
        self.env = env

    def __enter__(self):
        self.p = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=self.env)
        time.sleep(0.3)  # running before the job starts: the symptom is there from its start
        if self.p.poll() is not None:  # stderr is read only then: it stays open while it runs
            raise Failure(f'symmer-noise did not start: {self.p.stderr.read()}')
        return self

    def __exit__(self, *exc):
        self.p.send_signal(signal.SIGTERM)
        self.out, self.err = self.p.communicate(timeout=30)
        return False
