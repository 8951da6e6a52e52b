#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the htmtrace QEMU pseries test guest and talk to it.

  guest.py start [-V VARIANT] [-n NAME] [--share DIR] [--owner PID]
                 boot, wait until ready
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
spapr-vty (/dev/hvc1), through a unix socket, served by tests/guest/cmdserver.c
(the protocol is described there). Requests and replies carry their length
and a CRC-32: a request the guest finds damaged is sent again (at most
MAX_SENDS times), a reply found damaged is asked for again (at most
MAX_REPLY_ASKS times); then the command fails with status 125 and says why.
HTMTRACE_GUEST_DAMAGE=request[:N],reply[:N] damages one character of each of
the first N requests this process sends (replies it receives) on purpose:
the channel's own test (tests/bats/harness.bats, host-guest.bats).

Nothing outlives its owner: QEMU runs under a keeper process (this file, in
its own session) that kills it as soon as the owner process is gone (--owner,
default the caller's parent: the script that booted the guest, even if that
script is SIGKILLed), or after $HTMTRACE_GUEST_LIFETIME seconds (default
3600) whatever happens. `kill` and `stop` signal only a keeper whose command
line, socket and start time are the ones this guest recorded.
"""

# Only what `run` needs is imported here (a test run makes thousands of
# calls, and argparse, re, secrets and subprocess would double the start-up
# time of each): the other commands import theirs where they use them.
# _socket, the C module under socket: socket.py's enum and selectors would
# cost each call more than the rest of its imports together.
import _socket
import binascii
import fcntl
import os
import sys
import time
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOT_TIMEOUT = int(os.environ.get('HTMTRACE_BOOT_TIMEOUT', '300'))
LIFETIME = int(os.environ.get('HTMTRACE_GUEST_LIFETIME', '3600'))
CMD_TIMEOUT = int(os.environ.get('GUEST_TIMEOUT', '120'))
GRACE = 30          # seconds the host waits beyond the guest-side timeout
ACK_TIMEOUT = 15    # the server acknowledges a request as soon as it reads it
MAX_SENDS = 4       # a request the guest found damaged: sent again, this often in all
MAX_NOACKS = 2      # a request that got no answer at all: sent this often in all
MAX_REPLY_ASKS = 3  # a reply found damaged: asked for again this often
READY = 'htmtrace-guest: ready'
MACHINE = ('pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,'
           'cap-ccf-assist=off')

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


def send_paced(sock, data, piece=256):
    """Send to the guest's tty a piece at a time.

    On the debug kernel, a long burst into the spapr-vty once triggered a
    KASAN report in n_tty_receive_buf_common (hvc flip buffers, not
    htmtrace); small pieces keep each burst well below a tty buffer.
    """
    for i in range(0, len(data), piece):
        sock.sendall(data[i:i + piece])
        if i + piece < len(data):
            time.sleep(0.002)


def crc32(data):
    """The CRC of cmdserver.c: zlib's CRC-32, 8 lower-case hex digits."""
    return f'{zlib.crc32(data) & 0xffffffff:08x}'


def frame(text):
    """A line for the command server: text, then its CRC."""
    return f'\n{text} {crc32(text.encode())}\n'.encode()


def request_frame(rid, timeout, text):
    raw = text.encode()
    b64 = binascii.b2a_base64(raw, newline=False).decode() or '-'
    return frame(f'REQ {rid} {timeout} {len(raw)} {b64}')


def flip(text, i):
    """text with the character at i replaced by another base64 character."""
    return text[:i] + ('B' if text[i] == 'A' else 'A') + text[i + 1:]


class Damage:
    """Damage on purpose (HTMTRACE_GUEST_DAMAGE): the test of the checks."""

    def __init__(self, spec):
        self.left = {}
        for item in filter(None, (spec or '').split(',')):
            what, _, n = item.partition(':')
            if what not in ('request', 'reply') or not (n or '1').isdigit():
                die(f'HTMTRACE_GUEST_DAMAGE: "{item}" is not request[:N] or reply[:N]')
            self.left[what] = int(n or 1)

    def take(self, what):
        if self.left.get(what, 0) > 0:
            self.left[what] -= 1
            print(f'guest: damaging this {what} on purpose (HTMTRACE_GUEST_DAMAGE)',
                  file=sys.stderr)
            return True
        return False

    def request(self, data):
        """A framed request with one character of its payload changed."""
        if not self.take('request'):
            return data
        line = data.decode()
        start = line.index(' ', line.index(' ', line.index(' ', line.index(' ') + 1) + 1) + 1) + 1
        end = line.rindex(' ')
        return flip(line, (start + end) // 2).encode()


class Receiver:
    """The replies to one request rid, line by line, as events."""

    def __init__(self, sock, rid, damage):
        self.s, self.rid, self.damage = sock, rid, damage
        self.buf, self.lines = b'', []
        self.section, self.parts = None, {'OUT': [], 'ERR': []}
        self.acked, self.damage_next = False, False

    def next(self, deadline):
        """The next event before deadline (later while output flows):
        ('ack',) (ACK or DUP), ('bad',), ('gone',), ('end', reply, why),
        ('timeout',), ('eof',)."""
        while True:
            while self.lines:
                ev = self._line(self.lines.pop(0))
                if ev:
                    return ev
            left = deadline - time.time()
            if left <= 0:
                return ('timeout',)
            self.s.settimeout(left)
            try:
                data = self.s.recv(65536)
            except TimeoutError:
                return ('timeout',)
            if not data:
                return ('eof',)
            if self.section:        # output is flowing: be patient
                deadline = max(deadline, time.time() + GRACE)
            self.buf += data
            *lines, self.buf = self.buf.split(b'\n')
            for line in lines:
                # a marker glued to the line before it (a newline lost)
                first, *marks = line.decode('ascii', 'replace').strip().split('@@HTMG-')
                self.lines += ([first] if first else []) + ['@@HTMG-' + m for m in marks]

    def _line(self, line):
        words = line.split()
        if words and words[0].startswith('@@HTMG-'):
            kind = words[0][len('@@HTMG-'):]
            if len(words) < 2 or words[1] != self.rid:
                self.section = None     # a stale or damaged marker
                # a request whose id the tty damaged is ours too: the server
                # takes a request once whatever is sent again
                return ('bad',) if kind == 'BAD' and not self.acked else None
            if kind in ('ACK', 'DUP'):
                self.acked = True
                return ('ack',)
            if kind in ('BAD', 'GONE'):
                return (kind.lower(),)
            if kind in ('OUT', 'ERR'):
                if kind == 'OUT':       # a reply sent again starts afresh
                    self.parts = {'OUT': [], 'ERR': []}
                    self.damage_next = self.damage.take('reply')
                self.section = kind
                return None
            self.section = None
            if kind == 'END':
                if self.damage_next:
                    self.damage_next = False
                    words[2] = str(int(words[2]) + 1) if words[2].isdigit() else '0'
                    line = ' '.join(words)
                return ('end',) + self._end(line, words)
            return None
        if self.section and line:
            if self.damage_next:
                self.damage_next = False
                line = flip(line, len(line) // 2)
            self.parts[self.section].append(line)
        return None

    def _end(self, line, words):
        """(out, err, status), None if the reply is damaged; and why."""
        if len(words) != 8 or crc32(line[:line.rindex(' ')].encode()) != words[7]:
            return None, f'the reply\'s last line is damaged: {line[:100]!r}'
        try:
            out = binascii.a2b_base64(''.join(self.parts['OUT']), strict_mode=True)
            err = binascii.a2b_base64(''.join(self.parts['ERR']), strict_mode=True)
        except binascii.Error as e:
            return None, f'the reply is no base64: {e}'
        for what, data, n, crc in (('stdout', out, words[3], words[4]),
                                   ('stderr', err, words[5], words[6])):
            if str(len(data)) != n or crc32(data) != crc:
                return None, (f'{what} is damaged: {len(data)} bytes, CRC {crc32(data)} '
                              f'for {n} bytes, CRC {crc}')
        return (out, err, int(words[2])), None


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
    def start(self, share=None, owner=None):
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
        initrd = os.path.join(self.dir, 'initramfs.cpio.gz')
        try:
            subprocess.run([os.path.join(TOP, 'tests', 'initramfs.sh'), self.variant,
                            initrd], check=True)
            vmlinux = self.kernel()
        except subprocess.CalledProcessError as e:
            die(f'boot failed: {" ".join(e.cmd)} exited with {e.returncode}', 1)
        sockdir = tempfile.mkdtemp(prefix='htmg-')   # short: sun_path is 108 bytes
        sock = os.path.join(sockdir, 'ctl')
        qemu = ['qemu-system-ppc64', '-M', MACHINE, '-cpu', 'power9', '-m', '1G',
                '-smp', '2', '-nodefaults', '-no-user-config', '-display', 'none',
                '-no-reboot', '-kernel', vmlinux, '-initrd', initrd,
                # rcu_expedited: every synchronize_rcu() an expedited grace
                # period, the same guarantee sooner; an rmmod waits for
                # several (0.27 s became 0.11 s on the debug kernel).
                '-append', 'console=hvc0 panic=-1 kunit.enable=1 kasan_multi_shot '
                'rcupdate.rcu_expedited=1',
                '-chardev', f'file,id=con,path={self.log["console"]}',
                '-device', 'spapr-vty,chardev=con',
                '-chardev', f'socket,id=ctl,path={sock},server=on,wait=off',
                '-device', 'spapr-vty,chardev=ctl']
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
        if os.path.exists(self.wedged_file):
            with open(self.wedged_file) as f:
                return b'', f'guest: wedged earlier by: {f.read()}\n'.encode(), 125
        st = self.state()
        if not st or not self.alive():
            return b'', f'guest: {self.name} is not running\n'.encode(), 125
        rid = os.urandom(6).hex()
        damage = Damage(os.environ.get('HTMTRACE_GUEST_DAMAGE'))
        with open(os.path.join(self.dir, 'lock'), 'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            try:
                s.connect(st['sock'])
            except OSError as e:
                s.close()
                return b'', f'guest: cannot reach the guest: {e}\n'.encode(), 125
            try:
                result = self._exchange(s, Receiver(s, rid, damage), text, timeout,
                                        request_frame(rid, timeout, text))
            finally:
                s.close()
        if isinstance(result, tuple):
            return result
        what, status = result, 125
        if what.startswith('wedged: '):
            what, status = what[len('wedged: '):], 124
            with open(self.wedged_file, 'w') as f:
                f.write(f'{what}: {text}')
        return b'', (f'guest: {what}: {text}\n' + (
            'guest: the guest is wedged; later commands fail\n' if status == 124
            else '')).encode(), status

    @staticmethod
    def _exchange(s, rx, text, timeout, request):
        """Send the request and take its reply, sending again what was
        damaged: (out, err, status), or what went wrong ("wedged: ..." if
        the guest stopped answering)."""
        sends = noacks = asks = 0
        ev = None
        # A leading newline (in the frame) ends whatever partial line the
        # tty may hold.
        while not rx.acked:
            sends += 1
            send_paced(s, rx.damage.request(request))
            ev = rx.next(time.time() + ACK_TIMEOUT)
            if ev[0] == 'ack' or ev[0] == 'end':
                break
            if ev[0] == 'eof':
                return 'QEMU closed the channel (guest died?)'
            if ev[0] == 'timeout':
                # lost on the way (not that the command hangs): send it
                # again; the server takes a request once whatever is resent
                noacks += 1
                if noacks >= MAX_NOACKS:
                    return 'wedged: the command channel lost the request twice'
                print(f'guest: request not acknowledged in {ACK_TIMEOUT} s '
                      f'(attempt {sends}): {text[:80]}', file=sys.stderr)
            elif sends >= MAX_SENDS:
                return f'the guest found the request damaged {sends} times: giving up'
            else:
                print(f'guest: the guest found the request damaged (attempt {sends} '
                      f'of {MAX_SENDS}): sending it again', file=sys.stderr)
        # Then the reply: asked for again (RES) when it came damaged, and
        # once when none came (its last line may be what was lost).
        wait, recovered = timeout + GRACE, False
        while True:
            if ev[0] != 'end':
                ev = rx.next(time.time() + wait)
            if ev[0] == 'eof':
                return 'QEMU closed the channel (guest died?)'
            if ev[0] == 'end' and ev[1]:
                return ev[1]
            if ev[0] == 'gone':
                return 'the guest has no reply to send again'
            if ev[0] in ('ack', 'bad'):     # a late answer to a request sent again
                ev = ('wait',)
                continue
            if ev[0] == 'timeout' and not recovered and asks == 0:
                recovered = True
                print(f'guest: no answer {timeout + GRACE} s after the request was '
                      'read: asking for the reply again', file=sys.stderr)
            elif ev[0] == 'timeout' and recovered and asks == 0:
                return (f'wedged: no answer {timeout + GRACE} s after the request '
                        'was read')
            else:
                why = ev[2] if ev[0] == 'end' else 'the reply asked for again did not come'
                asks += 1
                if asks > MAX_REPLY_ASKS:
                    return f'the reply came damaged {asks} times: giving up ({why})'
                print(f'guest: {why} (attempt {asks}): asking for it again',
                      file=sys.stderr)
            send_paced(s, frame(f'RES {rx.rid}'))
            wait, ev = ACK_TIMEOUT, ('wait',)

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
        import socket
        st = self.state()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(st['sock'])
                s.sendall(request_frame('off', 10, 'poweroff -f'))
                deadline = time.time() + 60
                while self.alive() and time.time() < deadline:
                    time.sleep(0.1)
        except OSError:
            pass

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
        t0 = time.time()
        out, err, rc = Guest(variant, name).run(' '.join(text), timeout)
        if os.environ.get('HTMTRACE_TIMING_LOG'):   # one line per command
            with open(os.environ['HTMTRACE_TIMING_LOG'], 'a') as f:
                f.write(f'{time.time() - t0:.3f} {rc} {" ".join(text)[:100]!r}\n')
        sys.stdout.buffer.write(out)
        sys.stderr.buffer.write(err)
        return rc

    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('start', 'run', 'stop', 'kill'):
        p = sub.add_parser(name)
        p.add_argument('-V', '--variant', default=os.environ.get('HTMTRACE_VARIANT', 'release'))
        p.add_argument('-n', '--name', default='guest')
        if name == 'start':
            p.add_argument('--share', help='host folder mounted at /host in the guest')
            p.add_argument('--owner', type=int,
                           help='QEMU ends when this process does (default: parent)')
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
    g = Guest(a.variant, a.name)
    if a.cmd == 'start':
        g.start(a.share, a.owner)
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
