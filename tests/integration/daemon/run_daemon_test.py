#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""symmerd end to end: a real daemon on a temporary socket, real MPI jobs (ctest label daemon).

    run_daemon_test.py --build <build dir> --mpiexec <mpiexec.mpich> <case>

Jobs are 1-rank MPICH programs with the PMPI shim preloaded and their node segments in a
private directory. Two such jobs started pinned to the same CPU are the workload the daemon
must separate. Every wait is for an event the daemon reports (a job adopted, N sampling
periods passed, a decision logged), bounded by a generous deadline; no check depends on how
fast the machine is. Affinities are checked independently of the daemon, in /proc.
"""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))
from symmer_testing.cases import Cases, Failure, Skip, check  # noqa: E402
from symmer_testing.mpi_jobs import (JobFolder, cpus_allowed, descendants, last_json_line,  # noqa: E402
                                     resident_mib)

CASES = Cases()
case = CASES.case
DEADLINE_S = 60  # upper bound for any awaited event; the events themselves take < 2 s
# The hostile user of the attack cases: an uid nothing else on the machine runs as.
ATTACKER = 64999
HERE = os.path.dirname(os.path.abspath(__file__))


def need_attacker(what):
    """Skips the case unless it can act as another, unprivileged user."""
    if os.geteuid() != 0 or shutil.which('setpriv') is None or shutil.which('prlimit') is None:
        raise Skip(f'needs root, setpriv and prlimit to {what} as an unprivileged user (uid '
                   f'{ATTACKER})')


class Env:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.symmerd = os.path.join(self.build, 'bin', 'symmerd')
        self.symmerctl = os.path.join(self.build, 'bin', 'symmerctl')
        self.job_bin = os.path.join(self.build, 'tests', 'daemon_job')
        self.attack = os.path.join(self.build, 'tests', 'segment_attack')
        self.shim = os.path.join(self.build, 'lib', 'libsymmer-pmpi.so')
        self.folder = JobFolder('symmerd-test-')
        self.tmp, self.shm = self.folder.tmp, self.folder.shm
        os.chmod(self.tmp, 0o755)  # a second user must reach the socket (permissions case)
        os.chmod(self.shm, 0o1777)
        self.socket = os.path.join(self.tmp, 'run', 'symmerd.sock')
        self.daemons = []
        self.jobs = []

    def clean_env(self, **extra):
        return self.folder.env(**extra)

    def config(self, name='symmerd.toml', daemon='', analyzer=''):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(f'[daemon]\nsocket = "{self.socket}"\nsegment_dir = "{self.shm}"\n'
                    f'log_level = "debug"\n{daemon}\n'
                    f'[analyzer]\nwindow_ms = 100\nhold_off_s = 1.0\n{analyzer}\n')
        return path

    def start_daemon(self, config=None, wait=True, nofile=None):
        """Starts symmerd on `config`; `nofile`: its descriptor limit (soft and hard)."""
        config = config or self.config()
        log = open(os.path.join(self.tmp, f'symmerd-{len(self.daemons)}.log'), 'w+')
        limit = ['prlimit', f'--nofile={nofile}:{nofile}'] if nofile else []
        p = subprocess.Popen([*limit, self.symmerd, '--config', config], stdout=log,
                             stderr=subprocess.STDOUT, env=self.clean_env())
        p.log = log
        self.daemons.append(p)
        if wait:
            self.wait(lambda: self.ask_quiet({'request': 'status'}) is not None or p.poll() is not None,
                      'symmerd to answer')
            check(p.poll() is None, f'symmerd exited:\n{self.daemon_log(p)}')
        return p

    def daemon_log(self, p):
        p.log.flush()
        p.log.seek(0)
        return p.log.read()

    def ctl(self, *argv, user=None, check_rc=True):
        cmd = [self.symmerctl, *argv, '--socket', self.socket]
        if user is not None:
            cmd = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups', *cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=self.clean_env())
        if check_rc:
            check(p.returncode == 0, f'{" ".join(cmd)} -> {p.returncode}\n{p.stdout}\n{p.stderr}')
        return p

    def as_attacker(self, *argv, nofile=None, **popen):
        """Starts `argv` as the unprivileged ATTACKER (need_attacker first)."""
        cmd = ['setpriv', f'--reuid={ATTACKER}', f'--regid={ATTACKER}', '--clear-groups', *argv]
        if nofile:
            cmd = ['prlimit', f'--nofile={nofile}:{nofile}', *cmd]
        return subprocess.Popen(cmd, env=self.clean_env(), **popen)

    def attacker_dir(self, name, mode=0o755):
        """A directory of the attacker's inside the test folder."""
        path = os.path.join(self.tmp, name)
        os.mkdir(path)
        os.chown(path, ATTACKER, ATTACKER)
        os.chmod(path, mode)
        return path

    def refused_to_start(self, config, needle, what):
        """symmerd on `config` exits 2 naming `needle`."""
        p = subprocess.run([self.symmerd, '--config', config], capture_output=True, text=True,
                           timeout=30, env=self.clean_env())
        check(p.returncode == 2 and needle in p.stderr and 'refusing to start' in p.stderr,
              f'{what}: symmerd exit {p.returncode}:\n{p.stderr}')

    def ask(self, request):
        r = self.ask_quiet(request)
        check(r is not None, f'no reply to {request}')
        return r

    def ask_quiet(self, request):
        import socket as s
        try:
            c = s.socket(s.AF_UNIX, s.SOCK_STREAM)
            c.settimeout(10)
            c.connect(self.socket)
            c.sendall((json.dumps(request) + '\n').encode())
            data = b''
            while not data.endswith(b'\n'):
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
            c.close()
            return json.loads(data)
        except (OSError, ValueError):
            return None

    def wait(self, predicate, what, deadline=DEADLINE_S):
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if predicate():
                return
            time.sleep(0.05)
        logs = '\n'.join(self.daemon_log(d)[-4000:] for d in self.daemons)
        jobs = '\n'.join(self.job_output(j)[-2000:] for j in self.jobs)
        raise Failure(f'timed out waiting for {what}\n--- daemon log ---\n{logs}\n'
                      f'--- job output ---\n{jobs}')

    def wait_periods(self, n):
        start = self.ask({'request': 'status'})['periods']
        self.wait(lambda: self.ask({'request': 'status'})['periods'] >= start + n, f'{n} periods')

    def start_job(self, cpu=None, user=None, **env):
        """A 1-rank job (as `user` when given: an uid), stopped by stop_job."""
        stop = os.path.join(self.tmp, f'stop-{len(self.jobs)}')
        bind = ['-bind-to', f'user:{cpu}'] if cpu is not None else []
        cmd = [self.args.mpiexec, '-n', '1', *bind, self.job_bin, '--stop-file', stop, '--seconds', '150']
        if user is not None:
            cmd = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups', *cmd]
            env.setdefault('HOME', self.tmp)
        out = open(os.path.join(self.tmp, f'job-{len(self.jobs)}.out'), 'w+')
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                             env=self.clean_env(LD_PRELOAD=self.shim, **env))
        p.out, p.stop = out, stop
        self.jobs.append(p)
        return p

    def job_output(self, p):
        p.out.flush()
        p.out.seek(0)
        return p.out.read()

    def stop_job(self, p):
        open(p.stop, 'w').close()
        p.wait(timeout=60)
        out = self.job_output(p)
        check(p.returncode == 0, f'job failed ({p.returncode}):\n{out}')
        result = last_json_line(out)
        check(result is not None, f'job printed no result:\n{out}')
        return result

    def managed_jobs(self):
        return [j for j in self.ask({'request': 'jobs'})['jobs'] if j['state'] == 'managed']

    def rank_pids(self):
        return [r['pid'] for r in self.ask({'request': 'ranks'})['ranks']]

    def wait_jobs(self, n):
        self.wait(lambda: len(self.managed_jobs()) == n and len(self.rank_pids()) == n,
                  f'{n} managed job(s) with their ranks')
        return self.managed_jobs()

    def close(self):
        for p in self.jobs:
            if p.poll() is None:
                open(p.stop, 'w').close()
        for p in self.jobs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        for d in self.daemons:
            if d.poll() is None:
                d.terminate()
                try:
                    d.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    d.kill()
        self.folder.remove()


def affinities(env, pids):
    return [cpus_allowed(p) for p in pids]


def decisions(env, **filters):
    out = []
    for e in env.ask({'request': 'decisions', 'limit': 1000})['decisions']:
        if all(e.get(k) == v for k, v in filters.items()):
            out.append(e)
    return out


@case
def report_shows_the_daemons_decisions(env):
    # A job under symmer-run --report while symmerd analyses it: the embedded analyzer stands
    # by, so the report must be the daemon's decisions for the job, down to the summary the
    # daemon logs once the job is gone (its totals, and how long it watched the job).
    env.start_daemon()
    stop = os.path.join(env.tmp, 'stop-report')
    cmd = [os.path.join(env.build, 'bin', 'symmer-run'), '--report', env.args.mpiexec, '-n', '1',
           '-bind-to', 'user:0', env.job_bin, '--stop-file', stop, '--seconds', '150']
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env.clean_env(SYMMERD_SOCKET=env.socket))
    try:
        env.wait_jobs(1)
        env.wait_periods(3)
    finally:
        open(stop, 'w').close()
    out, err = p.communicate(timeout=60)
    check(p.returncode == 0, f'job failed ({p.returncode}):\n{out}\n{err}')
    check('symmerd analysed this job' in err and 'symmer report' in err,
          f'the report is not the daemon\'s:\n{err}')
    summaries = decisions(env, event='summary')
    check(len(summaries) == 1, f'the daemon logged {len(summaries)} summaries for the job')
    # The report's span ends at its latest event: the summary's time, as printed (6 digits).
    observed = re.search(r'symmer report \(([0-9.e+-]+) s observed', err)
    end = summaries[0]['t_s']
    check(observed and abs(float(observed.group(1)) - end) <= 1e-5 * end,
          f"the report ends before the daemon's summary ({end} s):\n{err}")


@case
def discovery(env):
    env.start_daemon()
    status = env.ask({'request': 'status'})
    check(status['ok'] and status['jobs'] == 0, f'fresh daemon: {status}')
    job = env.start_job(cpu=0)
    jobs = env.wait_jobs(1)
    check(jobs[0]['app'] == 'daemon_job' and jobs[0]['local_ranks'] == 1, f'jobs: {jobs}')
    check(jobs[0]['daemon_pid'] == env.daemons[0].pid, f'claim: {jobs[0]}')
    check(env.ask({'request': 'status'})['managed'] == 1, 'status does not count the job')
    # The human views and --json.
    for argv in (['status'], ['jobs'], ['cores'], ['decisions'], ['ranks', '--daemon']):
        p = env.ctl(*argv)
        check(p.stdout.strip(), f'symmerctl {argv} printed nothing')
    check('daemon_job' in env.ctl('jobs').stdout, 'jobs table lacks the app')
    check(json.loads(env.ctl('status', '--json').stdout)['jobs'] == 1, 'status --json')
    watch = env.ctl('watch', '--count', '2', '--interval', '0.1').stdout
    check('CORE' in watch and 'daemon_job' in watch or 'RANK' in watch, f'watch: {watch}')
    cores = env.ask({'request': 'cores'})['cores']
    check(any(c['ranks'] for c in cores if 0 in c['cpus']), f'core of CPU 0 shows no rank: {cores}')
    # The job's embedded analyzer stood by while the daemon held the job.
    result = env.stop_job(job)
    check('stands by' in env.job_output(job), f'embedded analyzer did not stand by:\n{env.job_output(job)}')
    check(result['cpu_start'] == 0, f'job was not pinned: {result}')
    env.wait(lambda: env.ask({'request': 'jobs'})['jobs'] == [], 'the ended job to be dropped')
    check(not os.listdir(env.shm), f'segments left: {os.listdir(env.shm)}')
    # A dead job's segment left behind is cleaned up: SIGKILL a job so nothing removes it.
    job = env.start_job()
    env.wait_jobs(1)
    pid = env.rank_pids()[0]
    os.kill(pid, signal.SIGKILL)
    job.wait(timeout=60)
    env.wait(lambda: env.ask({'request': 'jobs'})['jobs'] == [] and not os.listdir(env.shm),
             'the killed job to be dropped and its segment removed')
    # register: a job the daemon already manages, and a name that is not a segment.
    job = env.start_job()
    jobs = env.wait_jobs(1)
    r = env.ask({'request': 'register', 'segment': jobs[0]['job']})
    check(r['ok'] and r['job']['job'] == jobs[0]['job'], f'register: {r}')
    r = env.ask({'request': 'register', 'segment': '/etc/passwd'})
    check(not r['ok'] and 'not in' in r['error'], f'register outside: {r}')
    env.stop_job(job)


def two_pinned_jobs(env):
    a = env.start_job(cpu=0)
    b = env.start_job(cpu=0)
    env.wait_jobs(2)
    pids = env.rank_pids()
    return a, b, pids


@case
def separate(env):
    env.start_daemon()
    a, b, pids = two_pinned_jobs(env)
    env.wait(lambda: len(set(affinities(env, pids))) == 2, 'the daemon to separate the two jobs')
    allowed = affinities(env, pids)
    check(sorted(allowed) == ['0', '1'], f'affinities after the move: {allowed}')
    # The rank re-binds at its next MPI call; the daemon records the actuation completed only
    # when it reads the acknowledgement in a later period, so wait for that record.
    def completed():
        acts = decisions(env, event='actuation', metric='coschedule')
        return acts and acts[-1]['completed']
    env.wait(completed, 'the daemon to record the coschedule actuation completed')
    plan = decisions(env, event='decision', metric='coschedule')
    check(plan and plan[-1]['evidence'][0]['reason'] == 'shared-core', f'evidence: {plan}')
    evidence = plan[-1]['evidence'][0]
    check(len(evidence['sharing']) == 2 and evidence['share_of_core'] < evidence['target_capability'],
          f'evidence: {evidence}')
    # The move holds: later periods make no further move.
    env.wait_periods(10)
    check(affinities(env, pids) == allowed, 'the ranks moved again')
    # The jobs saw it themselves: one of them ended on CPU 1.
    results = [env.stop_job(a), env.stop_job(b)]
    check(sorted(r['cpu_end'] for r in results) == [0, 1], f'jobs ran on {results}')
    # Each job's cores view: one rank per core.
    # (the jobs have ended; the daemon's decisions record the evaluation after the move)


@case
def reserve(env):
    # A GPU-driving process (TSAR registers its driver cores this way) reserves CPU 1: the
    # rank pinned there is moved off it, and no rank goes there while the process lives.
    env.start_daemon()
    driver = subprocess.Popen(['sleep', '300'])
    try:
        env.ctl('reserve', '--cpus', '1', '--pid', str(driver.pid))
        cores = env.ask({'request': 'cores'})['cores']
        reserved = [c for c in cores if 1 in c['cpus']][0]['reserved']
        check(reserved and reserved[0]['pid'] == driver.pid, f'reservation: {cores}')
        job = env.start_job(cpu=1)
        env.wait_jobs(1)
        pid = env.rank_pids()[0]
        env.wait(lambda: cpus_allowed(pid) == '0', 'the rank to leave the reserved core')
        moved = decisions(env, event='decision', metric='coschedule')
        check(moved and moved[-1]['evidence'][0]['reason'] == 'reserved-core', f'evidence: {moved}')
        # The reservation ends with its process.
        driver.kill()
        driver.wait()
        env.wait(lambda: env.ask({'request': 'status'})['reservations'] == 0,
                 'the reservation to end with its process')
        env.stop_job(job)
    finally:
        if driver.poll() is None:
            driver.kill()


@case
def pause_advice(env):
    env.start_daemon()
    env.ctl('pause')
    check(env.ask({'request': 'status'})['paused'], 'status not paused')
    a, b, pids = two_pinned_jobs(env)
    env.wait_periods(15)
    check(affinities(env, pids) == ['0', '0'], f'moved while paused: {affinities(env, pids)}')
    check(not decisions(env, metric='coschedule'), 'coschedule decisions while paused')
    env.ctl('advice', 'on')
    env.ctl('resume')
    env.wait(lambda: decisions(env, event='advice', metric='coschedule'), 'coschedule advice')
    env.wait_periods(10)
    check(affinities(env, pids) == ['0', '0'], f'moved in advice-only mode: {affinities(env, pids)}')
    check(not decisions(env, event='actuation'), 'actuation in advice-only mode')
    # Per-job pause wins over the daemon's: pause one job, advice off; only the other may move.
    jobs = env.managed_jobs()
    env.ctl('pause', '--job', jobs[0]['job_id'])
    env.ctl('advice', 'off')
    env.wait(lambda: len(set(affinities(env, pids))) == 2, 'the move once advice-only is off')
    # The rank moves itself when it reads the command; the daemon logs the actuation at its
    # next tick, once it has seen the move done.
    env.wait(lambda: decisions(env, event='actuation', metric='coschedule'),
             "the move's actuation decision")
    moved = decisions(env, event='actuation', metric='coschedule')
    check(moved and all(m['job'] == jobs[1]['job'] for m in moved),
          f'the paused job was moved: {moved}')
    env.stop_job(a)
    env.stop_job(b)


@case
def restart(env):
    config = env.config(daemon='start_paused = true')
    first = env.start_daemon(config)
    a, b, pids = two_pinned_jobs(env)
    keys = sorted(j['job'] for j in env.managed_jobs())
    first.send_signal(signal.SIGKILL)  # a crash: the claim stays in the segments until it lapses
    first.wait(timeout=30)
    check(os.path.exists(env.socket), 'a killed daemon leaves its socket behind')
    second = env.start_daemon(env.config('second.toml'))  # replaces the stale socket
    env.wait(lambda: sorted(j['job'] for j in env.managed_jobs()) == keys,
             're-adoption of the running jobs')
    jobs = env.managed_jobs()
    check(all(j['daemon_pid'] == second.pid for j in jobs), f'claims: {jobs}')
    # The crashed daemon's claim is taken over where it still stands; where it lapsed first
    # (a slow start), the embedded analyzers hold the jobs again and are asked for them.
    log = env.daemon_log(second)
    check(f'taking over from symmerd pid {first.pid}' in log or
          log.count('asked its embedded analyzer for it') == len(keys),
          f'no take-over logged:\n{log}')
    env.wait(lambda: len(set(affinities(env, pids))) == 2, 'the restarted daemon to separate them')
    # A clean stop hands the jobs back to their embedded analyzers at once (each looks at the
    # claim once per window: first let both see that they stand by).
    env.wait(lambda: all('stands by' in env.job_output(j) for j in (a, b)),
             'the embedded analyzers to stand by')
    second.terminate()
    second.wait(timeout=30)
    check(second.returncode == 0, f'symmerd exit {second.returncode}')
    check(not os.path.exists(env.socket), 'socket left after a clean stop')
    env.wait(lambda: all('takes over' in env.job_output(j) for j in (a, b)),
             'the embedded analyzers to take over')
    env.stop_job(a)
    env.stop_job(b)


@case
def permissions(env):
    if os.geteuid() != 0 or shutil.which('setpriv') is None:
        raise Skip('needs root and setpriv to act as a second user; the rules are covered with '
                   'injected peer credentials by the unit test DaemonRequests.*')
    nobody = 65534
    env.start_daemon()
    job = env.start_job()
    jobs = env.wait_jobs(1)
    job_id = jobs[0]['job_id']
    # Read-only requests: any local user.
    for argv in (['status'], ['jobs'], ['cores'], ['decisions'], ['ranks', '--daemon']):
        env.ctl(*argv, user=nobody)
    # Changes: refused for another user, with exit status 3 and a message.
    for argv in (['pause'], ['pause', '--job', job_id], ['resume', '--job', job_id],
                 ['advice', 'on'], ['advice', 'on', '--job', job_id],
                 ['policy', 'min_gain=0.2'], ['policy', '--job', job_id, 'min_gain=0.2'],
                 ['reload'], ['reserve', '--cpus', '0', '--pid', str(os.getpid())],
                 ['register', jobs[0]['job']]):
        p = env.ctl(*argv, user=nobody, check_rc=False)
        check(p.returncode == 3 and 'permission denied' in p.stderr,
              f'{argv} as uid {nobody}: {p.returncode} {p.stdout} {p.stderr}')
    # Nothing changed.
    status = env.ask({'request': 'status'})
    check(not status['paused'] and status['policy'] == {}, f'changed anyway: {status}')
    j = env.managed_jobs()[0]
    check(not j['paused'] and not j['advice_only'], f'job changed anyway: {j}')
    # The owner (root here) may.
    env.ctl('pause', '--job', job_id)
    check(env.managed_jobs()[0]['paused'], 'owner could not pause')
    env.ctl('policy', '--job', job_id, 'min_gain=0.2', 'planner=assignment')
    check(env.managed_jobs()[0]['analysis']['min_gain'] == 0.2, 'policy not applied')
    p = env.ctl('policy', '--job', job_id, 'min_gain=7', check_rc=False)
    check(p.returncode == 1 and 'analyzer.min_gain' in p.stderr, f'bad policy: {p.stderr}')
    p = env.ctl('policy', 'decision_log="/etc/x"', check_rc=False)
    check(p.returncode == 1 and 'decision_log' in p.stderr, f'decision_log policy: {p.stderr}')
    # An ordinary user's daemon serves that user's jobs only: it leaves root's job alone.
    user_dir = os.path.join(env.tmp, 'user')  # that user's own, as the daemon requires
    os.mkdir(user_dir)
    os.chown(user_dir, nobody, nobody)
    user_socket = os.path.join(user_dir, 'symmerd.sock')
    user_daemon = subprocess.Popen(
        ['setpriv', f'--reuid={nobody}', f'--regid={nobody}', '--clear-groups', env.symmerd,
         '--socket', user_socket, '--segment-dir', env.shm],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env.clean_env())
    env.daemons.append(user_daemon)
    user_daemon.log = open(os.devnull)
    try:
        saved, env.socket = env.socket, user_socket
        env.wait(lambda: env.ask_quiet({'request': 'status'}) is not None, 'the user daemon')
        env.wait_periods(3)
        status = env.ask({'request': 'status'})
        check(status['uid'] == nobody and status['mode'].startswith('user') and status['jobs'] == 0,
              f'user daemon: {status}')
    finally:
        env.socket = saved
    check(env.managed_jobs()[0]['daemon_pid'] == env.daemons[0].pid, 'the root daemon lost the job')
    env.stop_job(job)


BAD_CONFIGS = [
    # (what, [daemon] lines, [analyzer] lines, text the message must contain)
    ('relative socket', 'socket = "relative.sock"', '', 'daemon.socket'),
    ('socket not a string', 'socket = 5', '', 'daemon.socket'),
    ('log level', 'log_level = "loud"', '', 'daemon.log_level'),
    ('cores syntax', 'cores = "0-x"', '', 'daemon.cores'),
    ('cores off the node', 'cores = "0,4096"', '', 'daemon.cores'),
    ('cores type', 'cores = 3', '', 'daemon.cores'),
    ('segment dir missing', 'segment_dir = "/nonexistent/symmer"', '', 'daemon.segment_dir'),
    ('decision log dir missing', 'decision_log_dir = "/nonexistent/log"', '', 'daemon.decision_log_dir'),
    ('coschedule type', 'coschedule = "yes"', '', 'daemon.coschedule'),
    ('nic bytes negative', 'nic_bytes_per_s = -1', '', 'daemon.nic_bytes_per_s'),
    ('nic saving above 1', 'nic_wait_saving = 2.0', '', 'daemon.nic_wait_saving'),
    ('start_paused type', 'start_paused = 1', '', 'daemon.start_paused'),
    ('unknown daemon key', 'colour = "blue"', '', 'daemon.colour'),
    ('analyzer value', '', 'min_gain = 1.5', 'analyzer.min_gain'),
    ('analyzer period', '', 'window_ms = 1', 'analyzer.window_ms'),
    ('analyzer metric', '', 'metrics = ["idleness", "vibes"]', 'analyzer.metrics'),
    ('analyzer unknown key', '', 'speed = 3', 'analyzer.speed'),
    ('analyzer decision log', '', 'decision_log = "/tmp/x.jsonl"', 'analyzer.decision_log'),
]


@case
def bad_config(env):
    def refused(path, needle, what):
        p = subprocess.run([env.symmerd, '--config', path], capture_output=True, text=True,
                           timeout=30, env=env.clean_env())
        check(p.returncode == 2, f'{what}: symmerd exit {p.returncode}:\n{p.stderr}')
        check(needle in p.stderr and 'refusing to start' in p.stderr, f'{what}: message:\n{p.stderr}')
        check(not os.path.exists(env.socket), f'{what}: a socket was created')
        c = subprocess.run([env.symmerd, '--check-config', '--config', path], capture_output=True,
                           text=True, timeout=30, env=env.clean_env())
        check(c.returncode == 2 and needle in c.stderr, f'{what}: --check-config: {c.stderr}')

    for i, (what, daemon, analyzer, needle) in enumerate(BAD_CONFIGS):
        path = os.path.join(env.tmp, f'bad-{i}.toml')
        lines = {'socket': f'socket = "{env.socket}"', 'segment_dir': f'segment_dir = "{env.shm}"'}
        key = daemon.split('=')[0].strip()
        lines[key if key in lines else 'other'] = daemon  # replaces a default line, or adds
        with open(path, 'w') as f:
            f.write('[daemon]\n' + '\n'.join(lines.values()) + f'\n[analyzer]\n{analyzer}\n')
        refused(path, needle, what)
    # Several errors are all reported, each with its key.
    path = os.path.join(env.tmp, 'many.toml')
    with open(path, 'w') as f:
        f.write(f'[daemon]\nsocket = "{env.socket}"\nlog_level = 3\ncores = "zz"\n[analyzer]\nmin_gain = -1\n')
    refused(path, 'daemon.log_level', 'several errors')
    refused(path, 'daemon.cores', 'several errors')
    refused(path, 'analyzer.min_gain', 'several errors')
    # Whole-file problems.
    for what, text, needle in (('syntax', '[daemon\nsocket = ', 'bad.toml:1'),
                               ('unknown table', '[deamon]\nsocket = "/tmp/x"\n', 'deamon: unknown table'),
                               ('daemon not a table', 'daemon = 3\n', 'daemon must be a table')):
        path = os.path.join(env.tmp, 'bad.toml')
        with open(path, 'w') as f:
            f.write(text)
        refused(path, needle, what)
    refused(os.path.join(env.tmp, 'missing.toml'), 'cannot read the configuration file', 'missing file')
    # Only a regular file of bounded size is read: never a directory, a device, or without end.
    big = os.path.join(env.tmp, 'big.toml')
    with open(big, 'w') as f:
        f.write('#' * (2 << 20))
    for path, needle in ((env.tmp, 'is a directory'), ('/dev/null', 'not a regular file'),
                         ('/dev/zero', 'not a regular file'), (big, 'at most 1048576')):
        refused(path, needle, path)
    # The socket path is taken: by a file that is not a socket, then by a live daemon.
    os.makedirs(os.path.dirname(env.socket), exist_ok=True)
    with open(env.socket, 'w') as f:
        f.write('not a socket')
    p = subprocess.run([env.symmerd, '--config', env.config()], capture_output=True, text=True,
                       timeout=30, env=env.clean_env())
    check(p.returncode == 2 and 'not a socket' in p.stderr, f'file at the socket: {p.stderr}')
    check(open(env.socket).read() == 'not a socket', 'the file was replaced')
    os.unlink(env.socket)
    env.start_daemon()
    p = subprocess.run([env.symmerd, '--config', env.config()], capture_output=True, text=True,
                       timeout=30, env=env.clean_env())
    check(p.returncode == 2 and 'already listens' in p.stderr, f'second daemon: {p.stderr}')
    check(env.ask({'request': 'status'})['pid'] == env.daemons[0].pid, 'the first daemon lost its socket')


@case
def reload(env):
    config = env.config()
    d = env.start_daemon(config)
    check(env.ask({'request': 'status'})['period_ms'] == 100, 'initial period')
    with open(config, 'w') as f:
        f.write(f'[daemon]\nsocket = "{env.socket}"\nsegment_dir = "{env.shm}"\n'
                f'[analyzer]\nwindow_ms = 150\nmin_gain = 0.2\n')
    d.send_signal(signal.SIGHUP)
    env.wait(lambda: env.ask({'request': 'status'})['period_ms'] == 150, 'SIGHUP to apply window_ms')
    check(env.ask({'request': 'status'})['analysis']['min_gain'] == 0.2, 'min_gain not reloaded')
    # A bad file on reload: refused, the daemon keeps running with what it had.
    with open(config, 'w') as f:
        f.write(f'[daemon]\nsocket = "{env.socket}"\n[analyzer]\nwindow_ms = 0\n')
    env.ctl('reload')
    env.wait(lambda: 'reload refused' in env.daemon_log(d), 'the refused reload to be logged')
    check('analyzer.window_ms' in env.daemon_log(d), 'the bad key is not named')
    check(d.poll() is None, 'the daemon died on a bad reload')
    check(env.ask({'request': 'status'})['period_ms'] == 150, 'the bad reload changed the period')



# ---- a hostile local user (issue 15): each case fails on a daemon without the defence ----


@case
def socket_chmod_symlink(env):
    """Root must never change a file's mode through the socket path: the socket's directory
    must be root's and closed to others, or symmerd does not start."""
    need_attacker('put a symlink where the socket goes')
    secret = os.path.join(env.tmp, 'secret')
    with open(secret, 'w') as f:
        f.write('root only\n')
    os.chmod(secret, 0o600)
    run = env.attacker_dir('run')
    env.socket = os.path.join(run, 'symmerd.sock')
    os.symlink(secret, env.socket)
    os.lchown(env.socket, ATTACKER, ATTACKER)
    for attempt in range(3):
        env.refused_to_start(env.config(), f'{run} belongs to uid {ATTACKER}', f'start {attempt}')
        check(stat.S_IMODE(os.stat(secret).st_mode) == 0o600, 'the root-only file changed mode')
    shared = os.path.join(env.tmp, 'shared')
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    env.socket = os.path.join(shared, 'symmerd.sock')
    env.refused_to_start(env.config(), 'writable by others', 'a directory everyone writes in')
    # Its own directory: the socket is open to every user from its creation, and root's.
    env.socket = os.path.join(env.tmp, 'own', 'symmerd.sock')
    env.start_daemon()
    st = os.lstat(env.socket)
    check(stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o666 and st.st_uid == 0,
          f'socket {oct(st.st_mode)} uid {st.st_uid}')
    check(stat.S_IMODE(os.stat(secret).st_mode) == 0o600, 'the root-only file changed mode')


@case
def socket_squatting(env):
    """A user cannot take the daemon's socket path first, nor pass for the daemon."""
    need_attacker('listen on the socket path first')
    attacker = os.path.join(HERE, 'attacker.py')
    os.makedirs(os.path.dirname(env.socket))
    squat = env.as_attacker(sys.executable, attacker, 'fake-server', env.socket,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = squat.communicate(timeout=30)
    check(squat.returncode != 0 and 'Permission denied' in err, f'squatted: {out} {err}')
    env.start_daemon()
    # A user daemon's directory made by someone else first is refused as well.
    taken = env.attacker_dir('taken')
    user = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                           env.symmerd, '--socket', os.path.join(taken, 'symmerd.sock'),
                           '--segment-dir', env.shm], capture_output=True, text=True,
                          timeout=30, env=env.clean_env())
    check(user.returncode == 2 and f'belongs to uid {ATTACKER}' in user.stderr,
          f'user daemon in a taken directory: {user.returncode} {user.stderr}')
    # Root's client does not believe a server run by someone else.
    fake = os.path.join(env.attacker_dir('own'), 'symmerd.sock')
    server = env.as_attacker(sys.executable, attacker, 'fake-server', fake,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        check(server.stdout.readline().strip() == 'listening', 'the fake server did not start')
        p = subprocess.run([env.symmerctl, 'pause', '--socket', fake], capture_output=True,
                           text=True, timeout=30, env=env.clean_env())
        check(p.returncode != 0 and f'runs as uid {ATTACKER}, neither root nor you' in p.stderr,
              f'root believed the fake daemon: {p.returncode} {p.stdout} {p.stderr}')
    finally:
        server.kill()
        server.wait()
    check(not env.ask({'request': 'status'})['paused'], 'the real daemon got paused')


@case
def decision_log_symlink(env):
    """Root must not append to a file through a link named like a job's decision log."""
    need_attacker('plant a link named like a decision log')
    victim = os.path.join(env.tmp, 'victim')
    with open(victim, 'w') as f:
        f.write('untouched\n')
    os.chmod(victim, 0o600)
    logs = os.path.join(env.tmp, 'logs')
    os.mkdir(logs)
    os.chmod(logs, 0o1777)  # as /tmp: anyone may add a name
    job_id = 0x5ca1ab1e0ddba11
    link = os.path.join(logs, f'symmer-0-{job_id:016x}-0.jsonl')
    os.symlink(victim, link)
    os.lchown(link, ATTACKER, ATTACKER)
    config = env.config(daemon=f'decision_log_dir = "{logs}"')
    env.refused_to_start(config, 'writable by others', 'logs where anyone may add a name')
    # Closed to others: even a link that is there already is not followed.
    os.chmod(logs, 0o755)
    d = env.start_daemon(config)
    job = env.start_job(cpu=0, SYMMER_JOB_ID=job_id)
    env.wait_jobs(1)
    env.wait_periods(3)
    env.stop_job(job)
    with open(victim) as f:
        check(f.read() == 'untouched\n', 'the daemon wrote through the link')
    check('no decision log' in env.daemon_log(d), f'not said:\n{env.daemon_log(d)}')


@case
def idle_connections(env):
    """One user's idle connections cost the daemon a bounded number of descriptors and no
    CPU: root is still answered, jobs are still sampled, a live reservation stays."""
    need_attacker('open idle connections')
    d = env.start_daemon(nofile=1024)  # the limit the attack was first run against
    driver = subprocess.Popen(['sleep', '300'])
    try:
        env.ctl('reserve', '--cpus', '1', '--pid', str(driver.pid))
        job = env.start_job(cpu=0)
        env.wait_jobs(1)
        attack = env.as_attacker(sys.executable, os.path.join(HERE, 'attacker.py'), 'hold',
                                 '1100', env.socket, '30', nofile=4096, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        check(attack.stdout.readline().strip() == 'connected', 'the attacker did not connect')
        env.wait_periods(5)  # sampling goes on
        check(len(env.managed_jobs()) == 1 and env.rank_pids(), 'the job is no longer sampled')
        status = env.ask({'request': 'status'})
        check(status['reservations'] == 1, 'the live reservation ended')
        # No CPU spent on them: the daemon never ran out of descriptors (it spun on EMFILE).
        c = status['connections']
        check(c['accepts_out_of_descriptors'] == 0 and c['open'] <= 32 + 1,
              f'one user\'s connections took the daemon\'s descriptors: {c}')
        out, err = attack.communicate(timeout=120)
        result = last_json_line(out)
        check(result is not None, f'attacker: {out} {err}')
        check(result['held'] <= 32 and result['refused_at_once'] >= result['opened'] - 32,
              f'more than 32 connections kept for one user: {result}')
        check(result['closed_later'] == result['held'], f'idle connections kept: {result}')
        env.stop_job(job)
        log = env.daemon_log(d)
        check(f'pid {driver.pid} ended' not in log, f'a live process taken as ended:\n{log}')
    finally:
        driver.kill()
        driver.wait()


@case
def out_of_descriptors(env):
    """Out of descriptors, the daemon turns pending connections away one by one instead of
    retrying accept in a loop, and a /proc read it cannot make means "unknown", never "ended".
    Judged by counts, not by time: accept fails for lack of a descriptor before it looks for
    a connection, so a daemon that accepts again at once fails thousands of times per
    connection it turns away, however loaded the machine."""
    need_attacker('exhaust the daemon\'s descriptors')
    d = env.start_daemon(nofile=40)
    driver = subprocess.Popen(['sleep', '300'])
    try:
        env.ctl('reserve', '--cpus', '1', '--pid', str(driver.pid))
        attack = env.as_attacker(sys.executable, os.path.join(HERE, 'attacker.py'), 'hold',
                                 '200', env.socket, '8', nofile=4096, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        out, err = attack.communicate(timeout=120)
        held = last_json_line(out)
        check(attack.returncode == 0 and held is not None, f'the attacker failed: {out} {err}')
        check(held['opened'] == 200, f'the attack did not happen: {held}')
        env.wait(lambda: env.ask_quiet({'request': 'status'}) is not None, 'root to be answered')
        status = env.ask({'request': 'status'})
        c = status['connections']
        check(c['turned_away'] > 0, f'never out of descriptors: {c}, {held}')
        # One failed accept per connection turned away, and one where the queue was empty
        # each time the daemon ran out (at most once per connection it accepted).
        check(c['accepts_out_of_descriptors'] <= c['turned_away'] + held['held'] + 1,
              f'accept retried in a loop: {c}, {held}')
        check(status['reservations'] == 1, 'the live reservation ended')
        log = env.daemon_log(d)
        check(f'pid {driver.pid} ended' not in log, f'a live process taken as ended:\n{log}')
        check(log.count('out of file descriptors') <= 2, f'said again and again:\n{log}')
    finally:
        driver.kill()
        driver.wait()


def start_ticks(pid):
    with open(f'/proc/{pid}/stat') as f:
        return int(f.read().rsplit(')', 1)[1].split()[19])


@case
def truncated_segment(env):
    """A user truncating their own adopted segment costs the root daemon nothing: it reads
    segments with bounded copies and keeps no shared mapping of them."""
    need_attacker('truncate an adopted segment')
    d = env.start_daemon()
    job = env.start_job(cpu=0, user=ATTACKER)
    jobs = env.wait_jobs(1)
    a = env.as_attacker(env.attack, 'corrupt', 'truncate-zero', jobs[0]['segment'])
    check(a.wait(timeout=60) == 0, 'the truncation failed')
    env.wait_periods(5)
    check(d.poll() is None, f'the daemon died:\n{env.daemon_log(d)}')
    status = env.ask({'request': 'status'})
    check(status['ok'], f'status: {status}')
    result = env.stop_job(job)  # the job survives it too
    check(result['steps'] > 0, f'job: {result}')
    log = env.daemon_log(d)
    check(log.count('truncated') <= 1, f'said more than once:\n{log}')


@case
def forged_segments(env):
    """Twenty sparse 1 GiB segments forged by one user (valid headers, a live creator) are not
    read: the daemon stays small and answers; once their creator is gone they are removed."""
    need_attacker('forge big segments')
    d = env.start_daemon()
    forger = env.as_attacker(env.attack, 'forge', env.shm, '20', '4096', '1024',
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    paths = [forger.stdout.readline().strip() for _ in range(20)]
    check(all(paths), f'forged: {paths}')
    # A segment seen before its forger wrote the magic is refused as "not ready" first, and
    # read again once it changes (or a while later).
    def refused_for_size():
        problems = env.ask({'request': 'status'})['problems']
        return len(problems) == 20 and all('read of one segment' in p['error'] for p in problems)
    env.wait(refused_for_size, 'the 20 forged segments to be refused for their size')
    env.wait_periods(5)
    rss = resident_mib(d.pid)
    check(rss < 256, f'the daemon holds {rss:.0f} MiB')  # 2 GiB when it read them
    check(env.ask({'request': 'jobs'})['jobs'] == [], 'a forged segment was adopted')
    forger.stdin.close()
    forger.wait(timeout=60)
    env.wait(lambda: not [n for n in os.listdir(env.shm) if n.startswith('symmer-')],
             'the forged segments of a gone process to be removed')


@case
def forged_processes(env):
    """A segment naming pid 1 as its creator and a root process as a rank: neither counts for
    the job; once the forger is gone the job is over and its segment removed."""
    need_attacker('name root\'s processes in a segment')
    d = env.start_daemon()
    bystander = subprocess.Popen(['sleep', '300'])
    try:
        forger = env.as_attacker(env.attack, 'forge-pids', env.shm, '1', str(start_ticks(1)),
                                 str(bystander.pid), str(start_ticks(bystander.pid)),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        path = forger.stdout.readline().strip()
        check(path, 'no forged segment')
        env.wait(lambda: env.ask({'request': 'jobs'})['jobs'], 'the forged job to be adopted')
        env.wait_periods(3)
        pids = env.rank_pids()
        check(bystander.pid not in pids and 1 not in pids, f'root processes counted as ranks: {pids}')
        before = cpus_allowed(bystander.pid)
        forger.stdin.close()
        forger.wait(timeout=60)
        env.wait(lambda: env.ask({'request': 'jobs'})['jobs'] == [] and not os.path.exists(path),
                 'the forged job to end with its forger')
        check(cpus_allowed(bystander.pid) == before, 'a root process was bound')
        check(d.poll() is None, 'the daemon died')
    finally:
        bystander.kill()
        bystander.wait()


@case
def stale_segments(env):
    """Segments nobody needs go: a killed job's is removed by the next job of its user, and a
    corrupt one of no live process by the daemon."""
    need_attacker('leave segments behind')
    job = env.start_job(cpu=0, user=ATTACKER)
    env.wait(lambda: [n for n in os.listdir(env.shm) if n.startswith('symmer-')],
             'the job\'s segment')
    stale = [n for n in os.listdir(env.shm) if n.startswith('symmer-')][0]
    for pid in descendants(job.pid):
        if os.path.basename(os.readlink(f'/proc/{pid}/exe')) == 'daemon_job':
            os.kill(pid, signal.SIGKILL)
    job.wait(timeout=60)
    check(os.path.exists(os.path.join(env.shm, stale)), 'a killed job removed its segment')
    second = env.start_job(cpu=0, user=ATTACKER)
    env.wait(lambda: stale not in os.listdir(env.shm), 'the next job to remove the stale segment')
    env.stop_job(second)
    garbage = os.path.join(env.shm, f'symmer-{ATTACKER}-00000000deadbeef-0')
    with open(garbage, 'wb') as f:
        f.write(os.urandom(4096))
    os.chown(garbage, ATTACKER, ATTACKER)
    d = env.start_daemon()
    env.wait(lambda: not os.path.exists(garbage), 'the daemon to remove the corrupt segment')
    check('corrupt and of no live process' in env.daemon_log(d), env.daemon_log(d))


@case
def two_daemons(env):
    """A user's symmerd and root's run at once: every job is analysed by one of them at a
    time; when that one stops, the other (or the job's own analyzer) takes over."""
    need_attacker('run a daemon of its own')
    root = env.start_daemon()
    own = env.attacker_dir('user-run', 0o700)
    user_socket = os.path.join(own, 'symmerd.sock')
    user = env.as_attacker(env.symmerd, '--socket', user_socket, '--segment-dir', env.shm,
                           stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    env.daemons.append(user)
    user.log = open(os.devnull)

    def ask(socket_path):
        saved, env.socket = env.socket, socket_path
        try:
            return env.ask_quiet({'request': 'jobs'})
        finally:
            env.socket = saved

    env.wait(lambda: ask(user_socket) is not None, 'the user daemon')
    a = env.start_job(cpu=0, user=ATTACKER)
    b = env.start_job(cpu=0, user=ATTACKER)
    env.wait(lambda: len(ask(env.socket)['jobs']) == 2 and len(ask(user_socket)['jobs']) == 2,
             'both daemons to see both jobs')
    holders = {}
    for _ in range(40):  # 4 s: both daemons renew every 100 ms
        managed = {}
        for who, path in (('root', env.socket), ('user', user_socket)):
            for j in ask(path)['jobs']:
                if j['state'] == 'managed':
                    managed.setdefault(j['job'], []).append(who)
        for job, by in managed.items():
            check(len(by) == 1, f'job {job} managed by {by} at once')
            check(holders.setdefault(job, by[0]) == by[0], f'job {job} changed hands: {holders} {by}')
        time.sleep(0.1)
    check(len(holders) == 2, f'not every job analysed: {holders}')
    # The holder stops: the job is someone else's at once, still one at a time.
    stopped = root if 'root' in holders.values() else user
    stopped.terminate()
    stopped.wait(timeout=30)
    remaining = user_socket if stopped is root else env.socket
    env.wait(lambda: all(j['state'] == 'managed' for j in ask(remaining)['jobs']),
             'the other daemon to take the jobs over')
    for p in (a, b):
        env.stop_job(p)

if __name__ == '__main__':
    sys.exit(CASES.main(['--build', '--mpiexec'], setup=Env, teardown=Env.close))
