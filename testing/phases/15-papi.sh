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
# install, counts a calibrated loop exactly.  Then in a second guest per
# vendor (PCTR_PAPI_CTEST_VENDORS, default "amd"), as root (perf_event's reference needs it at paranoid 3), a
# subset of PAPI's own ctests (PCTR_PAPI_CTESTS), each against the pctr
# build and against Debian's libpapi (perf_event), under -icount
# (testing/papi/ctests.sh): the table of both results is printed, and a
# test that passes on perf_event must pass on pctr unless it needs what
# the component does not do yet (papi_ecmp below: attach, inheritance,
# overflow, profiling) or uses presets of events pctr's backends do not
# name (papi_noevent).
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

ctests=${PCTR_PAPI_CTESTS-"zero first second low-level branches case1 case2 cmpinfo
	code2name derived describe destroy eventname failed_events
	get_event_component hwinfo memory realtime virttime remove_events reset
	tenth version zero_named zero_pthreads zero_fork all_events
	all_native_events calibrate inherit overflow profile multiplex1
	serial_hl thrspecific johnmay2 kufrin"}
# What the component does not do yet (PAPI_ECMP; Documentation/papi.rst).
papi_ecmp="inherit|overflow.*|profile.*|attach.*|zero_attach|multiattach.*"
# Tests of presets whose events pctr's backends do not name (tenth: the
# L1 and L2 cache presets).
papi_noevent="tenth"
deb=/usr/lib/x86_64-linux-gnu/libpapi.so.7.0
if [ -n "$ctests" ] && [ ! -e "$deb" ]; then
	bad "Debian's libpapi.so.7.0 for the ctests' reference (libpapi7.0: testing/vm/install-deps)"
	ctests=
fi
# AMD's only by default: there Debian's perf_event has presets to compare
# with (on the emulated Intel PMU it stays disabled), and each guest costs
# about 5 minutes of the budget.  Each guest has one vCPU: they start
# first, in the background, beside the tools' guests below.
declare -A ctest_pid
for v in ${ctests:+${PCTR_PAPI_CTEST_VENDORS-amd}}; do
	log=$papi/ctests-$v.log
	args=()
	for t in $ctests; do
		args+=(--add "$prefix/share/papi/ctests/$t")
	done
	# shellcheck disable=SC2086 # the tests' names, split on purpose
	testing/vm/run --kernel "$kb" --emulated-pmu "$v" --smp 1 "${args[@]}" \
		--add "$deb" --add testing/papi/ctests.sh -- ./ctests.sh $ctests >"$log" 2>&1 &
	ctest_pid[$v]=$!
done

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

for v in "${!ctest_pid[@]}"; do
	log=$papi/ctests-$v.log
	wait "${ctest_pid[$v]}"
	rc=$?
	if ! grep -q '^ctest: done' "$log"; then
		tail -n 30 "$log"
		bad "$v: PAPI's ctests ran (exit $rc)"
		continue
	fi
	printf '  [%s] %-20s %-10s %s\n' "$v" ctest pctr perf_event
	while read -r _ t _ rp _ rr; do
		printf '  [%s] %-20s %-10s %s\n' "$v" "$t" "$rp" "$rr"
		if [ "$rp" = PASSED ] || [ "$rr" != PASSED ]; then
			ok "$v: ctest $t: pctr $rp, perf_event $rr"
		elif [[ $t =~ ^($papi_ecmp)$ ]]; then
			ok "$v: ctest $t: pctr $rp, perf_event $rr (not done yet: attach, inherit, overflow, profiling)"
		elif [[ $t =~ ^($papi_noevent)$ ]] && [ "$rp" = SKIPPED ]; then
			ok "$v: ctest $t: pctr $rp, perf_event $rr (its presets' events are not pctr's backend's)"
		else
			grep -E "^ctest:   $t " "$log"
			bad "$v: ctest $t: pctr $rp, perf_event $rr"
		fi
	done < <(grep -E '^ctest: [^ ]+ pctr ' "$log")
	grep -E '^ctest:   ' "$log" | sed "s/^ctest:  /  [$v]/"
done
end_phase
