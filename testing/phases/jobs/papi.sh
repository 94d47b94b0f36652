#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's background job for the phase "PAPI with pctr's
# component": everything that phase checks, left in build/check/papi
# (logs, exit statuses, times) for it to read.
#
# PAPI built from Debian's papi source with pctr's component (papi/) as
# its component 0 (testing/papi/build, cached outside the clone by its
# inputs; a cold run builds it here, timed), testing/papi/papi_loop
# built against the private install, then on the emulated PMU, newest
# kernel: a guest per vendor (PCTR_PAPI_CTEST_VENDORS, default "amd")
# running a subset of PAPI's own ctests (PCTR_PAPI_CTESTS) against the
# pctr build and against Debian's libpapi (perf_event) under -icount
# (testing/papi/ctests.sh), and a guest per vendor (PCTR_PAPI_VENDORS,
# default "intel amd") with PAPI's tools and papi_loop as uid 1000
# (testing/papi/guest.sh).  All guests have one vCPU and run one after
# another: the job keeps to one core, beside the phases (the driver
# starts it after the host tests).
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

papi=$logdir/papi
rm -rf "$papi"
mkdir -p "$papi"
t0=$(date +%s)
testing/papi/build >"$papi/prefix" 2>"$papi/build.log"
echo $? >"$papi/build.rc"
echo $(($(date +%s) - t0)) >"$papi/build.secs"
prefix=$(tail -n 1 "$papi/prefix")
[ "$(cat "$papi/build.rc")" = 0 ] && [ -d "$prefix" ] || exit 0
cc -O2 -Wall -Wextra -I"$prefix/include" -o "$papi/papi_loop" \
	testing/papi/papi_loop.c -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" \
	-lpapi >"$papi/papi_loop.log" 2>&1
echo $? >"$papi/papi_loop.rc"

# The guests, each timed: "NAME SECONDS" lines in guests.secs.
run_guest() {
	local name=$1 t
	shift
	t=$(date +%s)
	testing/vm/run "$@" >"$papi/$name.log" 2>&1
	echo $? >"$papi/$name.rc"
	echo "$name $(($(date +%s) - t))" >>"$papi/guests.secs"
}

ctests=${PCTR_PAPI_CTESTS-"zero first second low-level branches case1 case2 cmpinfo
	code2name derived describe destroy eventname failed_events
	get_event_component hwinfo memory realtime virttime remove_events reset
	tenth version zero_named zero_pthreads zero_fork all_events
	all_native_events calibrate inherit overflow overflow_single_event
	overflow_index overflow_pthreads profile profile_twoevents multiplex1
	serial_hl thrspecific johnmay2 kufrin attach2 attach3 attach_validate
	attach_cpu attach_cpu_validate multiattach multiattach2 zero_attach"}
deb=/usr/lib/x86_64-linux-gnu/libpapi.so.7.0
if [ -n "$ctests" ] && [ -e "$deb" ]; then
	args=()
	# attach_target: what the attach tests' children exec.
	for t in $ctests attach_target; do
		args+=(--add "$prefix/share/papi/ctests/$t")
	done
	for v in ${PCTR_PAPI_CTEST_VENDORS-amd}; do
		# shellcheck disable=SC2086 # the tests' names, split on purpose
		run_guest "ctests-$v" --kernel "$kb" --emulated-pmu "$v" --smp 1 \
			"${args[@]}" --add "$deb" --add testing/papi/ctests.sh \
			-- ./ctests.sh $ctests
	done
fi
[ "$(cat "$papi/papi_loop.rc")" = 0 ] || exit 0
for v in ${PCTR_PAPI_VENDORS-intel amd}; do
	run_guest "guest-$v" --kernel "$kb" --emulated-pmu "$v" --user --smp 1 \
		--add "$prefix/bin/papi_component_avail" --add "$prefix/bin/papi_avail" \
		--add "$prefix/bin/papi_command_line" --add "$papi/papi_loop" \
		--add testing/papi/guest.sh -- ./guest.sh
done
