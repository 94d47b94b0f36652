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
# built against the private install, then a guest for each backend and
# kernel of PCTR_PAPI_GUESTS (VENDOR:KERNEL, "new" and "old" for the
# newest and oldest kernel; default the emulated AMD and Intel PMUs and
# the simulated one, each on the newest and the oldest kernel), each
# running testing/papi/all.sh: PAPI's tools and papi_loop as uid 1000
# (testing/papi/guest.sh), then PAPI's own tests against the pctr build
# and, where pctr's run does not pass (or with PCTR_PAPI_REFERENCE=all,
# always), against Debian's libpapi (perf_event) as root
# (testing/papi/ctests.sh): the long list (PCTR_PAPI_CTESTS: ctests,
# ftests, validation_tests) in the first guest, a short one
# (PCTR_PAPI_SHORT; PCTR_PAPI_SIM on the sim, where PAPI has no presets)
# in the others.  The emulated PMUs run under -icount (exact counts).
# All guests have one vCPU and run one after another: the job keeps to
# one core, beside the phases (the driver starts it after the host
# tests).  Logs: guest-VENDOR-KERNEL.log (6.12, 6.1: the first two
# fields of the version), in PCTR_PAPI_OUT (default build/check/papi);
# PCTR_PAPI_TIMEOUT the seconds a guest may take (2400).
# testing/papi/whole runs it with PAPI's whole suite in every guest.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

papi=${PCTR_PAPI_OUT:-$logdir/papi}
rm -rf "$papi"
mkdir -p "$papi"
t0=$(date +%s)
no_ccache testing/papi/build >"$papi/prefix" 2>"$papi/build.log"
echo $? >"$papi/build.rc"
echo $(($(date +%s) - t0)) >"$papi/build.secs"
prefix=$(tail -n 1 "$papi/prefix")
[ "$(cat "$papi/build.rc")" = 0 ] && [ -d "$prefix" ] || exit 0
cc -O2 -Wall -Wextra -I"$prefix/include" -o "$papi/papi_loop" \
	testing/papi/papi_loop.c -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" \
	-lpapi >"$papi/papi_loop.log" 2>&1
echo $? >"$papi/papi_loop.rc"
[ "$(cat "$papi/papi_loop.rc")" = 0 ] || exit 0

# The tests: a bare name is a ctest; SUITE/NAME one of ftests,
# validation_tests or components (the component's own tests, papi/tests),
# whose directory the guest gets whole.  pctr's own tests run in every
# guest.
own=""
for t in papi/tests/*.c; do
	own+=" components/pctr/tests/$(basename "$t" .c)"
done
long=${PCTR_PAPI_CTESTS-"zero first second low-level branches case1 case2 cmpinfo
	code2name derived describe destroy eventname failed_events
	get_event_component hwinfo memory realtime virttime remove_events reset
	tenth version zero_named zero_pthreads zero_fork all_events
	all_native_events calibrate inherit overflow overflow_single_event
	overflow_index overflow_twoevents overflow_pthreads profile
	profile_twoevents multiplex1
	serial_hl thrspecific johnmay2 kufrin attach2 attach3 attach_validate
	attach_cpu multiattach multiattach2 zero_attach ftests/zero ftests/first
	ftests/accum ftests/avail validation_tests/cycles_validation $own"}
# multiplex1 (16-42 s of guest time each) only in the long list.  The
# short list as the long list's 27 tests of two seconds of guest time or
# less, less those that only read PAPI's tables or skip on pctr, took
# 35 s more in the Intel guest of 6.12 (26 s to 61 s) and 81 s more in
# the AMD guest of 6.1 (36 s to 117 s), measured alone on a loaded
# 2-core machine: not taken.  (The long list's realtime and virttime,
# 20 s of guest time each, wait: they cost the host next to nothing.)
# destroy's 16384 starts and stops take and give back the PMU each time:
# on 6.1 that once took 12 ms each (the NMI handler's registration,
# kept now till unload: Documentation/papi.rst).
short=${PCTR_PAPI_SHORT-"zero first attach2 inherit overflow profile
	zero_pthreads destroy $own"}
simtests=${PCTR_PAPI_SIM-"cmpinfo all_native_events $own"}
deb=/usr/lib/x86_64-linux-gnu/libpapi.so.7.0
crypt=/usr/lib/x86_64-linux-gnu/libcrypt.so
share=$prefix/share/papi

# The guest's lines as they come, each "ctime: NAME SECONDS" (guest
# seconds, which under -icount count instructions, not the host's time:
# a test that reads the clock in a loop costs the host far more than its
# guest seconds say) given "host SECONDS", the host's since the line
# before it that ended a test or guest.sh, and each "ctime-pctr: NAME
# SECONDS" (pctr's run of the test) the host's likewise.
stamp() {
	local line last=$EPOCHSECONDS
	while IFS= read -r line; do
		case $line in
		"ctime-pctr: "*)
			line+=" host $((EPOCHSECONDS - last))" ;;
		"ctime: "*)
			line+=" host $((EPOCHSECONDS - last))"
			last=$EPOCHSECONDS ;;
		"papi: "*) last=$EPOCHSECONDS ;;
		esac
		printf '%s\n' "$line"
	done
}

# One guest, timed ("NAME SECONDS" lines in guests.secs): all.sh with
# TESTS (a string of names) on VM-RUN-ARGS.
run_guest() {
	local name=$1 tests=$2 t t_ suites=" " args=()
	shift 2
	[ -e "$deb" ] || tests=
	for t_ in $tests attach_target; do
		case $t_ in
		*/*)
			[[ $suites == *" ${t_%%/*} "* ]] && continue
			suites+="${t_%%/*} "
			args+=(--add "$share/${t_%%/*}") ;;
		*) args+=(--add "$share/ctests/$t_") ;;
		esac
	done
	# A Fortran test at the top: the guest gets its libraries
	# (testing/vm/copy-libs looks at /work's files only).
	case $tests in
	*ftests/*) args+=(--add "$share/ftests/strtest") ;;
	esac
	if [ "${PCTR_PAPI_REFERENCE-}" = all ]; then
		: >"$papi/reference-all"
		args+=(--add "$papi/reference-all")
	fi
	# shlib opens libcrypt.so (libcrypt-dev's link) with dlopen, which
	# copy-libs cannot see: ctests.sh puts it where Debian does.
	[ -e "$crypt" ] && args+=(--add "$crypt")
	t=$(date +%s)
	# shellcheck disable=SC2086 # the tests' names, split on purpose
	testing/vm/run "$@" --smp 1 --timeout "${PCTR_PAPI_TIMEOUT:-2400}" "${args[@]}" --add "$deb" \
		--add "$prefix/bin/papi_component_avail" \
		--add "$prefix/bin/papi_avail" --add "$prefix/bin/papi_command_line" \
		--add "$papi/papi_loop" --add testing/papi/guest.sh \
		--add testing/papi/ctests.sh --add testing/papi/referee.sh \
		--add testing/papi/all.sh \
		-- ./all.sh $tests 2>&1 | stamp >"$papi/guest-$name.log"
	echo "${PIPESTATUS[0]}" >"$papi/guest-$name.rc"
	echo "guest-$name $(($(date +%s) - t))" >>"$papi/guests.secs"
}

# The guests: "VENDOR KERNEL NAME" each.
guests=()
for g in ${PCTR_PAPI_GUESTS-amd:new intel:new amd:old intel:old sim:new sim:old}; do
	v=${g%%:*} k=${g#*:}
	case $k in
	new) k=$kb ;;
	old) k=${kernels[0]} ;;
	esac
	[ "${g#*:}" = old ] && [ "$k" = "$kb" ] && continue
	guests+=("$v $k $v-$(cut -d. -f1,2 <<<"$k")")
done

# The rest of PAPI's suite, spread: each test of testing/papi/suite in
# none of the lists above and not heavy on the backend runs in one of
# the backend's guests (in turn: the newest kernel's, the oldest's), so
# on each of the emulated AMD PMU, the emulated Intel PMU and the sim;
# the phase holds its result to Documentation/papi.rst's table (which
# make papi-suite fills with the whole suite in every guest).  Heavy on
# a backend: testing/papi/heavy, what costs make check 5 s of the host's
# time or more in one of make papi-suite's guests of the backend (pctr's
# run, and perf_event's where pctr's does not pass), which make
# papi-suite writes (2026-11-28: AMD's 29 took 785 s, its other 151 127
# s; Intel's 27 537 s, its other 153 106 s; the sim's 6 170 s, its
# other 174 72 s), left to make papi-suite but where a list names them;
# PCTR_PAPI_HEAVY_AMD, _INTEL and _SIM name others.  Those heavy on every
# backend (PCTR_PAPI_HEAVY_ONCE) run once, in the last guest of the
# emulated AMD PMU (AMD 6.1, the lightest of make check's guests; 61 s
# of the host's there on pctr alone): so every test of the suite runs
# on pctr in each make check.  PCTR_PAPI_SPREAD=0 leaves the spread out.
heavy_of() {
	awk -v b="$1" '$1 == b { print $2 }' testing/papi/heavy | tr '\n' ' '
}
heavy_amd=${PCTR_PAPI_HEAVY_AMD-$(heavy_of amd)}
heavy_intel=${PCTR_PAPI_HEAVY_INTEL-$(heavy_of intel)}
heavy_sim=${PCTR_PAPI_HEAVY_SIM-$(heavy_of sim)}
once=${PCTR_PAPI_HEAVY_ONCE-$(awk '!/^#/ { if (!($1 in b)) { b[$1]; nb++ } n[$2]++ }
	END { for (t in n) if (n[t] == nb) print t }' testing/papi/heavy | sort | tr '\n' ' ')}
# spread BACKEND LIST...: the suite's tests in none of the lists (a
# bare name in a list is ctests/NAME) and not heavy on BACKEND (amd,
# intel, sim; none: no test heavy), one a line.
spread() {
	[ "${PCTR_PAPI_SPREAD-1}" = 1 ] || return 0
	local t skip=" " heavy
	case $1 in
	amd) heavy=$heavy_amd ;;
	intel) heavy=$heavy_intel ;;
	sim) heavy=$heavy_sim ;;
	*) heavy= ;;
	esac
	shift
	for t in $heavy "$@"; do
		case $t in */*) skip+="$t " ;; *) skip+="ctests/$t " ;; esac
	done
	for t in "${suite[@]}"; do
		[[ $skip == *" $t "* ]] || echo "$t"
	done
}
# share_of N I LIST...: the I-th of N shares of LIST (every N-th name
# from the I-th).
share_of() {
	local n=$1 i=$2 j=0 t out=
	shift 2
	for t in "$@"; do
		[ $((j % n)) = "$i" ] && out+=" $t"
		j=$((j + 1))
	done
	echo "$out"
}
# The guests of each backend, and the backend of the first emulated
# guest, which runs the long list (the others of its kind the short).
declare -A count=() index=()
first_v=
for g in "${guests[@]}"; do
	v=${g%% *}
	count[$v]=$((${count[$v]:-0} + 1))
	[ "$v" = sim ] || [ -n "$first_v" ] || first_v=$v
done
lists() {
	if [ "$1" = "$first_v" ]; then echo "$long $short"; else echo "$short"; fi
}
mapfile -t suite < <(testing/papi/suite "$share")
# shellcheck disable=SC2046 # the lists' names, split on purpose
mapfile -t rest_amd < <(spread amd $(lists amd))
# Those of the heavy-everywhere list not in AMD's lists already.
# shellcheck disable=SC2046
# shellcheck disable=SC2206 # the list's names, split on purpose
mapfile -t once_amd < <(suite=($once); spread none $(lists amd))
# shellcheck disable=SC2046
mapfile -t rest_intel < <(spread intel $(lists intel))
# shellcheck disable=SC2086
mapfile -t rest_sim < <(spread sim $simtests)

first=1
for g in "${guests[@]}"; do
	read -r v k name <<<"$g"
	echo "$name" >>"$papi/guests.planned"
	i=${index[$v]:-0}
	index[$v]=$((i + 1))
	case $v in
	amd)
		rest=$(share_of "${count[$v]}" "$i" "${rest_amd[@]}")
		[ $((i + 1)) = "${count[$v]}" ] && rest+=" ${once_amd[*]}" ;;
	intel) rest=$(share_of "${count[$v]}" "$i" "${rest_intel[@]}") ;;
	*) rest=$(share_of "${count[$v]}" "$i" "${rest_sim[@]}") ;;
	esac
	# The args of the guest's PMU.
	if [ "$v" = sim ]; then
		run_guest "$name" "$simtests $rest" --kernel "$k" --param pmu=sim
	elif [ $first = 1 ]; then
		run_guest "$name" "$long $rest" --kernel "$k" --emulated-pmu "$v"
		first=0
	else
		run_guest "$name" "$short $rest" --kernel "$k" --emulated-pmu "$v"
	fi
done
