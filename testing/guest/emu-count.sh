#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In a guest on the emulated PMU (make check's phase "the emulated PMU",
# through emu-suite.sh): pmu=auto's pick, perf and pctr counting the
# calibrated loop (./loop), pctr stat, the self-check and the hand-over
# of the counters between perf and pctr.  Its lines are read by
# testing/phases/emu-results.sh (handover_results).
#
dmesg -s 1048576 | grep -E 'pctr: (intel|amd)' | head -n 1
pctr info | sed -n 2p
for n in 100000 900000; do
	perf stat -x, -e instructions:u,branches:u ./loop $n 2>&1 |
		sed -n "s/^\([0-9]*\),,\(instructions\|branches\):u.*/perf $n \2 \1/p"
	./loop --pctr $n | sed "s/^pctr/pctr $n/"
	pctr stat -x, -e instructions,cycles,branches -- ./loop $n 2>&1 |
		sed -n "s/^\([0-9.]*\),\([a-z]*\)[:,].*/stat $n \2 \1/p"
done
pctr selfcheck 2>&1 | tail -n 1
# The hand-over: perf counting, pctr refused (EBUSY and the hint: the
# self-check skips its checks then), and back.
# Each side's taking and handing back is waited for, not slept on: a
# loaded host (the debug kernel's guest runs beside these) makes perf's
# start slow, and pctr hands the PMU back from a work item.
# pctr hands the counters back from a work item after its last user
# (the self-check above) ends: until then perf's events are refused.
i=0
while [ $i -lt 20 ] && [ "$(cat /sys/class/misc/pctr/taken)" != 0 ]; do sleep 1; i=$((i + 1)); done
# perf is ended by hand once pctr has tried (SIGTERM: its descriptors
# close as it exits, and wait returns after that).
perf stat -e instructions -a sleep 120 >/dev/null 2>&1 &
pp=$!
i=0
while [ $i -lt 20 ] && ! ls -l /proc/$pp/fd 2>/dev/null | grep -q perf_event; do
	sleep 1; i=$((i + 1))
done
sleep 1
pctr selfcheck --no-perf >handover1.out 2>&1
echo "handover pctr-while-perf status $?"
grep -m 1 -E 'EBUSY|busy|in use by perf' handover1.out | sed 's/^/handover: /'
kill $pp
wait $pp
./loop --pctr 1000 >/dev/null 2>&1; echo "handover pctr-after-perf status $?"
# pctr counting, perf refused, and back.  The holder is ended by hand
# once perf has tried, not after a fixed time: on a loaded host perf's
# start alone once outlasted a 6 s hold, and perf counted.
# The holder starts once the last user's hand-back is done (a stale
# "taken" of 1 once let perf start first), and perf once the holder says
# its counters are programmed.
taken() { cat /sys/class/misc/pctr/taken 2>/dev/null; }
i=0
while [ $i -lt 60 ] && [ "$(taken)" != 0 ]; do sleep 1; i=$((i + 1)); done
./loop --hold 120 >hold.out 2>&1 &
hold=$!
i=0
while [ $i -lt 120 ] && ! grep -q '^pctr holding' hold.out; do
	sleep 1; i=$((i + 1))
done
echo "hold: $(cat hold.out), taken $(taken)"
perf stat -x, -e instructions:u true 2>&1 | sed 's/^/perf-while-pctr: /'
kill $hold
wait $hold
i=0
while [ $i -lt 20 ] && [ "$(taken)" != 0 ]; do sleep 1; i=$((i + 1)); done
perf stat -x, -e instructions:u true 2>&1 | sed 's/^/perf-after-pctr: /'
