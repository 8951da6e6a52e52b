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
  negation      `! cmd` fails nothing. `run -N cmd` with the exact status.
and anywhere:
  guest-pipe    `guest ... | cmd` (guest, guest_dmesg, guest_py, ...): the
                guest's status (124 timed out, 125 no guest) is dropped, and
                an empty answer often passes. Take the output first (`run -0
                guest ...`, `out=$(guest ...) || ...`), or set -o pipefail,
                or look at PIPESTATUS.
  status-ne-0   `[ "$status" -ne 0 ]` also accepts the harness's own 124 and
                125: expect the exact status.

What a guest's shell runs (quoted text) is not looked at: only what bash
runs on the host. Prints FILE:LINE: RULE: text for each finding; exit
status 1 if there is one, 0 if none.
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
STATUS_NE_0 = re.compile(r'(?<!\\)\$\{?status\}?"?\s+(?:-ne|!=)\s+"?0\b')
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


def lint(path):
    with open(path) as f:
        text = f.read()
    raw = text.split('\n')
    code, top, nosq, open_at_eol = scan(text)
    findings = []

    def add(line, rule, what):
        findings.append(f'{os.path.relpath(path, TOP)}:{line}: {rule}: {what}: '
                        f'{raw[line - 1].strip()}')

    # bodies: a test or a function at the left margin, to a "}" there
    bodies, i = [], 0
    while i < len(code):
        if BODY_START.match(code[i]) and not code[i].startswith((' ', '\t')):
            j = i + 1
            while j < len(code) and code[j].rstrip() != '}':
                j += 1
            bodies.append((i + 1, j))
            i = j + 1
        else:
            i += 1
    in_body = set()
    for start, end in bodies:
        in_body.update(range(start, end))
        stmts = statements(code, top, nosq, open_at_eol, start, end)
        pipefail = False
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
                if re.match(r'^\s*!\s', tail):
                    add(line, 'negation', 'a negated command fails nothing mid-test')
            if GUEST_PIPE.search(c) and not pipefail and 'PIPESTATUS' not in ns:
                add(line, 'guest-pipe', "a guest command piped: its status is lost")
    # every line: the status check (a guest's shell's own is escaped, or
    # in single quotes)
    for k, line in enumerate(nosq):
        if STATUS_NE_0.search(line):
            add(k + 1, 'status-ne-0', 'expect the exact status')
    for start, end in [(0, len(code))]:
        for line, c, _, ns in statements(code, top, nosq, open_at_eol, start, end):
            if line in in_body or any(s <= line - 1 < e for s, e in bodies):
                continue
            if GUEST_PIPE.search(c) and 'PIPESTATUS' not in ns:
                add(line, 'guest-pipe', "a guest command piped: its status is lost")
    return sorted(set(findings), key=lambda f: int(f.split(':')[1]))


def main():
    args, exclude = sys.argv[1:], set()
    while args and args[0] == '--exclude':
        exclude.add(args[1])
        args = args[2:]
    files = args or sorted(glob.glob(os.path.join(TOP, 'tests/bats/*.bats')) +
                           glob.glob(os.path.join(TOP, 'tests/bats/*.bash')))
    findings = []
    for f in files:
        if os.path.basename(f) not in exclude:
            findings += lint(f)
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
