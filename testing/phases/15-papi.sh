#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: PAPI with pctr's component
#
# PAPI built from Debian's papi source with pctr's component (papi/) as
# its component 0 (testing/papi/build, cached outside the clone by its
# inputs; the first run builds it, timed), then on the emulated PMU of
# each vendor (PCTR_PAPI_VENDORS, default "intel amd") on the newest
# kernel, as uid 1000 with perf_event_paranoid untouched
# (testing/papi/guest.sh): papi_component_avail shows pctr active,
# papi_avail its presets PAPI_TOT_INS, PAPI_TOT_CYC and PAPI_BR_INS,
# papi_command_line PAPI_TOT_INS counts, and testing/papi/papi_loop, a
# program written only against <papi.h> and built against the private
# install, counts a calibrated loop exactly.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

papi=$logdir/papi
mkdir -p "$papi"
t0=$(date +%s)
if prefix=$(testing/papi/build 2>"$papi/build.log" | tail -n 1) && [ -d "$prefix" ]; then
	echo "check: PAPI with pctr's component: $(grep -o 'built in [0-9]*s.*' "$papi/build.log" || echo cached), phase $(($(date +%s) - t0))s"
	ok "PAPI builds with pctr's component (testing/papi/build)"
else
	tail -n 20 "$papi/build.log"
	bad "PAPI builds with pctr's component (testing/papi/build)"
	end_phase
fi
if cc -O2 -Wall -Wextra -I"$prefix/include" -o "$papi/papi_loop" \
	testing/papi/papi_loop.c -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lpapi; then
	ok "papi_loop builds against the private install, <papi.h> only"
else
	bad "papi_loop builds against the private install, <papi.h> only"
	end_phase
fi

for v in ${PCTR_PAPI_VENDORS-intel amd}; do
	log=$papi/guest-$v.log
	testing/vm/run --kernel "$kb" --emulated-pmu "$v" --user --smp 1 \
		--add "$prefix/bin/papi_component_avail" --add "$prefix/bin/papi_avail" \
		--add "$prefix/bin/papi_command_line" --add "$papi/papi_loop" \
		--add testing/papi/guest.sh -- ./guest.sh >"$log" 2>&1
	rc=$?
	grep -E '^papi_loop: ' "$log" | sed "s/^/  [$v] /"
	if ! relay_checks "$v: " papi "$log"; then
		tail -n 30 "$log"
		bad "$v: PAPI guest ran (exit $rc)"
	elif [ $rc != 0 ] && ! grep -q '^FAIL: papi:' "$log"; then
		tail -n 30 "$log"
		bad "$v: PAPI guest healthy (exit $rc)"
	fi
done
end_phase
