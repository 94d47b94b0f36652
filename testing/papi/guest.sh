#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/papi/guest.sh: PAPI with pctr's component, in a guest (run by
# testing/phases/15-papi.sh as uid 1000 on the emulated PMU, with PAPI's
# tools and testing/papi/papi_loop added to /work):
#   - papi_component_avail lists pctr among the active components;
#   - papi_avail has PAPI_TOT_INS, PAPI_TOT_CYC and PAPI_BR_INS;
#   - papi_command_line PAPI_TOT_INS counts;
#   - papi_loop, written only against <papi.h>, counts a calibrated
#     loop's instructions (and branches) exactly;
# with kernel.perf_event_paranoid as the guest booted (never changed).
# On the simulated PMU (pmu=sim: no preset maps on its events) the
# presets and papi_loop are left out and papi_command_line counts the
# sim's native event sim_ticks instead.
# Prints "PASS: papi: ..." / "FAIL: papi: ..." and a last line
# "papi: N passed, N failed".

cd /work || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: papi: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: papi: $*"; }

# counts EVENT [NOTE]: papi_command_line EVENT prints a count above 0.
counts() {
	./papi_command_line "$1" >cmd.out 2>&1
	cat cmd.out
	if grep -qE "^$1 :[[:space:]]+[1-9][0-9]*" cmd.out; then
		ok "papi_command_line $1 counts$2"
	else
		bad "papi_command_line $1 counts$2"
	fi
}

echo "papi: uid $(id -u), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"

./papi_component_avail >comp.out 2>&1
cat comp.out
if awk '/^Active components:/ { a = 1 } a && $1 == "Name:" && $2 == "pctr" { f = 1 } END { exit !f }' comp.out; then
	ok "papi_component_avail: pctr is active"
else
	bad "papi_component_avail: pctr is active"
fi

if grep -q 'pctr counters (sim backend' comp.out; then
	counts sim_ticks " (sim)"
	echo "papi: $pass passed, $fail failed"
	[ $fail = 0 ]
	exit
fi

./papi_avail -a >avail.out 2>&1
grep -E '^PAPI_' avail.out
for e in PAPI_TOT_INS PAPI_TOT_CYC PAPI_BR_INS; do
	if grep -qE "^$e " avail.out; then
		ok "papi_avail: $e available"
	else
		bad "papi_avail: $e available"
	fi
done

counts PAPI_TOT_INS

if ./papi_loop 1000000 3000000; then
	ok "papi_loop: PAPI_TOT_INS (and PAPI_BR_INS) exact on a calibrated loop"
else
	bad "papi_loop: PAPI_TOT_INS (and PAPI_BR_INS) exact on a calibrated loop (exit $?)"
fi

echo "papi: $pass passed, $fail failed"
[ $fail = 0 ]
