#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: PAPI with pctr's component
#
# PAPI with pctr's component: its build, its tools and a <papi.h>
# program as uid 1000 on the emulated PMUs, and PAPI's own ctests against
# pctr and against perf_event.  They ran in the background
# (testing/phases/jobs/papi.sh, which says what each guest does; the
# driver started it after the host tests and waited for it); here their
# results.  In the ctests' table, a test that passes on perf_event must
# pass on pctr unless it uses presets of events pctr's backends do not
# name (papi_noevent).
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

papi=$logdir/papi
if [ "$(cat "$papi/build.rc" 2>/dev/null)" = 0 ]; then
	echo "check: PAPI with pctr's component: $(grep -o 'built in [0-9]*s.*' "$papi/build.log" || echo cached), $(cat "$papi/build.secs")s (in the background)"
	ok "PAPI builds with pctr's component (testing/papi/build)"
else
	tail -n 20 "$papi/build.log" 2>/dev/null
	bad "PAPI builds with pctr's component (testing/papi/build)"
	end_phase
fi
if [ "$(cat "$papi/papi_loop.rc" 2>/dev/null)" = 0 ]; then
	ok "papi_loop builds against the private install, <papi.h> only"
else
	cat "$papi/papi_loop.log" 2>/dev/null
	bad "papi_loop builds against the private install, <papi.h> only"
fi
sed 's/^\([^ ]*\) \(.*\)/check: PAPI guest \1 took \2s (in the background)/' "$papi/guests.secs" 2>/dev/null

# Tests of presets whose events pctr's backends do not name (tenth: the
# L1 and L2 cache presets).
papi_noevent="tenth"
if [ -n "${PCTR_PAPI_CTESTS-x}" ] && [ ! -e /usr/lib/x86_64-linux-gnu/libpapi.so.7.0 ]; then
	bad "Debian's libpapi.so.7.0 for the ctests' reference (libpapi7.0: testing/vm/install-deps)"
fi

for log in "$papi"/guest-*.log; do
	[ -e "$log" ] || continue
	v=${log##*/guest-}
	v=${v%.log}
	rc=$(cat "$papi/guest-$v.rc" 2>/dev/null || echo 125)
	grep -E '^papi_loop: ' "$log" | sed "s/^/  [$v] /"
	if ! relay_checks "$v: " papi "$log"; then
		tail -n 30 "$log"
		bad "$v: PAPI guest ran (exit $rc)"
	elif [ "$rc" != 0 ] && ! grep -q '^FAIL: papi:' "$log"; then
		tail -n 30 "$log"
		bad "$v: PAPI guest healthy (exit $rc)"
	fi
done
for v in ${PCTR_PAPI_VENDORS-intel amd}; do
	[ -e "$papi/guest-$v.log" ] || bad "$v: PAPI guest ran (no log: the job stopped before it)"
done

for log in "$papi"/ctests-*.log; do
	[ -e "$log" ] || continue
	v=${log##*/ctests-}
	v=${v%.log}
	rc=$(cat "$papi/ctests-$v.rc" 2>/dev/null || echo 125)
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
		elif [[ $t =~ ^($papi_noevent)$ ]] && [ "$rp" = SKIPPED ]; then
			ok "$v: ctest $t: pctr $rp, perf_event $rr (its presets' events are not pctr's backend's)"
		else
			grep -E "^ctest:   $t " "$log"
			bad "$v: ctest $t: pctr $rp, perf_event $rr"
		fi
	done < <(grep -E '^ctest: [^ ]+ pctr ' "$log")
	grep -E '^ctest:   ' "$log" | sed "s/^ctest:  /  [$v]/"
done
if [ -n "${PCTR_PAPI_CTESTS-x}" ]; then
	for v in ${PCTR_PAPI_CTEST_VENDORS-amd}; do
		[ -e "$papi/ctests-$v.log" ] || bad "$v: PAPI's ctests ran (no log: the job stopped before them)"
	done
fi
end_phase
