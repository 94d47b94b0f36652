#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The emulated PMU's flags (issue 26 point 10), in every emulated-PMU
# guest (run by emu-suite.sh, with pctr loaded and perf there).
nmis() { awk '/^ *NMI:/ { s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; print s }' /proc/interrupts; }
# The instrument's own fault (issue 26 point 10): QEMU's cmpxchg8b and
# cmpxchg16b computed the flags they leave from a stale cc_op, so a
# block that began with cc_op "flags as such" and ran a cmp first got
# the cmp's operand as RFLAGS; on the vCPU's next exit from its loop
# those bits (TF among them) stayed, and the kernel warned in
# exc_debug_kernel.  flagstress checks the flags of add/adc/sbb/cmp
# chains, of cmpxchg8b/16b after cmp, and every RFLAGS it reads, alone
# and while overflow interrupts land every few thousand instructions,
# in user and kernel code (perf record, unthrottled), and under pctr
# record.
if [ -x ./flagstress ]; then
	r0=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	p0=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)
	echo "flags: alone: $(./flagstress 3000 2>&1 | tail -n 1)"
	echo 10000000 >/proc/sys/kernel/perf_event_max_sample_rate
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
	n0=$(nmis)
	perf record -q -e instructions -c 2000 -o f.data ./flagstress 3000 >f.out 2>&1
	rc=$?
	echo "flags: under perf record: $(grep '^flagstress:' f.out | tail -n 1), status $rc, nmis $(($(nmis) - n0))"
	echo "$p0" >/proc/sys/kernel/perf_cpu_time_max_percent
	echo "$r0" >/proc/sys/kernel/perf_event_max_sample_rate
	n0=$(nmis)
	/pctr/tools/pctr record -e instructions -c 5000 -o g.data -- ./flagstress 3000 >g.out 2>&1
	rc=$?
	echo "flags: under pctr record: $(grep '^flagstress:' g.out | tail -n 1), status $rc, nmis $(($(nmis) - n0))"
	grep -E '^flagstress: iteration' f.out g.out | head -n 5 | sed 's/^/flags: /'
fi
