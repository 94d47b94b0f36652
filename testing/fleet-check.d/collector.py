#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# testing/fleet-check's collector: on this host, pmlogger for each guest's
# pmcd and pmproxy, the guests driven through their command ports
# (ctl.sh), then the archives and pmproxy's /metrics judged.
#
#   collector.py OUT COUNT EXPECT restart|kill PMCD1 CTL1 PMCD2 CTL2 PROXY
import os
import re
import signal
import socket
import subprocess
import sys
import time

out, count, expect, restart = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ports = [int(p) for p in sys.argv[5:10]]
hosts = {'intel': (ports[0], ports[1]), 'amd': (ports[2], ports[3])}
proxy = ports[4]
BIN = '/usr/lib/pcp/bin'
failed = 0
procs = []
procs_start = time.time()


def recv_all(s):
    """Everything socket s sends until it closes."""
    data = b''
    while True:
        b = s.recv(65536)
        if not b:
            return data
        data += b


def check(ok, what):
    global failed
    print('%s: fleet: %s' % ('PASS' if ok else 'FAIL', what), flush=True)
    failed |= not ok
    return ok


def command(h, line, timeout=600):
    """One command to guest h's ctl.sh; its answer."""
    with socket.create_connection(('127.0.0.1', hosts[h][1]), timeout=timeout) as s:
        s.sendall((line + '\n').encode())
        s.shutdown(socket.SHUT_WR)
        data = recv_all(s)
    return data.decode(errors='replace').strip()


def answer(h, line, what):
    """Guest h's command line: the guest's times when it started and ended."""
    a = command(h, line).split()
    check(len(a) == 4 and a[:2] == ['done', '0'], '[%s] %s (%s)' % (h, what, ' '.join(a)))
    return (float(a[2]), float(a[3])) if len(a) == 4 else (0, 0)


def pminfo(h, *args):
    return subprocess.run(['pminfo', '-h', 'localhost:%d' % hosts[h][0]] + list(args),
                          capture_output=True, text=True, timeout=60)


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


def main():
    # The guests boot (the first builds the module): pmcd answers, the
    # agent's metrics with it.
    for h in hosts:
        deadline = time.time() + 900
        while time.time() < deadline:
            r = pminfo(h, '-f', 'pctr.agent.cpus')
            if r.returncode == 0 and 'value' in r.stdout:
                break
            time.sleep(3)
        if not check(r.returncode == 0 and 'value' in r.stdout,
                     '[%s] pmcd with pmdapctr reached through the port forward' % h):
            print(r.stdout + r.stderr)
            return
    with open(out + '/pmlogger.conf', 'w') as f:
        f.write('log mandatory on 1 sec {\n\tpctr.hwcounters\n\tpctr.agent.cpus\n}\n')
    for h in hosts:
        procs.append(subprocess.Popen(
            [BIN + '/pmlogger', '-h', 'localhost:%d' % hosts[h][0], '-c', out + '/pmlogger.conf',
             '-l', '%s/pmlogger-%s.log' % (out, h), '%s/archive-%s' % (out, h)]))
    with open(out + '/pmproxy.conf', 'w') as f:
        f.write('[pmproxy]\npcp.enabled = true\nhttp.enabled = true\n'
                'redis.enabled = false\nsecure.enabled = false\n[redis]\nenabled = false\n'
                '[discover]\nenabled = false\n[pmseries]\nenabled = false\n'
                '[pmsearch]\nenabled = false\n')
    procs.append(subprocess.Popen(
        [BIN + '/pmproxy', '-f', '-p', str(proxy), '-i', '127.0.0.1', '-c', out + '/pmproxy.conf',
         '-l', out + '/pmproxy.log', '-s', out + '/pmproxy.socket']))
    # Each command's times are the guest's (its answer): the archive's
    # are the guest's too, pmcd's timestamps.
    times = {}
    time.sleep(8)		# idle, logged
    for n in (1, count):
        for h in hosts:
            times[(h, n)] = answer(h, 'work %d' % n, 'the guest ran loop %d' % n)
            time.sleep(3)
    # pmproxy's OpenMetrics for each pmcd.
    for h in hosts:
        metrics(h)
    times['restart'] = answer('intel', restart, 'pmcd stopped and started again (%s)' % restart)
    time.sleep(4)
    times['after'] = answer('intel', 'work %d' % count, 'the guest ran loop %d again' % count)
    time.sleep(3)
    alive = [p.poll() is None for p in procs]
    for i, h in enumerate(hosts):
        check(alive[i], '[%s] pmlogger still running at the end' % h)
    check(alive[2], 'pmproxy still running at the end')
    cleanup()
    for h in hosts:
        command(h, 'stop')
    for h in hosts:
        judge(h, times)


def archive(h):
    """pctr.hwcounters.instructions_u in h's archive: [(time, sum over
    the CPUs)], the times of <mark> records."""
    r = subprocess.run(['pmdumplog', '-Z', 'UTC', '%s/archive-%s' % (out, h),
                        'pctr.hwcounters.instructions_u'], capture_output=True, text=True)
    with open('%s/dump-%s.txt' % (out, h), 'w') as f:
        f.write(r.stdout + r.stderr)
    day = time.strftime('%Y-%m-%d', time.gmtime(procs_start))
    base = time.mktime(time.strptime(day, '%Y-%m-%d')) - time.timezone
    recs, marks, cur = [], [], None
    for line in r.stdout.splitlines():
        m = re.match(r'^(\d\d):(\d\d):(\d\d\.\d+)\s+(.*)', line)
        if m:
            t = base + int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
            if t < procs_start - 3600:
                t += 86400
            cur = None
            if '<mark>' in m[4]:
                marks.append(t)
            elif 'metric' in m[4]:
                cur = [t, 0, 0]
                recs.append(cur)
            continue
        m = re.search(r'value (\d+)$', line)
        if m and cur is not None:
            cur[1] += int(m[1])
            cur[2] += 1
    return [(t, v) for t, v, n in recs if n], marks


def delta(recs, t0, t1):
    """The count from the last record before t0 to the first after t1,
    and the number of intervals between them.  A quarter second more on
    each side: the guest's times are its uptime plus a boot time known to
    some hundredths (guest.sh), and a record inside the workload would
    miss a part of it."""
    t0, t1 = t0 - 0.25, t1 + 0.25
    before = [r for r in recs if r[0] <= t0]
    after = [r for r in recs if r[0] >= t1]
    if not before or not after:
        return None, 0
    i, j = recs.index(before[-1]), recs.index(after[0])
    return after[0][1] - before[-1][1], j - i


def judge(h, times):
    recs, marks = archive(h)
    if not check(len(recs) > 10, '[%s] pmlogger archived pctr.hwcounters.instructions_u '
                 '(%d records)' % (h, len(recs))):
        return
    # Idle: the largest one-interval delta before the first command.
    idle = [b[1] - a[1] for a, b in zip(recs, recs[1:])
            if b[0] <= times[(h, 1)][0]]
    bg = max(idle) if idle else None
    cal, _ = delta(recs, *times[(h, 1)])
    windows = [(count, times[(h, count)], 'the workload')]
    if h == 'intel':
        windows.append((count, times['after'], "the workload after pmcd's restart"))
    for n, (t0, t1), what in windows:
        d, k = delta(recs, t0, t1)
        if d is None or bg is None or cal is None:
            check(False, '[%s] %s in the archive (records around it: %s, idle intervals: %d)'
                  % (h, what, d is not None, len(idle)))
            continue
        lo, hi = 2 * expect, 2 * expect + cal + k * bg
        check(lo <= d <= hi, '[%s] %s: %d user-mode instructions over %d intervals, '
              'in [2N, 2N + loop 1 (%d) + %d x idle (%d)] = [%d, %d] for N = %d'
              % (h, what, d, k, cal, k, bg, lo, hi, expect))
    if h != 'intel':
        return
    t0, t1 = times['restart']
    gaps = [b[0] - a[0] for a, b in zip(recs, recs[1:]) if b[0] >= t0 and a[0] <= t1]
    mk = [t for t in marks if t0 <= t <= t1 + 5]
    check(mk or (gaps and max(gaps) > 2.5), "[intel] a gap in the archive at pmcd's restart "
          '(<mark> records %d, longest interval %.1f s)' % (len(mk), max(gaps or [0])))
    later = [r for r in recs if r[0] > t1]
    check(len(later) >= 5, "[intel] records after pmcd's restart (%d)" % len(later))


def http_get(url):
    """GET url: its Content-Type and body.  By hand: pmproxy 6.0.3 ends a
    chunked answer without its last chunk, which urllib refuses."""
    host, port, path = re.match(r'http://([^:/]+):(\d+)(/.*)', url).groups()
    with socket.create_connection((host, int(port)), timeout=60) as s:
        s.sendall(('GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n'
                   % (path, host)).encode())
        data = recv_all(s)
    head, _, body = data.partition(b'\r\n\r\n')
    lines = head.decode().split('\r\n')
    if ' 200 ' not in lines[0] + ' ':
        raise OSError(lines[0] + ': ' + body.decode(errors='replace')[:200])
    hdr = {k.lower(): v.strip() for k, _, v in (l.partition(':') for l in lines[1:])}
    if hdr.get('transfer-encoding') == 'chunked':
        out = b''
        while body:
            size, _, rest = body.partition(b'\r\n')
            n = int(size.split(b';')[0] or b'0', 16)
            if n == 0:
                break
            out, body = out + rest[:n], rest[n + 2:]
        body = out
    return hdr.get('content-type', ''), body.decode()


def metrics(h):
    """pmproxy's /metrics for h's pmcd, parsed as its Content-Type says."""
    from prometheus_client.parser import text_string_to_metric_families as text
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
    url = 'http://127.0.0.1:%d/metrics?names=pctr&hostspec=localhost:%d' % (proxy, hosts[h][0])
    try:
        kind, body = http_get(url)
    except Exception as e:
        check(False, '[%s] pmproxy /metrics answered (%s)' % (h, e))
        return
    with open('%s/metrics-%s.txt' % (out, h), 'w') as f:
        f.write(body)
    parser = om if 'openmetrics' in kind else text
    try:
        fams = {f.name: f for f in parser(body)}
    except Exception as e:
        check(False, '[%s] pmproxy /metrics parsed (%s: %s)' % (h, kind, e))
        return
    check(True, '[%s] pmproxy /metrics parsed by prometheus_client (%s, %d families)'
          % (h, kind, len(fams)))
    f = fams.get('pctr_hwcounters_instructions_u')
    cpus = sorted(s.labels.get('instname', '?') for s in f.samples) if f else []
    check(f is not None and f.type == 'counter' and cpus == ['cpu0', 'cpu1'],
          '[%s] pctr_hwcounters_instructions_u: a counter, one sample a CPU (%s)' % (h, cpus))
    total = sum(s.value for s in f.samples) if f else 0
    check(total >= 2 * expect, '[%s] its sum %d >= the workload 2N = %d'
          % (h, total, 2 * expect))
    for name in ('pctr_hwcounters_cycles', 'pctr_agent_cpus'):
        check(name in fams, '[%s] %s in /metrics' % (h, name))


try:
    main()
finally:
    cleanup()
sys.exit(1 if failed else 0)
