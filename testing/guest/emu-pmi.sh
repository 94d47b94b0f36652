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
