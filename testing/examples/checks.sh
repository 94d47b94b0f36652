# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/examples/checks.sh, sourced by testing/pkgtest (the sim) and
# make check's emulated-PMU phase (Intel, AMD): the checks of the pages'
# examples as testing/examples/guest-run ran them in an x86 guest.  The
# caller has ok and bad.
#
# examples_check TAG WHERE LOG: the results in LOG of the guest whose
# lines carry TAG, each check named with WHERE.

examples_checks=(
	"Perfmon's example flushes (exit 0, silent)"
	"OpenBSD's time_functionx times functionx"
	"Example 1 with its UltraSPARC events: could not add first request (x86)"
	"Example 1 counts 20 iterations (EVENT0, EVENT1 set)"
	"Example 2 catches its overflow signals, its handler's preset arming the next"
)
# The example each check runs, and what its exit status and output
# ($rc, $out) must be.
examples_runs=(perfmon_flush obsd_time_functionx cpc_example1-page cpc_example1 cpc_example2)
# Perfmon's: PERFMON_FLUSH_CACHE on a read-only /dev/perfmon.
ex_flushed() { [ "$rc" = 0 ] && [ -z "$out" ]; }
# OpenBSD's: the TSC around functionx, a million additions.
ex_timed() { [ "$rc" = 0 ] && grep -Eq '^Functionx took [1-9][0-9]* cycles\.$' <<<"$out"; }
# Example 1 as printed: its default events are UltraSPARC's.
ex_no_ultrasparc() {
	[ "$rc" = 1 ] && [ "$(grep -c '^could not add first request: ' <<<"$out")" = 1 ]
}
# With EVENT0 and EVENT1: 20 iterations, both counts non-zero (the page
# measures what runs between two samples: its placeholder for the
# computation is left as printed).
ex_counted() {
	[ "$rc" = 0 ] && [ "$(grep -Ec '^ *[0-9]+: [1-9][0-9]* [1-9][0-9]*$' <<<"$out")" = 20 ]
}
# Example 2: each signal's line, then the sampled value; more than one
# signal, so the handler's preset (ind1, val1) armed the counter again.
ex_signals() {
	grep -Ec '^lwp[1-9][0-9]* - si_addr 0x[0-9a-f]+ ucontext: %pc 0x[0-9a-f]+ %sp 0x[0-9a-f]+$' <<<"$out"
}
ex_caught() {
	local n
	n=$(ex_signals)
	[ "$rc" = 0 ] && [ "$n" -gt 1 ] && [ "$(grep -Ec '^0x[0-9a-f]+$' <<<"$out")" = "$n" ]
}
examples_tests=(ex_flushed ex_timed ex_no_ultrasparc ex_counted ex_caught)

examples_check() {
	local tag=$1 where=$2 log=$3 i ex rc out what
	for i in "${!examples_checks[@]}"; do
		ex=${examples_runs[$i]}
		rc=$(sed -n "s/^examples-rc $ex$tag \\(.*\\)$/\\1/p" "$log" | tail -n 1)
		out=$(sed -n "s/^\\[$ex$tag\\] //p" "$log")
		what="${examples_checks[$i]}, $where"
		[ "$ex" != cpc_example2 ] || what+=" ($(ex_signals) signals)"
		if "${examples_tests[$i]}"; then
			ok "$what"
		else
			echo "$out" | tail -n 22
			bad "$what (exit ${rc:-none: it did not run})"
		fi
	done
}
