#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the htmtrace QEMU pseries test guest and talk to it.

  guest.py start [-V VARIANT] [-n NAME] [--share DIR] [--pack DIR]
                 [--owner PID] [--smp N]
                 boot, wait until ready (N CPUs, default 2; the test kernel
                 has up to 8). --share mounts DIR at /host over 9p (the test
                 kernels have it); --pack copies DIR into the initramfs as
                 /host/BASENAME (for Debian's kernels, whose 9p is a module)
  guest.py run   [-V VARIANT] [-n NAME] [-t SECS] TEXT...
                 run TEXT with sh -c in the guest: its stdout, stderr and exit
                 status become ours (124: timed out, 125: harness failure)
  guest.py stop  [-V VARIANT] [-n NAME]                 kmemleak scan, dmesg,
                 poweroff, then the post-mortem check: exit 1 on a splat or leak
  guest.py kill  [-V VARIANT] [-n NAME]                 stop QEMU at once
  guest.py check CONSOLE.log [KMEMLEAK.log]             post-mortem of old logs
                 (CONSOLE.log "-": a kernel log on stdin)

VARIANT (release|debug, default $HTMTRACE_VARIANT or release) picks the kernel
and build/VARIANT/ (modules and tool, packed by tests/initramfs.sh). NAME
(default "guest") tells guests apart: state in build/VARIANT/guests/NAME/,
logs in build/VARIANT/logs/NAME.{console,qemu,dmesg,kmemleak}.log.

The console (/dev/hvc0) goes to NAME.console.log. Commands travel on a second
spapr-vty (/dev/hvc1), through a unix socket, between tests/guestrun.c (the
host's end, built into build/guestrun when missing or older than its source:
`run` is that program, which the bats helpers call directly) and
tests/guest/cmdserver.c (the guest's; the protocol is described there).
Requests and replies carry their length and a CRC-32: what comes damaged is
sent again, and HTMTRACE_GUEST_DAMAGE=request[:N],reply[:N] damages some on
purpose (see guestrun.c).

Nothing outlives its owner: QEMU runs under a keeper process (this file, in
its own session) that kills it as soon as the owner process is gone (--owner,
default the caller's parent: the script that booted the guest, even if that
script is SIGKILLed), or after $HTMTRACE_GUEST_LIFETIME seconds (default
3600) whatever happens. `kill` and `stop` signal only a keeper whose command
line, socket and start time are the ones this guest recorded.
"""

# Only what `run` needs is imported here (the other commands import theirs
# where they use them).
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOT_TIMEOUT = int(os.environ.get('HTMTRACE_BOOT_TIMEOUT', '300'))
LIFETIME = int(os.environ.get('HTMTRACE_GUEST_LIFETIME', '3600'))
CMD_TIMEOUT = int(os.environ.get('GUEST_TIMEOUT', '120'))
READY = 'htmtrace-guest: ready'
# x-vof: QEMU's own Virtual Open Firmware rather than SLOF, which took 7 s
# of a 15 s debug boot under TCG. SLOF formats the NVRAM; VOF leaves it
# blank, which Linux reports as "corruption": each guest gets an NVRAM of
# one free partition instead (nvram_image()).
MACHINE = ('pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,'
           'cap-ccf-assist=off,x-vof=on')
NVRAM_SIZE = 65536          # QEMU's default for spapr-nvram


def nvram_image(path):
    """A blank NVRAM as SLOF leaves one: a single free partition (signature
    0x7f, name "wwwwwwwwwwww") over all of it, its header checksummed as
    Linux's nvram_checksum() (arch/powerpc/kernel/nvram_64.c) does."""
    length = NVRAM_SIZE // 16               # in 16-byte blocks
    name = b'w' * 12
    c = 0x7f + length + sum(int.from_bytes(name[i:i + 2], 'little') for i in range(0, 12, 2))
    c = ((c & 0xffff) + (c >> 16)) & 0xffff
    c = ((c + ((c >> 8) + (c << 8))) >> 8) & 0xff
    header = bytes([0x7f, c]) + length.to_bytes(2, 'big') + name
    with open(path, 'wb') as f:
        f.write(header + bytes(NVRAM_SIZE - len(header)))

# Kernel log lines that fail a run. "INFO: " is lockdep's and the hung-task
# detector's prefix; "Call Trace:" catches any other stack dump.
SPLATS = [
    r'\bBUG:', r'kernel BUG at', r'\bWARNING:', r'KASAN:', r'UBSAN:',
    r'possible circular locking', r'inconsistent lock state',
    r'possible recursive locking', r'\bINFO: ', r'\bOops\b', r'Kernel panic',
    r'Unable to handle kernel', r'Call Trace:',
]
MARK = 'htmtrace-test: '     # test names written to the log by the bats helpers
# A test that provokes a splat on purpose (the harness's own test) brackets it
# with these: inside, splats are expected (at least one), not findings.
EXPECT_BEGIN = MARK + 'expect-splat begin'
EXPECT_END = MARK + 'expect-splat end'


CLIENT = os.path.join(TOP, 'build', 'guestrun')
CLIENT_SOURCES = [os.path.join(TOP, 'tests', 'guestrun.c'),
                  os.path.join(TOP, 'tests', 'guest', 'chan.h')]


def client():
    """The channel's host end (tests/guestrun.c), built for this host when
    it is missing or older than its sources; its path."""
    try:
        built = os.path.getmtime(CLIENT)
        if all(os.path.getmtime(src) <= built for src in CLIENT_SOURCES):
            return CLIENT
    except FileNotFoundError:
        pass
    import subprocess
    os.makedirs(os.path.dirname(CLIENT), exist_ok=True)
    tmp = f'{CLIENT}.{os.getpid()}'     # then renamed: two runs may build it
    cc = subprocess.run(['cc', '-O2', '-Wall', '-Wextra', '-Werror', '-o', tmp,
                         CLIENT_SOURCES[0]], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if cc.returncode:
        die(f'building {CLIENT} failed:\n{cc.stdout}')
    os.rename(tmp, CLIENT)
    return CLIENT


def die(msg, code=125):
    print(f'guest: {msg}', file=sys.stderr)
    sys.exit(code)


class Guest:
    def __init__(self, variant, name):
        self.variant, self.name = variant, name
        self.bdir = os.environ.get('HTMTRACE_BUILD_DIR',
                                   os.path.join(TOP, 'build', variant))
        self.dir = os.path.join(TOP, 'build', variant, 'guests', name)
        logs = os.path.join(TOP, 'build', variant, 'logs')
        self.log = {k: os.path.join(logs, f'{name}.{k}.log')
                    for k in ('console', 'qemu', 'dmesg', 'kmemleak')}
        # "KEY VALUE" lines: pid and start (the keeper's), sock; not JSON,
        # whose module costs each call more than all of the rest of run's
        # imports
        self.state_file = os.path.join(self.dir, 'state')
        self.wedged_file = os.path.join(self.dir, 'wedged')

    # --- state ------------------------------------------------------------
    def state(self):
        try:
            with open(self.state_file) as f:
                st = dict(line.rstrip('\n').split(' ', 1) for line in f if ' ' in line)
        except FileNotFoundError:
            return None
        for k in ('pid', 'start'):
            st[k] = int(st.get(k, 0))
        return st

    def alive(self):
        """True if the keeper this guest recorded still runs (QEMU with it)."""
        st = self.state()
        return bool(st) and keeper_matches(st)

    def kernel(self):
        if os.environ.get('HTMTRACE_KERNEL'):
            return os.environ['HTMTRACE_KERNEL']
        vmlinux = os.path.join(TOP, 'build', self.variant, 'kdir', 'vmlinux')
        if os.path.exists(vmlinux):
            return vmlinux
        import subprocess
        kdir = subprocess.run([os.path.join(TOP, 'tests', 'kernel.sh'), self.variant],
                              check=True, stdout=subprocess.PIPE, text=True).stdout
        return os.path.join(kdir.strip(), 'vmlinux')

    # --- start ------------------------------------------------------------
    def packed(self, initrd, folder):
        """INITRD with a second cpio archive after it that holds FOLDER as
        /host/BASENAME (the kernel unpacks concatenated archives in turn)."""
        import shutil
        import subprocess
        import tempfile
        if not os.path.isdir(folder):
            die(f'--pack {folder}: not a folder', 1)
        out = os.path.join(self.dir, 'initramfs-packed.cpio')
        tmp = tempfile.mkdtemp(prefix='htmpack-')
        try:
            dst = os.path.join(tmp, 'host', os.path.basename(os.path.normpath(folder)))
            shutil.copytree(folder, dst, symlinks=True)
            names = subprocess.run('find host | LC_ALL=C sort', shell=True, cwd=tmp,
                                   check=True, capture_output=True).stdout
            extra = subprocess.run(['cpio', '-o', '-H', 'newc', '-R', '0:0', '--quiet'],
                                   cwd=tmp, input=names, check=True,
                                   capture_output=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die(f'--pack {folder}: {e}', 1)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        with open(out, 'wb') as f, open(initrd, 'rb') as first:
            shutil.copyfileobj(first, f)
            f.write(extra)
        return out

    def start(self, share=None, owner=None, smp=2, pack=None):
        if self.alive():    # someone else's run, or a leftover: never kill it here
            die(f'{self.name} ({self.variant}) is already running; stop it with: '
                f'tests/guest.py stop -V {self.variant} -n {self.name}', 1)
        if self.state():    # a leftover of a guest that died
            self.kill()
        os.makedirs(self.dir, exist_ok=True)
        os.makedirs(os.path.dirname(self.log['console']), exist_ok=True)
        for f in [self.wedged_file] + list(self.log.values()):
            if os.path.exists(f):
                os.unlink(f)
        import subprocess
        import tempfile
        initrd = os.path.join(self.dir, 'initramfs.cpio')
        nvram = os.path.join(self.dir, 'nvram.img')
        nvram_image(nvram)
        try:
            subprocess.run([os.path.join(TOP, 'tests', 'initramfs.sh'), self.variant,
                            initrd], check=True)
            if pack:
                initrd = self.packed(initrd, pack)
            vmlinux = self.kernel()
        except subprocess.CalledProcessError as e:
            die(f'boot failed: {" ".join(e.cmd)} exited with {e.returncode}', 1)
        sockdir = tempfile.mkdtemp(prefix='htmg-')   # short: sun_path is 108 bytes
        sock = os.path.join(sockdir, 'ctl')
        qemu = ['qemu-system-ppc64', '-M', MACHINE, '-cpu', 'power9', '-m', '1G',
                '-smp', str(smp), '-nodefaults', '-no-user-config', '-display', 'none',
                '-no-reboot', '-kernel', vmlinux, '-initrd', initrd,
                # rcu_expedited: every synchronize_rcu() an expedited grace
                # period, the same guarantee sooner; an rmmod waits for
                # several (0.27 s became 0.11 s on the debug kernel).
                '-append', 'console=hvc0 panic=-1 kunit.enable=1 kasan_multi_shot '
                'rcupdate.rcu_expedited=1',
                '-chardev', f'file,id=con,path={self.log["console"]}',
                '-device', 'spapr-vty,chardev=con',
                '-chardev', f'socket,id=ctl,path={sock},server=on,wait=off',
                '-device', 'spapr-vty,chardev=ctl',
                '-drive', f'if=none,id=nvram,format=raw,file={nvram}',
                '-global', 'spapr-nvram.drive=nvram']
        if share:
            qemu += ['-virtfs', f'local,path={os.path.abspath(share)},mount_tag=host,'
                     'security_model=none,id=host']
        t0 = time.time()
        owner = owner or os.getppid()
        keeper = [sys.executable, os.path.abspath(__file__), 'keeper',
                  '--owner', str(owner), '--owner-start', str(proc_start(owner)),
                  '--sock', sock, '--log', self.log['qemu'], '--'] + qemu
        proc = subprocess.Popen(keeper, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        with open(self.state_file, 'w') as f:
            f.write(f'pid {proc.pid}\nstart {proc_start(proc.pid)}\nsock {sock}\n')

        deadline = t0 + BOOT_TIMEOUT
        while not self._console_has(READY):
            if proc.poll() is not None or time.time() > deadline:
                why = 'QEMU exited' if proc.poll() is not None else \
                    f'not ready after {BOOT_TIMEOUT} s'
                self.kill()
                self._show_tail()
                die(f'boot failed: {why}', 1)
            time.sleep(0.1)
        boot = time.time() - t0
        t1 = time.time()
        out, err, rc = self.run('echo pong', 60)
        if (out, rc) != (b'pong\n', 0):
            self.kill()
            die(f'command channel broken: {out!r} {err!r} {rc}', 1)
        print(f'guest: {self.name} ({self.variant}) ready in {boot:.1f} s, '
              f'round trip {1000 * (time.time() - t1):.0f} ms, '
              f'console {self.log["console"]}', file=sys.stderr)

    def _console_has(self, text):
        try:
            with open(self.log['console'], errors='replace') as f:
                return text in f.read()
        except FileNotFoundError:
            return False

    def _show_tail(self, n=40):
        for k in ('console', 'qemu'):
            try:
                with open(self.log[k], errors='replace') as f:
                    lines = f.read().splitlines()[-n:]
            except FileNotFoundError:
                continue
            print(f'--- last lines of {self.log[k]}', file=sys.stderr)
            for line in lines:
                print(line, file=sys.stderr)

    # --- run --------------------------------------------------------------
    def run(self, text, timeout=CMD_TIMEOUT):
        """Run text in the guest; return (stdout bytes, stderr bytes, status)."""
        import subprocess
        p = subprocess.run([client(), self.dir, str(timeout), text],
                           stdin=subprocess.DEVNULL, capture_output=True)
        return p.stdout, p.stderr, p.returncode

    # --- stop -------------------------------------------------------------
    def stop(self):
        """Collect kmemleak and dmesg, power off, return the post-mortem findings."""
        findings = []
        kmemleak = None
        if not self.alive():
            findings.append('the guest was not running at the end (crashed or killed)')
        elif os.path.exists(self.wedged_file):
            with open(self.wedged_file) as f:
                findings.append(f'the guest was wedged by: {f.read()}')
        else:
            out, err, rc = self.run(
                'f=/sys/kernel/debug/kmemleak; [ -e $f ] || exit 3; '
                'echo scan > $f && sleep 6 && echo scan > $f && cat $f', 900)
            if rc == 0:
                kmemleak = self.log['kmemleak']
                with open(kmemleak, 'wb') as f:
                    f.write(out)
            elif rc != 3:
                findings.append(f'kmemleak scan failed ({rc}): {err.decode(errors="replace")}')
            out, _, _ = self.run('dmesg', 60)
            with open(self.log['dmesg'], 'wb') as f:
                f.write(out)
            self.poweroff()
        self.kill()
        findings += postmortem(self.log['console'], kmemleak)
        return findings

    def poweroff(self):
        """poweroff -f in the guest, which never answers: wait until QEMU
        has gone (at most 60 s)."""
        import subprocess
        p = subprocess.Popen([client(), self.dir, '10', 'poweroff -f'],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while self.alive() and time.time() < deadline:
            time.sleep(0.1)
        p.kill()
        p.wait()

    def kill(self):
        """Stop QEMU now, if it is the one this guest started."""
        import shutil
        import signal
        st = self.state()
        if not st:
            return
        if keeper_matches(st):
            try:
                os.killpg(st['pid'], signal.SIGTERM)    # keeper and QEMU
                for _ in range(100):
                    if not keeper_matches(st):
                        break
                    time.sleep(0.1)
                else:
                    os.killpg(st['pid'], signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(os.path.dirname(st['sock']), ignore_errors=True)
        os.unlink(self.state_file)


def proc_start(pid):
    """The start time of pid (clock ticks since boot), 0 if it is gone."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return int(f.read().rsplit(')', 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return 0


def keeper_matches(st):
    """True if pid st['pid'] is the keeper recorded in st, not a reused pid."""
    try:
        with open(f'/proc/{st["pid"]}/cmdline', 'rb') as f:
            argv = f.read().split(b'\0')
    except OSError:
        return False
    return (b'keeper' in argv and st['sock'].encode() in argv and
            proc_start(st['pid']) == st.get('start'))


def keeper(a):
    """Run QEMU until it exits, its lifetime ends, or the owner goes."""
    import signal
    import subprocess
    with open(a.log, 'w') as qlog:
        qemu = subprocess.Popen(a.qemu, stdin=subprocess.DEVNULL, stdout=qlog,
                                stderr=subprocess.STDOUT)

    def end(*_):
        if qemu.poll() is None:
            qemu.terminate()
            try:
                qemu.wait(10)
            except subprocess.TimeoutExpired:
                qemu.kill()
        sys.exit(0)
    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, end)
    signal.signal(signal.SIGHUP, end)
    deadline = time.time() + LIFETIME
    while qemu.poll() is None:
        if proc_start(a.owner) != a.owner_start or time.time() > deadline:
            end()
        try:
            qemu.wait(0.5)
        except subprocess.TimeoutExpired:
            pass
    return 0


def postmortem(console, kmemleak=None):
    """Splats in the console log; kmemleak objects allocated by our modules."""
    import re
    splat_re = re.compile('|'.join(SPLATS))
    findings = []
    ignore = os.environ.get('HTMTRACE_POSTMORTEM_IGNORE')
    try:
        if console == '-':
            lines = sys.stdin.read().splitlines()
        else:
            with open(console, errors='replace') as f:
                lines = f.read().splitlines()
    except FileNotFoundError:
        return [f'no console log {console}']
    window = None       # line number of an open "expect-splat" window
    seen = False
    for i, line in enumerate(lines):
        if EXPECT_BEGIN in line:
            window, seen = i + 1, False
            continue
        if EXPECT_END in line and window:
            if not seen:
                findings.append(f'{os.path.basename(console)}:{window}: a splat was '
                                'expected here and did not come')
            window = None
            continue
        if MARK in line or (ignore and re.search(ignore, line)):
            continue
        if splat_re.search(line):
            if window:
                seen = True
            else:
                findings.append(f'{os.path.basename(console)}:{i + 1}: {line.strip()}')
    if window:
        findings.append(f'{os.path.basename(console)}:{window}: an expect-splat '
                        'window was never closed')
    if kmemleak:
        with open(kmemleak, errors='replace') as f:
            objects = re.split(r'^unreferenced object ', f.read(), flags=re.M)[1:]
        # A frame of an unloaded module prints as a bare address; the guest
        # loads no module but ours.
        ours = [o for o in objects
                if 'htmtrace' in o or re.search(r'^\s+0x[0-9a-f]+$', o, re.M)]
        for o in ours:
            findings.append(f'kmemleak: unreferenced object {o.strip()}')
        if objects:
            print(f'guest: kmemleak: {len(ours)} leak(s) from htmtrace, '
                  f'{len(objects) - len(ours)} unrelated object(s) ignored '
                  f'({kmemleak})', file=sys.stderr)
    return findings


def report(findings, what):
    if not findings:
        print(f'guest: post-mortem of {what}: clean', file=sys.stderr)
        return 0
    print(f'guest: post-mortem: {len(findings)} problem(s):', file=sys.stderr)
    for f in findings:
        print(f'  {f}', file=sys.stderr)
    return 1


def run_args(argv):
    """The arguments of `run` (argv after "run"), parsed as main()'s parser
    would: argparse alone costs a call more than the channel does."""
    opts = {'-V': os.environ.get('HTMTRACE_VARIANT', 'release'), '-n': 'guest',
            '-t': str(CMD_TIMEOUT)}
    long = {'--variant': '-V', '--name': '-n', '--timeout': '-t'}
    i = 0
    while i < len(argv) and argv[i] != '--':
        o = long.get(argv[i], argv[i])
        if o not in opts or i + 1 == len(argv):
            return None
        opts[o] = argv[i + 1]
        i += 2
    text = argv[i + 1:]
    if not text or not opts['-t'].isdigit():
        return None
    return opts['-V'], opts['-n'], int(opts['-t']), text


def main():
    fast = run_args(sys.argv[2:]) if sys.argv[1:2] == ['run'] else None
    if fast:
        variant, name, timeout, text = fast
        exe = client()
        os.execv(exe, [exe, Guest(variant, name).dir, str(timeout)] + text)

    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('client')    # build/guestrun, built if it is not
    for name in ('start', 'run', 'stop', 'kill'):
        p = sub.add_parser(name)
        p.add_argument('-V', '--variant', default=os.environ.get('HTMTRACE_VARIANT', 'release'))
        p.add_argument('-n', '--name', default='guest')
        if name == 'start':
            p.add_argument('--share', help='host folder mounted at /host in the guest')
            p.add_argument('--pack', help='host folder copied into the initramfs '
                           'as /host/BASENAME')
            p.add_argument('--owner', type=int,
                           help='QEMU ends when this process does (default: parent)')
            p.add_argument('--smp', type=int, default=2, choices=range(1, 9),
                           metavar='N', help='CPUs (1..8, default 2)')
        if name == 'run':
            p.add_argument('-t', '--timeout', type=int, default=CMD_TIMEOUT)
            p.add_argument('text', nargs='+')
    p = sub.add_parser('check')
    p.add_argument('console')
    p.add_argument('kmemleak', nargs='?')
    p = sub.add_parser('keeper')    # internal: see the module's doc
    p.add_argument('--owner', type=int, required=True)
    p.add_argument('--owner-start', type=int, required=True)
    p.add_argument('--sock', required=True)
    p.add_argument('--log', required=True)
    p.add_argument('qemu', nargs='+')
    a = ap.parse_args()

    if a.cmd == 'check':
        return report(postmortem(a.console, a.kmemleak), a.console)
    if a.cmd == 'keeper':
        return keeper(a)
    if a.cmd == 'client':
        client()
        return 0
    g = Guest(a.variant, a.name)
    if a.cmd == 'start':
        g.start(a.share, a.owner, a.smp, a.pack)
        return 0
    if a.cmd == 'kill':
        g.kill()
        return 0
    if a.cmd == 'run':
        out, err, rc = g.run(' '.join(a.text), a.timeout)
        sys.stdout.buffer.write(out)
        sys.stderr.buffer.write(err)
        return rc
    return report(g.stop(), g.name)


if __name__ == '__main__':
    sys.exit(main())
