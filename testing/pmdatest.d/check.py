#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# testing/pmdatest's judge: reads the guest's output (testing/pmdatest.d/
# guest.sh) and prints one "PASS: pmda: ..." or "FAIL: pmda: ..." line a
# check; exit status 1 if any failed.
#
#   check.py LOG METRICS EVENTS DEFAULTS IPC BADS...
#
# METRICS, EVENTS: files of the static metric names and the configured
# events' metric names; DEFAULTS: the backend's default events, comma
# separated; IPC: 1 if pctr.derived.ipc must have values; BADS:
# "NAME:TEXT" for each refusal the log must show (TEXT in the agent's log).
import re
import sys

log, metrics_f, events_f, defaults, want_ipc = sys.argv[1:6]
bads = sys.argv[6:]
text = open(log, errors='replace').read()
metrics = open(metrics_f).read().split()
events = open(events_f).read().split()
fails = 0


def result(ok, what):
    global fails
    print(('PASS' if ok else 'FAIL') + ': pmda: ' + what)
    if not ok:
        fails += 1


def section(name):
    m = re.search(r'^=== ' + re.escape(name) + r'( [^\n]*)?\n(.*?)^=== END([^\n]*)$',
                  text, re.S | re.M)
    if not m:
        return (None, None)
    return (m.group(2), (m.group(1) or '') + m.group(3))


def blocks(out, cmd):
    """Each command's output: [(argument, text up to the next command)]."""
    parts = re.split(r'^(open|children|instance|desc|fetch|text|wait) ?(.*)$',
                     out, flags=re.M)
    res = []
    for i in range(1, len(parts) - 2, 3):
        if parts[i] == cmd:
            res.append((parts[i + 1].strip(), parts[i + 2]))
    return res


def values(block):
    """{instance: value} of a fetch's output, or None without values."""
    if 'No values' in block or 'numval: 0' in block:
        return None
    if re.search(r'numval: -|\bError:', block):
        return None
    vals = {}
    for m in re.finditer(r'inst \[(\d+)[^\]]*\] value (\S+)', block):
        vals[int(m.group(1))] = m.group(2)
    m = re.search(r'numval: 1 .*\n\s+value (.+)', block)
    if m and not vals:
        vals[None] = m.group(1)
    return vals or None


ncpu = re.search(r'^NCPU (\d+)', text, re.M)
ncpu = int(ncpu.group(1)) if ncpu else 0
main, rc = section('SESSION main')
result(main is not None and 'Start pmdapctr PMDA' in main,
       'dbpmda started the agent (%s)' % (rc or 'no session').strip())
main = main or ''

kids = blocks(main, 'children')
leaves = re.findall(r'leaf (\S+)', kids[0][1]) if kids else []
result(sorted(leaves) == sorted(events),
       'pctr.hwcounters names the configured events: %s' % ' '.join(leaves))
inst = blocks(main, 'instance')
names = re.findall(r'name: "(cpu\d+)"', inst[0][1]) if inst else []
result(ncpu > 0 and names == ['cpu%d' % i for i in range(ncpu)],
       'one instance per CPU: %s (%d CPUs)' % (' '.join(names), ncpu))

descs = dict(blocks(main, 'desc'))
fetches = blocks(main, 'fetch')
texts = dict(blocks(main, 'text'))
for m in metrics:
    d = descs.get(m, '')
    result('Data Type' in d, '%s: described' % m)
    f = [b for a, b in fetches if a == m]
    if m == 'pctr.derived.ipc':
        continue
    result(bool(f) and values(f[0]) is not None, '%s: fetched a value' % m)
for m in metrics + ['pctr.hwcounters.' + e for e in events]:
    t = texts.get(m, '')
    result(re.search(r'^\[.+\]$', t, re.M) is not None and
           len(t.strip().splitlines()) >= 3,
           '%s: help text, one line and long' % m)

for e in events:
    m = 'pctr.hwcounters.' + e
    d = descs.get(m, '')
    result('Semantics: counter' in d and 'Units: count' in d and
           '64-bit unsigned' in d and 'InDom: 452.0' in d,
           '%s: a 64-bit counter of events per CPU' % m)
    f = [values(b) for a, b in fetches if a == m]
    ok = len(f) == 2 and all(f) and \
        sorted(k for k in f[0]) == list(range(ncpu)) and \
        all(int(f[1][c]) > int(f[0][c]) for c in range(ncpu))
    result(ok, '%s: a value for each CPU, each advancing: %s' % (m, f))

# The last two: the fetches a second apart.
ipc = [values(b) for a, b in fetches if a == 'pctr.derived.ipc'][-2:]
if want_ipc == '1':
    ok = len(ipc) == 2 and all(ipc) and \
        all(0 < float(v) < 10 for i in ipc for v in i.values())
    result(ok, 'pctr.derived.ipc: a plausible IPC per CPU: %s' % ipc)
else:
    result(len(ipc) == 2 and not any(ipc),
           'pctr.derived.ipc: no value without instructions and cycles')

dflt, _ = section('SESSION defaults')
leaves = re.findall(r'leaf (\S+)', dflt or '')
result(sorted(leaves) == sorted(defaults.split(',')),
       'no configuration: the backend defaults %s (%s)' %
       (defaults, ' '.join(leaves)))

ident, _ = section('IDENTITY')
result(re.search(r'^Uid:\s+1000\s+1000\s+1000\s+1000', ident or '', re.M)
       is not None,
       'the agent runs as the user -U names once the CPUs are bound: %s' %
       (ident or 'no status').strip())

for b in bads:
    name, want = b.split(':', 1)
    out, rc = section('BAD ' + name)
    ok = out is not None and rc.strip() == 'rc=1' and want in out
    result(ok, '%s refused, its log saying "%s" (%s)' %
           (name, want, (out or 'no output').strip().splitlines()[-1:]))

print('pmda: %d failed' % fails)
sys.exit(1 if fails else 0)
