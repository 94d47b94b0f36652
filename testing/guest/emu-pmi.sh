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
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
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
	s=$(/pctr/tools/pctr report --dump -i m.data 2>/dev/null | grep -c '^s ')
	n=$(sed -nE 's/.*(read_msr|write_msr): ([0-9a-f]+),.*/\2/p' $T/trace |
		grep -cE '^(c[1-8]|4c[1-8]|18[6-9a-d]|30[9a-c]|38[d-f]|390|c001000[0-7]|c00102(0[0-9]|0a|0b)|c000030[0-3])$')
	echo "pmi: msr accesses $n for $s samples: $(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.2f", s ? n / s : 0 }') per sample"
	echo >$T/trace
fi
