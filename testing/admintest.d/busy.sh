#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# On the emulated Intel PMU with the NMI watchdog kept (testing/admintest):
# EBUSY's message names who holds the counters, and what it says to do
# works.  The watchdog first (its sysctl), then a perf session (its pid).
. /work/lib.sh

echo "admin: kernel.nmi_watchdog is $(cat /proc/sys/kernel/nmi_watchdog), backend $(cat /sys/class/misc/pctr/backend)"
check "EBUSY while the NMI watchdog holds the counters: names it and its sysctl" 1 \
	'hold: set: the counters are in use by the NMI watchdog (free them: sudo sysctl kernel.nmi_watchdog=0)$' \
	-- ./hold INSTRUCTION_RETIRED 0
sysctl -w kernel.nmi_watchdog=0 >/dev/null
check "after the sysctl the message gave, pctr counts" 0 '^hold: counting' -- ./hold INSTRUCTION_RETIRED 0
# pctr hands the counters back from a work item after its last user
# ends: until then perf's events would be refused.  Wait for it, as a
# user would have to.
i=0
while [ $i -lt 20 ] && [ "$(cat /sys/class/misc/pctr/taken)" != 0 ]; do
	sleep 1
	i=$((i + 1))
done
perf stat -e instructions -a sleep 12 >/dev/null 2>&1 &
perf=$!
# Until perf holds its events (a loaded host makes its start slow).
i=0
while [ $i -lt 15 ] && ! ls -l /proc/$perf/fd 2>/dev/null | grep -q perf_event; do
	sleep 1
	i=$((i + 1))
done
sleep 1
check "EBUSY while perf counts: names perf's process" 1 \
	"hold: set: the counters are in use by perf events of pid $perf (perf) (end them)\$" \
	-- ./hold INSTRUCTION_RETIRED 0
wait
exit 0
