#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/pmdatest's guest half: pmdapctr driven by PCP's dbpmda (no
# pmcd), its output between markers for the host to judge
# (testing/pmdatest.d/check.py).  In /work: the agent, dbpmda, pmcpp (the
# PMNS is read through it), a pcp.conf naming /work and /tmp, the root,
# pmns and help files, test.conf (the events to count), metrics (every
# static metric's name), events (test.conf's metric names) and bad*.conf.
#
#   sh ./guest.sh
export PCP_CONF=/work/pcp.conf
cd /work || exit 1
# As pmcd would start it: as root, to run as "user" (uid 1000) once
# the CPUs are bound.
agent="/work/pmdapctr -d 452 -U user -h /work/help"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo "NCPU $ncpu"

# Every static metric: its description, a value, its help; the CPUs;
# each event twice, a second apart; the IPC between those fetches.
{
	echo "open pipe $agent -l /tmp/pctr.log -c /work/test.conf"
	echo "children pctr.hwcounters"
	echo "instance 452.0"
	while read -r m; do
		echo "desc $m"
		echo "fetch $m"
		echo "text $m"
	done <metrics
	while read -r e; do
		echo "desc pctr.hwcounters.$e"
		echo "text pctr.hwcounters.$e"
	done <events
	for n in 1 2; do
		while read -r e; do
			echo "fetch pctr.hwcounters.$e"
		done <events
		echo "fetch pctr.derived.ipc"
		[ $n = 1 ] && echo "wait 1"
	done
} >cmds
echo "=== SESSION main"
./dbpmda -n /work/root -e <cmds 2>&1
echo "=== END rc=$?"
echo "=== LOG main"
cat /tmp/pctr.log
echo "=== END"

# No configuration file: the backend's defaults.
printf 'open pipe %s -l /tmp/def.log -c /work/none.conf\nchildren pctr.hwcounters\n' \
	"$agent" | ./dbpmda -n /work/root -e >/tmp/def.out 2>&1
echo "=== SESSION defaults"
cat /tmp/def.out
echo "=== END"

# Bad configurations: the agent stops, its log names the file and line.
for c in bad*.conf; do
	./pmdapctr -d 452 -U root -l "/tmp/$c.log" -c "/work/$c" </dev/null
	echo "=== BAD $c rc=$?"
	cat "/tmp/$c.log"
	echo "=== END"
done

# A second agent while one counts: refused, saying the CPUs are taken.
sleep 60 | ./pmdapctr -d 452 -U user -l /tmp/first.log -c /work/test.conf >/dev/null &
first=$!
sleep 3
echo "=== IDENTITY"
grep '^Uid:' "/proc/$first/status"
echo "=== END"
./pmdapctr -d 452 -U root -l /tmp/second.log -c /work/test.conf </dev/null
echo "=== BAD second-agent rc=$?"
cat /tmp/second.log
echo "=== END"
kill "$first"
wait "$first" 2>/dev/null

# perf holding the counters (the emulated PMU with perf only): EBUSY, the
# holder named.
if [ -x /bin/perf ]; then
	/bin/perf stat -a -e cycles -- sleep 30 >/dev/null 2>&1 &
	sleep 3
	./pmdapctr -d 452 -U root -l /tmp/perf.log -c /work/test.conf </dev/null
	echo "=== BAD perf-holds rc=$?"
	cat /tmp/perf.log
	echo "=== END"
fi
