# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # ok, bad: testing/lib.sh's
#
# testing/phases/emu-count-results.sh: the reading of what
# testing/guest/emu-count.sh printed in an emulated PMU guest (pmu=auto's
# pick, perf and pctr counting the calibrated loop, pctr stat, the
# self-check, the hand-over): handover_results, sourced by
# emu-results.sh for its suite_results.

# In the guest (testing/guest/emu-count.sh): N1 and N2 have as many
# digits, so the loop's own start-up costs the same; each difference must
# be 2 (N2 - N1) instructions and N2 - N1 branches.  perf counts the whole
# process, whose page faults may differ: a call or return that faults and
# restarts counts twice as a branch (testing.rst), so either run's perf
# branches may be up to 2 over, and their difference off by 2 either way
# (CI once saw 799999); pctr's reads around the loop alone must be exact.
#
# val WHO N WHAT: the count of that line of the caller's $log.
val() { sed -n "s/^$1 $2 $3 \([0-9]*\).*/\1/p" "$log" | head -n 1; }
# A whole program's count (perf stat's, pctr stat's) is exact to a
# few instructions, not always to one: of twelve such runs on each
# kernel and vendor one read 1814730 where the others read 1814728
# (its startup and exit code, interrupted where an interrupt lands,
# not the loop).  The loop itself, read inline, must be exact.
near() { [ -n "$1" ] && [ "$1" -ge $(($2 - 4)) ] && [ "$1" -le $(($2 + 4)) ]; }
# The hand-over script's results in log $3 (vendor $1, kernel $2).
handover_results() {
	local v=$1 k=$2 log=$3 t
	local pi1 pi2 pb1 pb2 ci1 ci2 cb1 cb2 si1 si2 sb1 sb2
	t="[$v $k]"
	grep -q "pctr: $v:" "$log" && grep -q "^backend   $v" "$log" &&
		ok "$t pmu=auto picks the $v backend (load line, pctr info)" ||
		bad "$t pmu=auto picks the $v backend (load line, pctr info)"
	pi1=$(val perf 100000 instructions) pi2=$(val perf 900000 instructions)
	pb1=$(val perf 100000 branches) pb2=$(val perf 900000 branches)
	ci1=$(val pctr 100000 insns) ci2=$(val pctr 900000 insns)
	cb1=$(sed -n 's/^pctr 100000 insns [0-9]* branches \([0-9]*\)/\1/p' "$log")
	cb2=$(sed -n 's/^pctr 900000 insns [0-9]* branches \([0-9]*\)/\1/p' "$log")
	echo "  $t perf instructions:u $pi1 / $pi2, branches:u $pb1 / $pb2; pctr $ci1 / $ci2, branches $cb1 / $cb2"
	[ -n "$pi1" ] && [ -n "$pi2" ] && near $((pi2 - pi1)) 1600000 &&
		ok "$t perf stat instructions:u exact under -icount (+1600000, within 4)" ||
		bad "$t perf stat instructions:u exact under -icount ($pi1, $pi2)"
	[ -n "$ci1" ] && [ -n "$ci2" ] && [ -n "$pi1" ] &&
		[ $((ci2 - ci1)) = 1600000 ] && near $((pi2 - pi1)) $((ci2 - ci1)) &&
		[ $((cb2 - cb1)) = 800000 ] &&
		[ $((pb2 - pb1 - 800000)) -ge -2 ] && [ $((pb2 - pb1 - 800000)) -le 2 ] &&
		ok "$t pctr (inline rdpmc) counts the loop exactly as perf" ||
		bad "$t pctr (inline rdpmc) counts the loop exactly as perf"
	# pctr stat counts the whole program from its exec, as perf
	# stat does: the same differences, and an IPC.
	si1=$(val stat 100000 instructions) si2=$(val stat 900000 instructions)
	sb1=$(val stat 100000 branches) sb2=$(val stat 900000 branches)
	echo "  $t pctr stat instructions:u $si1 / $si2, branches:u $sb1 / $sb2"
	[ -n "$si1" ] && [ -n "$si2" ] && [ -n "$pi1" ] &&
		near $((si2 - si1)) 1600000 &&
		[ $((sb2 - sb1 - 800000)) -ge -2 ] && [ $((sb2 - sb1 - 800000)) -le 2 ] &&
		grep -Eq '^stat 900000 ipc [0-9]' "$log" &&
		ok "$t pctr stat counts the program as perf stat, with its IPC" ||
		bad "$t pctr stat counts the program as perf stat, with its IPC"
	grep -Eq '^selfcheck: [1-9][0-9]* passed, 0 failed' "$log" &&
		ok "$t pctr selfcheck passes" ||
		bad "$t pctr selfcheck passes ($(grep '^selfcheck:' "$log"))"
	grep -q '^handover: .*busy: the counters are in use by perf' "$log" &&
		grep -q 'handover pctr-after-perf status 0' "$log" &&
		ok "$t perf counting: pctr refused (EBUSY), works after" ||
		{ bad "$t perf counting: pctr refused (EBUSY), works after"
		  grep -E '^handover' "$log"; }
	grep -Eq 'perf-while-pctr: .*(Device or resource busy|<not supported>|<not counted>)' "$log" &&
		grep -Eq 'perf-after-pctr: [0-9]+,,instructions' "$log" &&
		ok "$t pctr counting: perf refused, works after" ||
		{ bad "$t pctr counting: perf refused, works after"
		  grep -E '^(hold|perf-(while|after)-pctr): ' "$log"; }
}
