#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find the assertions bats swallows, in bats files and their helpers.

  tests/lint-bats.py [--exclude NAME]... [FILE...]
      (default: tests/bats/*.bats and tests/bats/*.bash)

bats runs a test with errexit, and errexit ignores a failing command that is
not the last of an && list, a negated command (`! cmd`), and every command
of a pipeline but the last. So, in a test or a function, before its last
statement:

  and-list      `[ A ] && [ B ]`, `cmd && [ B ]`: an && list ending in an
                assertion ([, [[, test) fails nothing when its left side
                fails. One assertion per line.
                So does one ending in a negation (`x && ! cmd`).
  negation      `! cmd` fails nothing. `run -N cmd` with the exact status.
  run-negative  `run cmd` with no status check, followed only by negative
                assertions (`!=`, `! grep`, `-z`, `grep -v`) before the
                next run: a cmd that failed, or never ran, passes them.
  arith-unchecked  a command's output in arithmetic (`$(( $(cmd) - w ))`,
                or `v=$(cmd)` then `$((v - w))`) with no numeric check of
                it first (`[ "$v" -ge 0 ]`, `[[ $v =~ ^[0-9]+$ ]]`): an
                empty or errno answer counts as 0.
and anywhere:
  guest-pipe    `guest ... | cmd` (guest, guest_dmesg, guest_py, ...): the
                guest's status (124 timed out, 125 no guest) is dropped, and
                an empty answer often passes. Take the output first (`run -0
                guest ...`, `out=$(guest ...) || ...`), or set -o pipefail,
                or look at PIPESTATUS. A function of the suite or of
                helpers.bash that calls guest (a wrapper, e.g. htm_devices)
                counts as guest.
  guest-subst   a wrapper in `$( )` or after `run`, where bash runs it
                without errexit (bats does not set inherit_errexit; run
                clears -e), whose guest call before its last statement has
                no `|| return`: its failure is ignored.
  guest-empty   `[ -z "$(guest ...)" ]` (or a wrapper): a guest that failed,
                or never answered, passes it. `run -0`, then $output.
  status-ne-0   `[ "$status" -ne 0 ]` (or `-gt 0`, `-ge 1`, `!= 0`) also
                accepts the harness's own 124 and 125: expect the exact
                status.
  run-not       `run ! cmd` accepts 124 and 125 too: `run -N cmd`.

  guest-script-pipe  a pipe in the script a guest call runs (its quoted
                arguments, as the guest's sh -c gets them), fed by a command
                that reports its verdict by its status (htmcheck, htmtrace,
                htmtest, htmperf, perf, sleep ...: anything but the text and
                listing tools of PIPE_SAFE, whose failure shows in what they
                print): sh runs it without pipefail, so `htmcheck verify F |
                grep valid` passes when htmcheck fails. `set -o pipefail` in
                the script first, or the output to a file, then the check.
  alt-unset     a test of the simulator's alternative (`$(alt NAME)`, or a
                variable set from it) against a VALUE that no lane of make
                check runs the file with: neither the default (helpers.bash,
                alt()) nor a profile (tests/check.sh, htm_alt) of a lane
                whose stock_suites run the file: the branch it decides never
                runs. Loop over the values and set them, as the tests about
                an alternative do.

Apart from guest-script-pipe, what a guest's shell runs (quoted text) is
not looked at: only what bash runs on the host. Prints FILE:LINE: RULE:
text for each finding; exit status 1 if there is one, 0 if none.
"""

import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEREDOC = re.compile(r'<<(-?)\s*([\'"]?)([A-Za-z_][A-Za-z0-9_]*)\2')
GUEST = r'guest(?:_[a-z_]+)?'
GUEST_PIPE = re.compile(r'(?:^|[;&|(!]|\brun(?:\s+-\d+|\s+--separate-stderr|\s+!)*)\s*'
                        + GUEST + r'\b[^|;&]*(?<!\|)\|(?!\|)')
STATUS_NE_0 = re.compile(r'(?<!\\)\$\{?status\}?"?\s+(?:(?:-ne|!=|-gt)\s+"?0|-ge\s+"?1)\b')
RUN = re.compile(r'^\s*(?:[A-Za-z_]\w*=\S*\s+)*run\b((?:\s+(?:-\d+|--separate-stderr|--keep-empty-lines|!))*)')
RUN_NOT = re.compile(r'(?:^|[;&|(])\s*(?:[A-Za-z_]\w*=\S*\s+)*run(?:\s+--[a-z-]+)*\s+!(?:\s|$)')
NEGATIVE = re.compile(r'!=|!\s*~|^\s*!\s|\[\[?\s+-z\s|\bgrep\s+-[A-Za-z]*v')
POSITIVE_CMD = re.compile(r'^\s*(?:\[\[?|test\b|grep\b|!|diff\b|cmp\b)')
ASSIGN_SUB = re.compile(r'(?:^|[\s;&|(])([A-Za-z_]\w*)=(?:"?\$\((?!\()\s*(\S*)|'
                        r'"?\$\{?(?:output|stderr|lines)\b())')
# commands whose output is a number whenever they succeed
NUMBER_CMDS = {'date', 'stat', 'wc'}
ARITH_START = re.compile(r'(?<!\\)(?:\$\(\(|(?:^|[\s;&|])\(\()')
ASSERT = re.compile(r'^\s*(?:\[\[?|test\b)')
COND = re.compile(r'^\s*(?:if|elif|while|until)\b.*?;\s*(?:then|do)\b(.*)$', re.S)
BODY_START = re.compile(r'^(?:@test\s|(?:function\s+)?[A-Za-z_][\w-]*\s*\(\)\s*\{?\s*$)')


def scan(text):
    """Two views of the text, line for line: 'code' has what the shell
    quotes blanked but keeps command substitutions (also inside double
    quotes); 'top' blanks those too. Comments and here-documents are
    blanked in both. Also, per line, True if it ends inside a quote or a
    command substitution."""
    code, top, nosq, open_at_eol = [], [], [], []
    stack = []      # 'sq', 'dq', or ['sub', depth]
    cur_c, cur_t, cur_n = [], [], []
    heredoc = None  # (strip tabs, word)
    lines = text.split('\n')
    for raw in lines:
        if heredoc:
            body = raw.lstrip('\t') if heredoc[0] else raw
            if body == heredoc[1]:
                heredoc = None
            code.append('')
            top.append('')
            nosq.append('')
            open_at_eol.append(False)
            continue
        i = 0
        comment = False
        while i < len(raw):
            c = raw[i]
            mode = stack[-1] if stack else 'code'
            cur_n.append(' ' if mode == 'sq' and c != "'" or comment else c)
            in_sub = any(isinstance(m, list) for m in stack)
            if comment:
                cur_c.append(' ')
                cur_t.append(' ')
            elif mode == 'sq':
                if c == "'":
                    stack.pop()
                    cur_c.append(c)
                    cur_t.append(c if not in_sub else ' ')
                else:
                    cur_c.append(' ')
                    cur_t.append(' ')
            elif mode == 'dq':
                if c == '\\' and i + 1 < len(raw):
                    cur_c.append('  ')
                    cur_t.append('  ')
                    cur_n.append(raw[i + 1])
                    i += 2
                    continue
                if c == '"':
                    stack.pop()
                    cur_c.append(c)
                    cur_t.append(c if not in_sub else ' ')
                elif raw.startswith('$(', i) and not raw.startswith('$((', i):
                    stack.append(['sub', 1])
                    cur_c.append('$(')
                    cur_t.append('  ')
                    cur_n.append(raw[i + 1])
                    i += 2
                    continue
                else:
                    cur_c.append(' ')
                    cur_t.append(' ')
            else:   # code, or a command substitution
                keep_t = mode == 'code'
                if c == '\\' and i + 1 < len(raw):
                    cur_c.append(raw[i:i + 2])
                    cur_t.append(raw[i:i + 2] if keep_t else '  ')
                    cur_n.append(raw[i + 1])
                    i += 2
                    continue
                if c == '#' and (i == 0 or raw[i - 1] in ' \t;'):
                    comment = True
                    cur_c.append(' ')
                    cur_t.append(' ')
                elif c == "'" or c == '"':
                    if c == "'" and i > 0 and raw[i - 1] == '$':
                        pass    # $'...': quoted like '...'
                    stack.append('sq' if c == "'" else 'dq')
                    cur_c.append(c)
                    cur_t.append(c if keep_t else ' ')
                elif raw.startswith('$(', i) and not raw.startswith('$((', i):
                    stack.append(['sub', 1])
                    cur_c.append('$(')
                    cur_t.append('$(' if keep_t else '  ')
                    cur_n.append(raw[i + 1])
                    i += 2
                    continue
                else:
                    if isinstance(mode, list):
                        if c == '(':
                            mode[1] += 1
                        elif c == ')':
                            mode[1] -= 1
                            if mode[1] == 0:
                                stack.pop()
                                keep_t = not stack
                    cur_c.append(c)
                    cur_t.append(c if keep_t or (c == ')' and not stack) else ' ')
            i += 1
        line_c, line_t = ''.join(cur_c), ''.join(cur_t)
        code.append(line_c)
        top.append(line_t)
        nosq.append(''.join(cur_n))
        cur_c, cur_t, cur_n = [], [], []
        open_at_eol.append(bool(stack))
        if not stack:
            for m in HEREDOC.finditer(raw):
                if line_c[m.start():m.start() + 2] == '<<':
                    heredoc = (m.group(1) == '-', m.group(3))
                    break
    return code, top, nosq, open_at_eol


def statements(code, top, nosq, open_at_eol, start, end):
    """Logical lines (joined continuations) of lines [start, end):
    (first line number, code, top, nosq)."""
    out, i = [], start
    while i < end:
        j, c, t, n = i, code[i], top[i], nosq[i]
        while j + 1 < end and (open_at_eol[j] or
                               re.search(r'(\\|&&|\|\||\|)\s*$', code[j])):
            j += 1
            c += '\n' + code[j]
            t += '\n' + top[j]
            n += '\n' + nosq[j]
        if c.strip():
            out.append((i + 1, c, t, n))
        i = j + 1
    return out


def bodies_of(code):
    """The bodies in the text: a test or a function at the left margin, to
    a "}" there: (name or None for a test, first line, end) with lines
    [first, end) 0-based, the opening line excluded."""
    bodies, i = [], 0
    while i < len(code):
        m = BODY_START.match(code[i])
        if m and not code[i].startswith((' ', '\t')):
            j = i + 1
            while j < len(code) and code[j].rstrip() != '}':
                j += 1
            name = None
            if not code[i].startswith('@test'):
                name = re.match(r'(?:function\s+)?([A-Za-z_][\w-]*)', code[i]).group(1)
            bodies.append((name, i + 1, j))
            i = j + 1
        else:
            i += 1
    return bodies


def calls(names, text):
    """Does the (code view of the) text call a command of NAMES (a regex
    alternative) at a command's position?"""
    return re.search(r'(?:^|[;&|({!`]|\$\(|\brun(?:\s+-\d+|\s+--[a-z-]+|\s+!)*|'
                     r'\b(?:if|elif|while|until|then|do|else|time)|^\s*(?:[A-Za-z_]\w*=\S*\s+)+)'
                     r'\s*(?:' + names + r')(?=\s|$|[;&|)])', text, re.M)


def wrappers(paths):
    """The functions of the files that call guest, directly or through
    another: {name: (path, line of a guest call that is not its last
    statement and has no || check, or None)}; the names of all the
    functions; and those that print a number or fail: their last statement
    is guest_number (helpers.bash), `echo $((...))` or another of them,
    and no guest call before it goes unchecked."""
    funcs = {}
    for path in paths:
        with open(path) as f:
            code, top, nosq, open_at_eol = scan(f.read())
        for name, start, end in bodies_of(code):
            if name:
                funcs[name] = (path, statements(code, top, nosq, open_at_eol, start, end))
    found = {}
    names = GUEST
    while True:
        added = False
        for name, (path, stmts) in funcs.items():
            if name in found or re.fullmatch(GUEST, name):
                continue
            if any(calls(names, c) for _, c, _, _ in stmts):
                unchecked = None
                for line, c, t, _ in stmts[:-1]:
                    if (calls(names, c) and '||' not in t and not RUN.match(t) and
                            not re.match(r'^\s*(?:if|elif|while|until|return|exit)\b', t)):
                        unchecked = line
                        break
                found[name] = (path, unchecked)
                added = True
        if not added:
            break
        names = GUEST + '|' + '|'.join(re.escape(n) for n in found)
    numeric = {'guest_number'}
    while True:
        more = {name for name, (_, stmts) in funcs.items()
                if name not in numeric and stmts and not (found.get(name) or (0, 0))[1] and
                (re.match(r'^\s*echo\s+"?\$\(\(', stmts[-1][2]) or
                 re.match(r'^\s*(' + '|'.join(map(re.escape, numeric)) + r')\b', stmts[-1][2]))}
        if not more:
            return found, set(funcs), numeric
        numeric |= more


def arith_regions(text):
    """The texts of the arithmetic expansions and commands in text
    ($(( )) and (( )), nested parentheses followed)."""
    out = []
    for m in ARITH_START.finditer(text):
        i = m.end()
        depth = 2
        j = i
        while j < len(text) and depth:
            if text[j] == '(':
                depth += 1
            elif text[j] == ')':
                depth -= 1
            j += 1
        out.append(text[i:j - 2])
    return out


def checked_vars(text):
    """The variables a statement checks for a number: an integer test
    ([ "$v" -ge 0 ], either side), or [[ $v =~ ... ]]."""
    v = r'"?\$\{?([A-Za-z_]\w*)\}?"?'
    op = r'-(?:eq|ne|lt|le|gt|ge)'
    out = set(re.findall(r'\[\[?\s+' + v + r'\s+' + op + r'\s', text))
    out |= set(re.findall(op + r'\s+' + v + r'\s*\]', text))
    out |= set(re.findall(r'\[\[\s+' + v + r'\s+=~', text))
    return out


# commands of a guest's script that may feed a pipe: text and listing
# tools, whose failure shows in what they print (nothing, or less, which
# the test's assertion on the output sees; and grep's status 1 for no
# match is no failure). Any other command (the project's tools, perf, a
# sleep the test times) reports its verdict by its status: a pipe loses it.
PIPE_SAFE = {'echo', 'printf', 'cat', 'ls', 'ps', 'dmesg', 'sed', 'grep', 'head',
             'tail', 'tr', 'od', 'cut', 'sort', 'uniq', 'wc', 'awk', 'seq', 'find'}
# what starts a command in a guest's script (after it, the next word is a
# command's name)
SCRIPT_SEP = re.compile(r'(?:\|\||&&|[;&(){}`\n]|\$\()')
SCRIPT_KEYWORDS = {'if', 'then', 'elif', 'else', 'while', 'until', 'do', '!', 'time'}


def host_words(raw, i):
    """The script a guest call passes (its arguments, joined with spaces as
    the guest helper does), read from raw[i:] up to the end of the host's
    command: quotes removed as bash removes them; an expansion of the host
    ($var, ${...}, $(...)) is the word X (what it holds is not known)."""
    words, cur, have = [], [], False

    def skip_sub(j):
        # raw[j] is the "(" of "$(": the index after its ")"
        depth, q = 0, None
        while j < len(raw):
            ch = raw[j]
            if q:
                if ch == '\\' and q == '"':
                    j += 1
                elif ch == q:
                    q = None
            elif ch in '\'"':
                q = ch
            elif ch == '(':
                depth += 1
            elif ch == ')':
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return j

    def expansion(j):
        # raw[j] is "$": (index after the expansion, True) or (j, False)
        if raw.startswith('$(', j):
            return skip_sub(j + 1), True
        if raw.startswith('${', j):
            k = raw.find('}', j)
            return (k + 1 if k >= 0 else len(raw)), True
        m = re.match(r'\$(?:[A-Za-z_]\w*|[0-9#?@*$!-])', raw[j:])
        if m:
            return j + m.end(), True
        return j, False

    while i < len(raw):
        ch = raw[i]
        if ch == '\\' and raw.startswith('\\\n', i):
            i += 2
            continue
        if ch in ' \t':
            if have:
                words.append(''.join(cur))
                cur, have = [], False
            i += 1
            continue
        if ch in '\n|&;<>)`':
            break
        have = True
        if ch == "'" or raw.startswith("$'", i):
            i += 1 if ch == "'" else 2
            k = raw.find("'", i)
            k = len(raw) if k < 0 else k
            cur.append(raw[i:k])
            i = k + 1
        elif ch == '"':
            i += 1
            while i < len(raw) and raw[i] != '"':
                if raw[i] == '\\' and i + 1 < len(raw):
                    nxt = raw[i + 1]
                    if nxt == '\n':
                        i += 2
                        continue
                    cur.append(nxt if nxt in '$`"\\' else raw[i:i + 2])
                    i += 2
                    continue
                if raw[i] == '$':
                    j, ok = expansion(i)
                    if ok:
                        cur.append('X')
                        i = j
                        continue
                cur.append(raw[i])
                i += 1
            i += 1
        elif ch == '\\' and i + 1 < len(raw):
            cur.append(raw[i + 1])
            i += 2
        elif ch == '$':
            j, ok = expansion(i)
            cur.append('X' if ok else '$')
            i = j if ok else i + 1
        else:
            cur.append(ch)
            i += 1
    if have:
        words.append(''.join(cur))
    return ' '.join(words)


def script_pipes(script):
    """The commands of a shell script (a guest's) whose status a pipe
    loses: the first word of every stage of a pipeline but the last, but
    those of PIPE_SAFE, and none after a `set -o pipefail`."""
    out, i, q = [], 0, None
    first = None        # the current command's name, once read
    at_cmd = True       # the next word is a command's name
    while i < len(script):
        ch = script[i]
        if q:
            if ch == '\\' and q == '"':
                i += 2
                continue
            if ch == q:
                q = None
            i += 1
            continue
        if ch == '\\':
            i += 2
            continue
        if ch in '\'"':
            q = ch
            i += 1
            continue
        if ch == '#' and (i == 0 or script[i - 1] in ' \t\n;'):
            k = script.find('\n', i)
            i = len(script) if k < 0 else k
            continue
        if re.match(r'set\s+-o\s+pipefail\b', script[i:]) and at_cmd:
            return out
        if ch == '|' and not script.startswith('||', i):
            if first and first not in PIPE_SAFE:
                out.append(first)
            first, at_cmd = None, True
            i += 1
            continue
        m = SCRIPT_SEP.match(script, i)
        if m:
            first, at_cmd = None, True
            i = m.end()
            continue
        if ch in ' \t':
            i += 1
            continue
        m = re.match(r'[^\s|&;(){}`\'"\\]+', script[i:])
        if m:
            word = m.group(0)
            if at_cmd and word not in SCRIPT_KEYWORDS and \
                    not re.fullmatch(r'[A-Za-z_]\w*=.*', word):
                first, at_cmd = word, False
            i += m.end()
            continue
        i += 1
    return out


def alt_profiles():
    """What make check runs the simulator's alternatives with: the default
    of each (helpers.bash's alt()), and the values tests/check.sh's
    profiles (htm_alt) set, for the suites that take a profile in the lanes
    that run them: ({NAME: {VALUE}}, {SUITE: {NAME: {VALUE}}})."""
    defaults, per_suite = {}, {}
    try:
        helpers = open(os.path.join(TOP, 'tests/bats/helpers.bash')).read()
        check = open(os.path.join(TOP, 'tests/check.sh')).read()
    except OSError:
        return defaults, per_suite
    m = re.search(r'^alt\(\) \{\n(.*?)^\}', helpers, re.M | re.S)
    for name, value in re.findall(r'^\s*([a-z_]+)\)\s*echo\s+(\w+)\s*;;', m.group(1) if m else '',
                                  re.M):
        defaults.setdefault(name, set()).add(value)
    profiles = {}
    m = re.search(r'declare -A htm_alt=\((.*?)\)\n', check, re.S)
    for spec, values in re.findall(r'\[([^\]]+)\]="([^"]*)"', m.group(1) if m else ''):
        profiles[spec] = [v.split('=', 1) for v in values.split() if '=' in v]
    suites = {}
    m = re.search(r'declare -A stock_suites=\((.*?)\)\n', check, re.S)
    for spec, files in re.findall(r'\[([^\]]+)\]="([^"]*)"', m.group(1) if m else ''):
        suites[spec] = files.split()
    m = re.search(r'^\s*([\w.|]+)\)\s*\n\s*alt=\$\{htm_alt', check, re.M)
    takers = m.group(1).split('|') if m else []
    for spec, values in profiles.items():
        for suite in suites.get(spec, []):
            if suite in takers:
                for name, value in values:
                    per_suite.setdefault(suite, {}).setdefault(name, set()).add(value)
    return defaults, per_suite


def lint(path, wrapped=None, funcs=(), numeric=()):
    with open(path) as f:
        text = f.read()
    raw = text.split('\n')
    code, top, nosq, open_at_eol = scan(text)
    findings = []
    wrapped = wrapped or {}
    names = GUEST + ''.join('|' + re.escape(n) for n in wrapped if not re.fullmatch(GUEST, n))
    guest_pipe = re.compile(r'(?:^|[;&|(!]|\brun(?:\s+-\d+|\s+--separate-stderr|\s+!)*)\s*'
                            r'(?:' + names + r')(?=[\s|])[^|;&]*(?<!\|)\|(?!\|)')
    guest_empty = re.compile(r'(?:\[\[?|test)\s+-z\s+"?\$\(\s*(?:' + names + r')(?=[\s)])')
    unsafe = [n for n, (_, line) in wrapped.items() if line]
    subst = (re.compile(r'(?:\$\(|\brun(?:\s+-\d+|\s+--[a-z-]+|\s+!)*)\s*(' +
                        '|'.join(re.escape(n) for n in unsafe) + r')(?=[\s)]|$)')
             if unsafe else None)

    def add(line, rule, what):
        findings.append(f'{os.path.relpath(path, TOP)}:{line}: {rule}: {what}: '
                        f'{raw[line - 1].strip()}')

    # the suite's own functions that do not ask the guest: what they print
    # is the host's arithmetic (e.g. dump_size)
    local_funcs = ({n for n, _, _ in bodies_of(code) if n and n not in wrapped} |
                   {n for n in funcs if n not in wrapped})
    bodies = [(s, e) for _, s, e in bodies_of(code)]
    in_body = set()
    for start, end in bodies:
        in_body.update(range(start, end))
        stmts = statements(code, top, nosq, open_at_eol, start, end)
        pipefail = False
        unchecked = {}      # variable: a command's output, not yet checked
        for n, (line, c, t, ns) in enumerate(stmts):
            last = n == len(stmts) - 1
            if re.search(r'\bset\s+-o\s+pipefail\b', c):
                pipefail = True
            m = COND.match(t)
            tail = m.group(1) if m else ('' if re.match(r'^\s*(?:if|elif|while|until)\b', t)
                                         else t)
            if not last:
                parts = re.split(r'&&', tail)
                if len(parts) > 1 and any(ASSERT.match(p) for p in parts[-1:]):
                    add(line, 'and-list', 'an && list ending in an assertion, mid-test')
                elif len(parts) > 1 and all(ASSERT.match(p) for p in parts):
                    add(line, 'and-list', 'assertions joined by &&, mid-test')
                elif len(parts) > 1 and re.match(r'^\s*!\s', parts[-1]):
                    add(line, 'and-list', 'an && list ending in a negation, mid-test')
                if re.match(r'^\s*!\s', tail):
                    add(line, 'negation', 'a negated command fails nothing mid-test')
            if guest_pipe.search(c) and not pipefail and 'PIPESTATUS' not in ns:
                add(line, 'guest-pipe', "a guest command piped: its status is lost")
            if subst:
                for w in subst.finditer(c):
                    add(line, 'guest-subst',
                        f'{w.group(1)} runs without errexit here, and ignores a failure of '
                        f'its guest call ({os.path.basename(wrapped[w.group(1)][0])}:'
                        f'{wrapped[w.group(1)][1]}, no || return)')
            if RUN_NOT.search(t):
                add(line, 'run-not', 'run ! accepts the harness\'s 124 and 125: run -N')
            if guest_empty.search(c):
                add(line, 'guest-empty', 'a guest command\'s answer tested for empty: '
                    'its status is lost')
            # arithmetic on a command's output nobody checked
            for v in checked_vars(ns):
                unchecked.pop(v, None)
            for region in arith_regions(ns):
                subs = re.findall(r'(?<!\\)\$\((?!\()\s*(\S*)', region)
                if any(cmd not in NUMBER_CMDS and cmd not in local_funcs for cmd in subs):
                    add(line, 'arith-unchecked', "a command's output in arithmetic: "
                        "empty counts as 0")
                    continue
                bad = sorted(v for v in re.findall(r'\$?\{?([A-Za-z_]\w*)', region)
                             if v in unchecked)
                if bad:
                    add(line, 'arith-unchecked', f'{", ".join(bad)}: a command\'s output '
                        'in arithmetic, no numeric check first: empty counts as 0')
            for v, cmd, _ in ASSIGN_SUB.findall(ns):
                if cmd not in NUMBER_CMDS and cmd not in local_funcs and cmd not in numeric:
                    unchecked[v] = line
                else:
                    unchecked.pop(v, None)
            # run, no status check, then only negative assertions
            r = RUN.match(t)
            if r and not re.search(r'-\d|!', r.group(1)) and not re.search(r'&&|\|\|', t):
                follow = []
                for _, c2, t2, ns2 in stmts[n + 1:]:
                    if RUN.match(t2):
                        break
                    follow.append((t2, ns2))
                if not any(re.search(r'\bstatus\b', ns2) for _, ns2 in follow):
                    checks = [(t2, ns2) for t2, ns2 in follow
                              if POSITIVE_CMD.match(t2) or re.search(r'\bgrep\b', t2)]
                    if checks and all(NEGATIVE.search(ns2) for _, ns2 in checks):
                        add(line, 'run-negative', 'run with no status check, then only '
                            'negative assertions: a failed command passes them')
    # every line: the status check (a guest's shell's own is escaped, or
    # in single quotes)
    for k, line in enumerate(nosq):
        if STATUS_NE_0.search(line):
            add(k + 1, 'status-ne-0', 'expect the exact status')
    for start, end in [(0, len(code))]:
        for line, c, t, ns in statements(code, top, nosq, open_at_eol, start, end):
            if line in in_body or any(s <= line - 1 < e for s, e in bodies):
                continue
            if guest_pipe.search(c) and 'PIPESTATUS' not in ns:
                add(line, 'guest-pipe', "a guest command piped: its status is lost")
            if RUN_NOT.search(t):
                add(line, 'run-not', 'run ! accepts the harness\'s 124 and 125: run -N')
    # the guest's own script: a pipe there loses a command's status too
    call = re.compile(r'(?:^|[;&|({!`]|\$\(|\brun(?:\s+-\d+|\s+--[a-z-]+|\s+!)*|'
                      r'\b(?:if|elif|while|until|then|do|else|time)|^\s*(?:[A-Za-z_]\w*=\S*\s+)+)'
                      r'\s*(' + names + r')(?=\s|$)', re.M)
    for line, c, t, ns in statements(code, top, nosq, open_at_eol, 0, len(code)):
        stmt = '\n'.join(raw[line - 1:line + c.count('\n')])
        for m in call.finditer(c):
            lost = script_pipes(host_words(stmt, m.end()))
            if lost:
                add(line, 'guest-script-pipe', f"a pipe in the guest's script loses the status "
                    f"of {', '.join(lost)} (set -o pipefail there, or take the output first)")
    # a branch on a value of the simulator's alternatives that no lane of
    # make check runs this file with
    defaults, per_suite = alt_profiles()
    runs = {n: set(v) for n, v in defaults.items()}
    for suite, alts in per_suite.items():
        if os.path.basename(path) in (suite, 'helpers.bash'):
            for n, v in alts.items():
                runs.setdefault(n, set()).update(v)
    alt_vars = dict(re.findall(r'\b([A-Za-z_]\w*)=\$\(alt\s+([a-z_]+)\)', '\n'.join(nosq)))
    ref = (r'(?<![\w)])"?\$(?:\(alt\s+([a-z_]+)\)|\{?(' + '|'.join(map(re.escape, alt_vars)) + r')\b\}?)"?'
           if alt_vars else r'(?<![\w)])"?\$\(alt\s+([a-z_]+)\)()"?')
    cmp_re = [re.compile(ref + r'\s+(?:==?|!=)\s+"?([A-Za-z0-9_]+)\b'),
              re.compile(r'(?<![\w$])"?([A-Za-z0-9_]+)"?\s+(?:==?|!=)\s+' + ref)]
    case_re = re.compile(r'\bcase\s+' + ref + r'\s+in\b')

    def unset_alt(line, name, value):
        if name in runs and value not in runs[name]:
            add(line, 'alt-unset', f'{name}={value}: no lane of make check runs this file '
                f'with it (tests/check.sh htm_alt, helpers.bash alt()): what depends on it never runs')

    for k, text in enumerate(nosq):
        m = cmp_re[0].search(text)
        if m:
            unset_alt(k + 1, m.group(1) or alt_vars.get(m.group(2)), m.group(3))
        m = cmp_re[1].search(text)
        if m:
            unset_alt(k + 1, m.group(2) or alt_vars.get(m.group(3)), m.group(1))
        m = case_re.search(text)
        if m:
            name = m.group(1) or alt_vars.get(m.group(2))
            for j in range(k + 1, len(nosq)):
                if re.match(r'\s*esac\b', nosq[j]):
                    break
                pm = re.match(r'\s*\(?([\w|]+)\)', nosq[j])
                if pm:
                    for value in pm.group(1).split('|'):
                        unset_alt(j + 1, name, value)
    return sorted(set(findings), key=lambda f: (int(f.split(':')[1]), f))


def main():
    args, exclude = sys.argv[1:], set()
    while args and args[0] == '--exclude':
        exclude.add(args[1])
        args = args[2:]
    files = args or sorted(glob.glob(os.path.join(TOP, 'tests/bats/*.bats')) +
                           glob.glob(os.path.join(TOP, 'tests/bats/*.bash')))
    helpers = os.path.join(TOP, 'tests/bats/helpers.bash')
    findings = []
    for f in files:
        if os.path.basename(f) not in exclude:
            # the file's guest wrappers, and helpers.bash's where it loads them
            text = open(f).read()
            srcs = [f]
            if re.search(r'^\s*load\s+(?:\S*/)?helpers\b', text, re.M) and f != helpers:
                srcs.insert(0, helpers)
            findings += lint(f, *wrappers(srcs))
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
