#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/papi/ctests.sh: PAPI's own ctests in one guest, against the
# pctr build (the tests' RUNPATH: pctr is component 0) and, as the
# reference for a test that does not pass there, against Debian's libpapi
# (LD_LIBRARY_PATH=/work/debian: perf_event is component 0), as root.
# A test that passes on pctr needs no reference (the phase asks only that
# what passes on perf_event passes on pctr): its perf_event run is left
# out, "-" in its place, unless PCTR_PAPI_REFERENCE=all is in the
# guest's environment (vm/run --param is the kernel's; here a file
# /work/reference-all, which testing/phases/jobs/papi.sh adds when that
# variable is set).  In the long list that halves the guest's time.  PAPI's perf_event component disables itself at
# perf_event_paranoid 3 (Debian's default), even for root: its runs have
# the sysctl at 2, pctr's the value the guest booted with.  Run by
# testing/phases/15-papi.sh with the tests and Debian's libpapi.so.7.0
# added to the guest.
#
#   ctests.sh TEST...
#
# A TEST is a name in /work (a test added by itself), or SUITE/NAME for
# a test of a suite's directory added whole (ctests/attach2,
# ftests/zero, validation_tests/papi_tot_ins,
# components/pctr/tests/pctr_rw): it runs in that directory, as
# run_tests.sh runs it.  pctr's own tests (components/pctr/) have no
# perf_event run.
#
# Prints one line a test: "ctest: NAME pctr RESULT perf_event RESULT",
# RESULT being what the test printed (PASSED, FAILED, SKIPPED, WARNED),
# "exit N" when it printed none (a crash, a timeout), or "-" for a
# reference not run, and for a result other than PASSED its reason (the
# test's first error line), "ctime-pctr: NAME SECONDS", what pctr's run
# took, and "ctime: NAME SECONDS", what its runs took (guest seconds).

cd /work || exit 1
mkdir -p debian
mv libpapi.so.7.0 debian/ 2>/dev/null
# libcrypt.so (testing/phases/jobs/papi.sh adds it), which shlib opens
# with dlopen: where libcrypt-dev puts it.
if [ -e libcrypt.so ] && [ ! -e /usr/lib/x86_64-linux-gnu/libcrypt.so ]; then
	mkdir -p /usr/lib/x86_64-linux-gnu
	mv libcrypt.so /usr/lib/x86_64-linux-gnu/
fi
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)

# run WHICH TEST: the result word, and the reason in $why.
run() {
	dir=/work name=$2
	case $2 in */*) dir=/work/${2%/*} name=${2##*/} ;; esac
	cd "$dir" || return
	# sde's tests load libraries built beside them: run_tests.sh puts
	# their directory on LD_LIBRARY_PATH, as here.
	lib=
	case $2 in components/sde/*) lib=$dir ;; esac
	if [ "$1" = perf_event ]; then
		echo 2 >/proc/sys/kernel/perf_event_paranoid
		LD_LIBRARY_PATH=/work/debian${lib:+:$lib} timeout 120 "./$name" TESTS_QUIET >/work/out.txt 2>&1
		rc=$?
		echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
		(exit $rc)
	else
		env ${lib:+LD_LIBRARY_PATH=$lib} timeout 120 "./$name" TESTS_QUIET >/work/out.txt 2>&1
	fi
	rc=$?
	cd /work || return
	res=$(grep -oE 'PASSED|FAILED|SKIPPED|WARNED' out.txt | tail -n 1)
	[ -n "$res" ] || res="exit $rc"
	why=
	[ "$res" = PASSED ] && return
	why=$(grep -vE '^ *(PASSED|FAILED!*|SKIPPED|WARNED) *$' out.txt |
	      grep -m 1 -iE 'error|warning|not supported|skip|because|fail|trouble|disabled|cannot|could not' |
	      cut -c1-120)
	[ -n "$why" ] ||
		why=$(grep -B 1 -E 'PASSED|FAILED|SKIPPED|WARNED' out.txt | head -n 1 | cut -c1-120)
}

for t in "$@"; do
	t0=$(cut -d. -f1 /proc/uptime)
	run pctr "$t"
	rp=$res wp=$why
	echo "ctime-pctr: $t $(($(cut -d. -f1 /proc/uptime) - t0))"
	case $t in
	components/pctr/*)
		# pctr's own tests: perf_event has nothing to compare.
		res=- why= ;;
	*)
		if [ "$rp" != PASSED ] || [ -e /work/reference-all ]; then
			run perf_event "$t"
		else
			res=- why=
		fi ;;
	esac
	echo "ctest: $t pctr $rp perf_event $res"
	[ -n "$wp" ] && echo "ctest:   $t pctr: $wp"
	[ -n "$why" ] && echo "ctest:   $t perf_event: $why"
	echo "ctime: $t $(($(cut -d. -f1 /proc/uptime) - t0))"
done
echo "ctest: done"
