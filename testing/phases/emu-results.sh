# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # emu, what, smp: the phase's
#
# testing/phases/emu-results.sh: the emulated PMU phase's reading of its
# guests' logs (sourced by 12-emulated-pmu.sh): each kernel and vendor's
# guest (suite_results; the hand-over's part in emu-count-results.sh)
# and the hybrid guest (hybrid_results).  They use the phase's emu, kb,
# perf_must_<vendor> and suite_args.

# shellcheck source=testing/examples/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../examples/checks.sh"

# The hand-over script's results (handover_results).
# shellcheck source=testing/phases/emu-count-results.sh
. "$(dirname "${BASH_SOURCE[0]}")/emu-count-results.sh"

# The results of the guest of kernel $1 and vendor $2: its time, the
# hand-over script's, scrub_test's, sample-check's, stat_test's, the
# skips, the vendor's variants and, on 6.12, overflow interrupts and
# perf's tests.
suite_results() {
	local k=$1 v=$2 log t rc line tc
	log=$emu/suite-$v-$k.log
	t="[$v $k]"
	suite_args "$k" "$v"
	rc=$(cat "$emu/suite-$v-$k.rc" 2>/dev/null || echo 125)
	echo "check: emulated $v PMU on $k, ${what[*]:+${what[*]}, }selftests: $(cat "$emu/suite-$v-$k.secs" 2>/dev/null)s (vm/run exit $rc)"
	grep -E '^# [a-z_-]+ took [0-9]+ s' "$log" | tr '\n' ' ' | sed "s/^/  $t /; s/ $/\n/"
	[ $rc = 0 ] || [ $rc = 1 ] || bad "$t selftests guest healthy (exit $rc)"
	handover_results "$v" "$k" "$log"
	# The security rules that need a real backend (security.rst):
	# rdpmc reads zero from every counter another thread left
	# behind, and user_rdpmc=0; every test must run, none skip.
	if [[ " ${what[*]} " == *" scrub "* ]]; then
		line=$(grep -E '^scrub: selftests: [0-9]+ passed' "$log" | tail -n 1)
		if [[ $line =~ ^scrub:\ selftests:\ ([1-9][0-9]*)\ passed,\ 0\ failed,\ 0\ skipped ]]; then
			add_counts "scrub_test on the emulated $v PMU on $k" "${line#scrub: }"
		else
			grep -E '^scrub: (# |not ok)' "$log" | tail -n 20
			bad "$t scrub_test: every test ran and passed ($line)"
		fi
	fi
	[[ " ${what[*]} " == *" msr "* ]] && suite_msr
	# Sampling (issue 12) on the real backend: testing/sample-check's
	# lines, each a check (exact sample counts, the 2:1 profile,
	# call chains, inheritance, a lost-record ring, no kernel
	# address for uid 1000, rmmod while sampling).
	if [[ " ${what[*]} " == *" sample_$v "* ]]; then
		relay_sample_checks "$t " "$log"
		grep -qE '^(PASS|FAIL): sample:' "$log" ||
			bad "$t sample-check ran in the guest"
	fi
	# pctr stat (issue 14): a workload with two threads and a child
	# that execs counts 8N more instructions (within 1000) with
	# twice the iterations (stat_test's intel fixture), and a
	# libpfm4 name counts as the backend's name.
	if [ -n "$stat" ]; then
		line=$(grep -E '^stattest: selftests: [0-9]+ passed' "$log" | tail -n 1)
		add_counts "stat_test on the emulated intel PMU" "${line#stattest: }" ||
			{ grep -E '^stattest: ' "$log" | tail -n 30; bad "$t stat_test ran"; }
		for tc in children_and_threads_counted_exactly libpfm4_names; do
			grep -q "^stattest: ok [0-9]* intel.$tc\$" "$log" ||
				{ grep -E '^stattest: (# |not ok)' "$log" | tail -n 20
				  bad "$t stat_test's intel.$tc ran and passed"; }
		done
	fi
	# The reference pages' examples (testing/examples/checks.sh), when
	# the packaging phase built them.
	if [[ " ${what[*]} " == *" examples "* ]]; then
		examples_check "" "on the emulated $v PMU, $k" "$log"
	else
		for line in "${examples_checks[@]}"; do
			skip=$((skip + 1))
			echo "SKIP: $line, on the emulated $v PMU, $k (not built: the packaging phase, testing/pkgtest, builds them)"
		done
	fi
	grep -E '^(user: )?not ok [0-9]+ ' "$log" | sed "s/^/  $t /"
	suite_skips
	suite_variants
	[[ " ${what[*]} " == *" flags "* ]] && suite_flags
	[[ " ${what[*]} " == *" perf "* ]] || return 0
	suite_perf
}

# The hybrid Intel guest of kernel $1 (issue 26 point 11;
# testing/phases/jobs/emulated-side.sh): the core types and counters each
# vCPU reports, pctr offering the common 6 + 3 and saying the CPU is
# hybrid, and hybrid_test (the P-core's own counters read zero through
# rdpmc, an E-core faults on them) and scrub_test, every test run and
# passed (6.1's without -icount: scrub_test without its count bounds).
hybrid_results() {
	local k=$1 log=$emu/hybrid-$1.log rc line t="[intel-hybrid $1]" how=
	rc=$(cat "$emu/hybrid-$k.rc" 2>/dev/null || echo 125)
	[[ $k == 6.1.* ]] && how=", without -icount"
	echo "check: emulated hybrid Intel PMU on $k$how, hybrid_test and scrub_test: $(cat "$emu/hybrid-$k.secs" 2>/dev/null)s (vm/run exit $rc)"
	grep -E '^# selftests/hybrid_test\.c:[0-9]+:rdpmc_[a-z_]+:(CPU|P-core)' "$log" |
		sed "s/^# [^:]*:[0-9]*:[a-z_]*:/  $t /"
	line=$(grep -E '^selftests: [0-9]+ passed' "$log" | tail -n 1)
	if [ "$rc" = 0 ] &&
	   grep -q 'pctr: intel: .* 6 general counters (48 bits), 3 fixed (48 bits); hybrid CPU' "$log" &&
	   [[ $line =~ ^selftests:\ ([1-9][0-9]*)\ passed,\ 0\ failed,\ 0\ skipped ]]; then
		add_counts "hybrid_test and scrub_test on the emulated hybrid Intel PMU on $k" "$line"
		ok "$t pctr offers the common 6 + 3 counters; rdpmc reads zero from the P-core's own, an E-core faults on them"
	else
		grep -E '^(# |not ok|pctr: )' "$log" | tail -n 20
		bad "$t hybrid_test and scrub_test: every test ran and passed, pctr says hybrid (exit $rc; $line)"
	fi
}

# The PMU register writes of a context switch between two counting
# threads (issue 27: at most 2 in the steady state, the GLOBAL_CTRL
# writes that stop and start them, where there is a global control;
# before it the event selects stop a slot, 2 a slot), by the msr
# tracepoints (testing/guest/emu-msr.sh; suite_results' v, t and log).
suite_msr() {
	local args line n w slots max
	for args in "1000" "-s 3 1000" "-m 1000" "-m -s 3 1000"; do
		line=$(grep -F "msr: $args: switches" "$log" | head -n 1)
		line=${line:-no result}
		n=$(sed -n 's/.* switches \([0-9]*\) .*/\1/p' <<<"$line")
		w=$(sed -n 's/.* msr-writes \([0-9]*\) .*/\1/p' <<<"$line")
		slots=1
		[[ $args == *"-s 3"* ]] && slots=3
		max=2
		grep -q 'perfmon v1,' "$log" && max=$((2 * slots))
		[ $v = amd ] && ! grep -q 'pctr: amd: .*perfmon v2' "$log" &&
			max=$((2 * slots))
		echo "  $t switch-msrs $args: ${line#msr: "$args": }"
		# A few more writes than switches x max: the histograms are
		# set up and read between two switches.
		if [ -n "$n" ] && [ -n "$w" ] && [ "$n" -gt 0 ] &&
		   [ "$w" -le $((n * max + 20)) ]; then
			ok "$t at most $max MSR writes per context switch ($args: $w for $n)"
		else
			grep -F "msr-by: $args:" "$log" | sed "s/^/  $t /"
			bad "$t at most $max MSR writes per context switch ($args: '$w' for '$n')"
		fi
	done
}

# Each skip of the guest's selftests (as root, then as uid 1000) must
# give a reason allowed here (suite_results' v, k, t, log and smp).
suite_skips() {
	local other allowed who p a line skips n wrong
	other=amd
	[ $v = amd ] && other=intel
	allowed="PCTR_NO_SIM|no $other PMU here|this CPU exposes a PMU|the backend has counters|this CPU has counters|the sim backend counts time|the period is the sim's|libpfm4 finds no PMU on this CPU"
	[ $v = amd ] && allowed+="|the amd backend has no fixed counters"
	[ ${#smp[@]} = 0 ] && allowed+="|one CPU|1 CPU\\(s\\)"
	for who in root user; do
		p=
		a=$allowed
		if [ $who = user ]; then
			p="user: "
			a+="|needs root|the module runs $v, not sim"
		fi
		line=$(grep -E "^${p}selftests: [0-9]+ passed" "$log" | tail -n 1)
		skips=$(grep -E "^${p}ok [0-9]+ # SKIP" "$log" | sed "s/^${p}ok [0-9]* # SKIP //")
		n=0
		[ -z "$skips" ] || n=$(wc -l <<<"$skips")
		wrong=$(grep -Ev "$a" <<<"$skips" | grep .)
		if ! add_counts "selftests as $who on the emulated $v PMU on $k" "$line"; then
			grep -E "^${p}(# |not ok)" "$log" | tail -n 20
			bad "$t selftests as $who ran to completion"
		elif [ -n "$wrong" ]; then
			echo "  $t as $who: $n skipped, these not expected here:"
			sort <<<"$wrong" | uniq -c | sed 's/^/    /'
			bad "$t selftests as $who: no unexpected skip"
		else
			echo "  $t as $who: $n skipped, each allowed ($a)"
			ok "$t selftests as $who: no unexpected skip"
		fi
	done
}

# The vendor's own variants of the selftests, overflow interrupts and
# system mode (suite_results' v, t, log and smp).
suite_variants() {
	local nb ns nu wb ws wu np nf wp nx wx
	# The vendor's own variants all passed: backend_test's 8 (AMD
	# has no fixed counters; one vCPU, no migration and no thread
	# beside a CPU's binding checked on another CPU first; a binding
	# and a thread on the one CPU are), security_test's
	# 13 as root (one vCPU: no hotplug, no binding of another CPU)
	# and its 7 unprivileged ones as uid 1000.
	nb=$(grep -cE "^ok [0-9]+ backend\.$v\." "$log")
	ns=$(grep -cE "^ok [0-9]+ sec\.$v\." "$log")
	nu=$(grep -cE "^user: ok [0-9]+ sec\.$v\." "$log")
	wb=8 ws=13 wu=7
	[ $v = amd ] && wb=$((wb - 1))
	[ ${#smp[@]} = 0 ] && wb=$((wb - 2)) ws=$((ws - 2))
	echo "  $t passed on the $v backend: backend_test $nb of $wb, security_test $ns of $ws as root, $nu of $wu as uid 1000"
	[ "$nb" = $wb ] && [ "$ns" = $ws ] && [ "$nu" = $wu ] &&
		ok "$t backend_test and security_test pass on the $v backend" ||
		bad "$t backend_test and security_test pass on the $v backend ($nb, $ns, $nu)"
	# Overflow interrupts (issue 12): notify_test's and cpc_test's
	# variants for this vendor all pass (AMD: no fixed counter), a
	# thread signalled beside a sampling CPU binding on one vCPU too.
	np=$(grep -cE "^ok [0-9]+ (be|cpcbe)\.$v\." "$log")
	nf=$(grep -cE "^not ok [0-9]+ (be|cpcbe)\.$v\." "$log")
	wp=7
	[ $v = amd ] && wp=6
	echo "  $t overflow interrupts: $np of $wp notify_test/cpc_test cases pass"
	[ "$np" = $wp ] && [ "$nf" = 0 ] &&
		ok "$t overflow signals, exact periods and counts, libcpc's (PMI as NMI)" ||
		bad "$t overflow signals, exact periods and counts, libcpc's (PMI as NMI) ($np of $wp, $nf failed)"
	# System mode (issue 14) on the real backend: sys_test's three
	# x86 cases (rdpmc while a function is set and not otherwise, a
	# counter perf used counted from zero, user_rdpmc=0) pass; with
	# several vCPUs two more (issue 26: the rdpmc switch follows the
	# process, and open and close interrupt no other CPU).
	wx=3
	[ ${#smp[@]} = 0 ] || wx=5
	nx=$(grep -cE "^ok [0-9]+ sysx86(_off)?\.[a-z_]+$" "$log")
	echo "  $t system mode: $nx of $wx sys_test x86 cases pass"
	[ "$nx" = $wx ] &&
		ok "$t system mode: user rdpmc of the CPU's counters, from zero, refused when off" ||
		bad "$t system mode: user rdpmc of the CPU's counters, from zero, refused when off ($nx of $wx)"
}

# Overflow interrupts against perf record, and perf's own tests
# (suite_results' v, k, t and log).
# pmi_val SED-PATTERN: the first match of "pmi: SED-PATTERN" in $log.
# QEMU's flags (issue 26 point 10; emu-flags.sh) in the guest whose
# log is $log, labelled $t.
suite_flags() {
	grep -E '^flags: ' "$log" | sed "s/^/  $t /"
	# The instrument's flags (issue 26 point 10; emu-flags.sh): right
	# alone, under perf record's NMIs every 2000 instructions, and
	# under pctr record; the kernel log check catches a warning.
	[ "$(grep -cE '^flags: (alone|under perf record|under pctr record): flagstress: 3000 iterations, 0 errors' "$log")" = 3 ] &&
		[ "$(flags_val 'under perf record: .*, status 0, nmis \([0-9]*\)')" -ge 500 ] 2>/dev/null &&
		grep -q '^flags: under pctr record: .*, status 0, nmis [1-9]' "$log" &&
		ok "$t QEMU's flags: right after cmp + cmpxchg8b/16b and in flag chains, alone and under PMIs" ||
		bad "$t QEMU's flags: right after cmp + cmpxchg8b/16b and in flag chains, alone and under PMIs"
}

pmi_val() { sed -n "s/^pmi: $1.*/\1/p" "$log" | head -n 1; }
flags_val() { sed -n "s/^flags: $1.*/\1/p" "$log" | head -n 1; }
suite_perf() {
	local ov nm sb sa ms mp must np lost cases c
	grep -E '^pmi: ' "$log" | sed "s/^/  $t /"
	ov=$(pmi_val 'nmis [0-9]*, overflow: \([0-9]*\) overflows.*')
	nm=$(pmi_val 'nmis \([0-9]*\),.*')
	sb=$(pmi_val 'perf record before status 0 samples \([0-9]*\)')
	sa=$(pmi_val 'perf record after status 0 samples \([0-9]*\)')
	[ -n "$ov" ] && [ "$ov" -ge 20 ] && [ "$nm" -ge "$ov" ] &&
		grep -q '^pmi: overflow status 0' "$log" &&
		grep -Eq '^pmi: periods not exact [1-9][0-9]* 0$' "$log" &&
		ok "$t libcpc's overflow example: every period exact, PMIs as NMIs" ||
		bad "$t libcpc's overflow example: every period exact, PMIs as NMIs"
	[ -n "$sb" ] && [ -n "$sa" ] && [ "$sa" -ge 95 ] && [ "$sa" -le 110 ] &&
		grep -q '^pmi: unknown nmis 0' "$log" &&
		ok "$t perf record's NMI sampling works after pctr used PMIs ($sb, $sa samples)" ||
		bad "$t perf record's NMI sampling works after pctr used PMIs ('$sb', '$sa' samples)"
	# Sampling's fast path (issue 27): at most 5 MSR and APIC accesses
	# a sample, the untraced LVTPC write one of them.
	ms=$(pmi_val 'msr accesses [0-9]* for \([0-9]*\) samples.*')
	mp=$(pmi_val 'msr accesses [0-9]* for [0-9]* samples: \([0-9.]*\) per sample')
	[ "${ms:-0}" -ge 20 ] && awk -v p="$mp" 'BEGIN { exit !(p <= 4.1) }' &&
		ok "$t sampling's fast path: $mp PMU MSR accesses and one LVTPC write a sample (target <= 5)" ||
		bad "$t sampling's fast path: '$mp' PMU MSR accesses and one LVTPC write a sample (target <= 5, $ms samples)"
	# perf test: a line per case; the guard.
	grep -E '^perftest ' "$log" | sed 's/^perftest \([^|]*\)|\([^|]*\)|\(.*\)/\1 \2: \3/' |
		sed "s/^/  [perf test $v $k] /"
	grep -E '^perftest-v: ' "$log" | sed "s/^/  [perf test $v $k] /"
	must=perf_must_$v
	must=${!must}
	np=$(grep -cE '^perftest [^|]*\|[^|]*\|Ok' "$log")
	lost=
	IFS='|' read -r -a cases <<<"$must"
	for c in "${cases[@]}"; do
		grep -Fq "|$c|Ok" "$log" || lost+=" '$c'"
	done
	[ -z "$lost" ] && ok "$t perf test: every case that passed before passes ($np pass now)" ||
		bad "$t perf test: cases no longer passing:$lost"
}
