#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Overflow interrupts (issue 12), in the emulated PMU's perf guests (run
# by emu-suite.sh): libcpc's overflow example (cpc_bind_curlwp(3CPC)'s
# second) with PAPI_tot_ins, each overflow taken as an NMI; and perf
# record's own NMI sampling before and after, once pctr has given the
# PMU back.
nmis() { awk '/^ *NMI:/ { s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; print s }' /proc/interrupts; }
rec() {
	perf record -q -e instructions:u -c 100000 -o p.data ./loop 5000000 >/dev/null 2>&1
	echo "pmi: perf record $1 status $? samples $(perf script -i p.data 2>/dev/null | wc -l)"
}
rec before
n0=$(nmis)
EVENT0=PAPI_tot_ins PERIOD=200000 ./overflow >ov.out 2>&1
echo "pmi: overflow status $?"
n1=$(nmis)
echo "pmi: nmis $((n1 - n0)), $(tail -n 1 ov.out)"
echo "pmi: periods not exact $(grep -c ' counted ' ov.out) $(grep ' counted ' ov.out | grep -vc ' counted 200000$')"
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q '^0$' /sys/class/misc/pctr/taken && break
	sleep 0.2
done
rec after
echo "pmi: unknown nmis $(dmesg | grep -ciE 'uhhuh|dazed|unknown reason')"
# Sampling's fast path (issue 27): the PMU's MSRs that one sample reads
# and writes, counted by the kernel's msr tracepoints around a pctr
# record of user-mode instructions (Intel's and AMD's counter, control
# and global registers; the LVTPC write, one more, goes through the
# xAPIC's MMIO here and is not traced).
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
if [ -d $T/events/msr/read_msr ]; then
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 8192 >$T/buffer_size_kb
	echo 1 >$T/events/msr/read_msr/enable
	echo 1 >$T/events/msr/write_msr/enable
	echo 1 >$T/tracing_on
	/pctr/tools/pctr record -e instructions -c 50000 -o m.data -- ./loop 25000000 >/dev/null 2>&1
	echo 0 >$T/tracing_on
	echo 0 >$T/events/msr/read_msr/enable
	echo 0 >$T/events/msr/write_msr/enable
	s=$(grep -c '^s ' m.data)
	n=$(sed -nE 's/.*(read_msr|write_msr): ([0-9a-f]+),.*/\2/p' $T/trace |
		grep -cE '^(c[1-8]|4c[1-8]|18[6-9a-d]|30[9a-c]|38[d-f]|390|c001000[0-7]|c00102(0[0-9]|0a|0b)|c000030[0-3])$')
	echo "pmi: msr accesses $n for $s samples: $(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.2f", s ? n / s : 0 }') per sample"
	echo >$T/trace
fi
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
	echo "pmi: flags alone: $(./flagstress 3000 2>&1 | tail -n 1)"
	echo 10000000 >/proc/sys/kernel/perf_event_max_sample_rate
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
	n0=$(nmis)
	perf record -q -e instructions -c 2000 -o f.data ./flagstress 3000 >f.out 2>&1
	rc=$?
	echo "pmi: flags under perf record: $(grep '^flagstress:' f.out | tail -n 1), status $rc, nmis $(($(nmis) - n0))"
	echo "$p0" >/proc/sys/kernel/perf_cpu_time_max_percent
	echo "$r0" >/proc/sys/kernel/perf_event_max_sample_rate
	n0=$(nmis)
	/pctr/tools/pctr record -e instructions -c 5000 -o g.data -- ./flagstress 3000 >g.out 2>&1
	rc=$?
	echo "pmi: flags under pctr record: $(grep '^flagstress:' g.out | tail -n 1), status $rc, nmis $(($(nmis) - n0))"
	grep -E '^flagstress: iteration' f.out g.out | head -n 5 | sed 's/^/pmi: flags: /'
fi
