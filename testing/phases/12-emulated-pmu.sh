#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: the emulated PMU
#
# pctr on QEMU's emulated Intel and AMD PMUs, one guest per kernel and
# vendor running testing/guest/emu-suite.sh, and the short benchmark
# against perf; the results are read by testing/phases/emu-results.sh's
# functions.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=testing/phases/emu-results.sh
. "$(dirname "$0")/emu-results.sh"

# QEMU with pctr's emulated Intel and AMD PMUs (testing/vm/qemu/build,
# cached outside the clone; the first run builds it, timed).  On each
# kernel and vendor, under -icount: pmu=auto picks the real backend; perf
# (the referee) counts a calibrated loop's instructions exactly; pctr
# counts the same loop exactly as perf; pctr selfcheck passes; perf and
# pctr hand the counters over (each refused while the other counts).
# PCTR_EMU_VENDORS="intel amd" chooses the vendors.
emu=$logdir/emu
mkdir -p "$emu"
t0=$(date +%s)
if no_ccache testing/vm/qemu/build >"$emu/qemu-build.log" 2>&1; then
	echo "check: QEMU with the emulated PMU: $(grep -o 'built in [0-9]*s' "$emu/qemu-build.log" || echo cached), phase $(($(date +%s) - t0))s"
	emu_ok=1
else
	tail -n 20 "$emu/qemu-build.log"
	bad "QEMU with the emulated PMU builds (testing/vm/qemu/build)"
	emu_ok=0
fi
cc -O2 -static -Wall -Wextra -I"$top/uapi" -I"$top/lib" -o "$emu/loop" \
	testing/vm/emu/loop.c build/lib/libpctr.a || emu_ok=0
cc -O2 -static -Wall -Wextra -I"$top/uapi" -I"$top/lib" -o "$emu/switch-msrs" \
	testing/guest/switch-msrs.c build/lib/libpctr.a -lpthread || emu_ok=0
cc -O2 -static -Wall -Wextra -o "$emu/flagstress" testing/vm/emu/flagstress.c || emu_ok=0
# One guest per kernel and vendor (each boot under -icount costs, so
# everything that needs the emulated PMU shares it): first the counting
# and hand-over script (testing/guest/emu-count.sh); then the selftests on the real backends
# (backend_test, security_test, and the tests that adapt to what pmu=auto
# found: dev_test, module_test, lib_test, notify_test, cpc_test, and
# page_abi_test and page_abi_v1_test, both counter page versions) as root,
# with the simulator's tests left to the plain guests (PCTR_NO_SIM), and
# security_test again as uid 1000; on 6.12 (two vCPUs: migration,
# bindings and hotplug across CPUs) scrub_test and the MSR writes a
# context switch costs (testing/guest/emu-msr.sh), on the newest kernel's
# Intel guest stat_test, on every kernel the reference pages' examples
# as the packaging phase built them (testing/examples/guest-run, with
# pctr loaded perfmon=1: Perfmon's cache flush, OpenBSD's
# time_functionx, cpc_bind_curlwp(3CPC)'s Examples 1 and 2; skipped when
# not built), then perf's own tests that touch hardware events
# (PCTR_PERF_TESTS), with pctr unloaded: each case's result is reported,
# and those in PCTR_PERF_MUST_PASS_<vendor> (they passed when this was
# written) must still pass.  A skip must give a reason allowed here: the
# simulator's tests, the other vendor's PMU, a test about having no PMU,
# "one CPU" on one vCPU, root-only tests as uid 1000, the variants of
# other backends as uid 1000.
# PCTR_EMU_SUITE_KERNELS overrides the kernels ("" leaves this out).
# The cases by a fragment of their description (perf test matches
# subtests by their own): "x86 rdpmc" is older perfs' name of what 6.12
# calls "User space counter reading".
perf_tests=${PCTR_PERF_TESTS:-"mmap interface|User space counter reading|PERF_RECORD_|Setup struct perf_event_attr|Object code reading|Use a dummy software event|Track with sched_switch|Event times|TSC support|Perf time to TSC|Event groups|pfm-events|AMD IBS via core pmu|x86 rdpmc"}
echo "$perf_tests" >"$emu/perf-tests"
# The perf test cases (descriptions, as perf prints them) that passed
# on each vendor when measured (testing.rst): they must keep passing.
perf_passed="Read samples using the mmap interface|User space counter reading of instructions|User space counter reading of cycles|PERF_RECORD_* events & perf_sample fields|Object code reading|Use a dummy software event to keep tracking|Track with sched_switch|Event times|TSC support|Perf time to TSC"
# shellcheck disable=SC2034 # read by suite_perf (emu-results.sh)
perf_must_intel=${PCTR_PERF_MUST_PASS_intel-$perf_passed}
# shellcheck disable=SC2034
perf_must_amd=${PCTR_PERF_MUST_PASS_amd-$perf_passed}
ex_built=$top/build/pkgtest/shared
# What the guest of kernel $1 and vendor $2 runs: sets smp, extra, what
# and stat.
suite_args() {
	local k=$1 v=$2 f
	smp=() extra=() what=() stat=
	# Sampling on every kernel (issue 12), every part.
	what=("sample_$v") extra=(--add testing/sample-check --add testing/sample-kernel --add testing/sample-attach --add testing/sample-system --add testing/sample-unpriv
		"${top_check_adds[@]}")
	# QEMU's flags under PMIs (issue 26 point 10), on every kernel.
	what+=(flags) extra+=(--add testing/guest/emu-flags.sh --add "$emu/flagstress")
	# The reference pages' examples, as the packaging phase built them
	# (testing/pkgtest: build/pkgtest/shared), on every kernel.
	if [ -x "$ex_built/cpc_example2" ]; then
		what+=(examples) extra+=(--add testing/examples/guest-run)
		for f in libpctr.so.1 libcpc.so.1 perfmon_flush \
			 obsd_time_functionx cpc_example1 cpc_example2; do
			extra+=(--add "$ex_built/$f")
		done
	fi
	case $k in
	6.1.*) ;;	# one vCPU under -icount (vm/run)
	*)	smp=(--smp 2) what+=(perf scrub msr)
		extra+=(--add testing/guest/emu-pmi.sh --add build/examples/overflow
			--add testing/guest/emu-msr.sh --add "$emu/switch-msrs")
		for f in /usr/bin/objdump /usr/bin/sleep; do
			[ -x $f ] && extra+=(--add "$f")
		done
		[ "$k" = "$kb" ] && [ $v = intel ] && stat=1 what+=(stat) ;;
	esac
}
# One vendor's guests, kernel after kernel: the log, its exit status and
# its time in files.  The benchmark and the hybrid Intel guests ran in
# the background beside the selftests' phase
# (testing/phases/jobs/emulated-side.sh); their results are read here.
suite_stream() {
	local v=$1 k t1
	for k in $kernels_suite; do
		suite_args "$k" "$v"
		t1=$(date +%s)
		testing/vm/run --kernel "$k" --emulated-pmu "$v" "${smp[@]}" --perf \
			--add "$emu/loop" --add testing/guest/emu-count.sh \
			--add testing/guest/emu-suite.sh --add "$emu/perf-tests" \
			"${extra[@]}" -- sh ./emu-suite.sh "${what[@]}" \
			>"$emu/suite-$v-$k.log" 2>&1
		echo $? >"$emu/suite-$v-$k.rc"
		echo $(($(date +%s) - t1)) >"$emu/suite-$v-$k.secs"
	done
}
# lines_found LABEL LOG RE...: whether every extended regexp RE matches
# a line of LOG; each one that does not is shown as "  LABEL RE".
lines_found() {
	local label=$1 log=$2 re rc=0
	shift 2
	for re; do
		grep -Eq "$re" "$log" || { echo "  $label $re"; rc=1; }
	done
	return $rc
}
# The benchmarks against perf's hardware events (make bench, short: one
# guest on the emulated Intel PMU under -icount).  Checked: every
# comparison row is there with its figures (and its MSR counts, or "-"),
# every target's verdict line with its figures, and a summary verdict
# per target (bench_targets).  The rule for the verdicts
# (Documentation/benchmarks.rst): a target in bench_met was met when
# last measured, and must stay met (a regression fails the build); any
# other target is reported, met or not, without failing.  Whoever meets
# a target adds its key to bench_met in the same commit.
# PCTR_BENCH_MET overrides the list.
bench_targets="read_insns vtsc_insns read_vs_perf read_all pciocrd_group ctxsw_wrmsr ctxsw_ins ctxsw_ins_cyc sample_msr sample_one sample_1k"
bench_met=${PCTR_BENCH_MET-"read_insns vtsc_insns read_vs_perf read_all pciocrd_group ctxsw_wrmsr ctxsw_ins ctxsw_ins_cyc sample_msr sample_1k"}
# bench_guards: the guard lines (bench/bench) that must say ok.
bench_guards="sample_acc sample_ins ctxsw_acc ctxsw_acc_cyc ctxsw_add ctxsw_add_cyc ctxsw_inline"
bench_results() {
	local log rc t num cnt rows_ok verdicts_ok guards_ok key summary
	log=$emu/bench.log
	rc=$(cat "$emu/bench.rc" 2>/dev/null || echo 125)
	echo "check: make bench, short, on the emulated Intel PMU: $(cat "$emu/bench.secs" 2>/dev/null)s (exit $rc; in the background, testing/phases/jobs/emulated-side.sh)"
	t="[bench intel $kb]"
	num='[0-9]+(\.[0-9]+)?'
	cnt="( +($num|-)){3}"	# rdmsr, wrmsr, rdpmc
	[ $rc = 0 ] && ok "$t the three benchmarks ran and printed their figures" ||
		bad "$t the three benchmarks ran and printed their figures (exit $rc)"
	rows_ok=1
	lines_found "$t no row:" "$log" \
		  "^kernel command line: .*mitigations=" \
		  "^baseline +$num +-$cnt\$" \
		  "^pctr insns +$num +[+-]$num$cnt\$" "^pctr insns\+cycles +$num +[+-]$num$cnt\$" \
		  "^perf insns +$num +[+-]$num$cnt\$" "^perf insns\+cycles +$num +[+-]$num$cnt\$" \
		  "^pctr insns, inline +$num +[+-]$num$cnt\$" "^perf insns, inline +$num +[+-]$num$cnt\$" \
		  "^pctr insns, one side +$num +[+-]$num$cnt\$" "^perf insns, one side +$num +[+-]$num$cnt\$" \
		  "^bare rdpmc \(pctr's counter\) +$num +$num$cnt\$" \
		  "^pctr_vtsc \(inline virtual TSC\) +$num +$num$cnt\$" \
		  "^pctr_read slot 0 \(inline\) +$num +$num$cnt\$" \
		  "^pctr_read_all, 4 slots +$num +$num$cnt\$" \
		  "^PCIOCRD ioctl, 4 slots +$num +$num$cnt\$" "^PCIOCRD ioctl, 1 slot +$num +$num$cnt\$" \
		  "^null ioctl \(ENOTTY, /dev/null\) +$num +$num$cnt\$" "^null read\(\) \(/dev/null\) +$num +$num$cnt\$" \
		  "^bare rdpmc \(perf's counter\) +$num +$num$cnt\$" \
		  "^perf page read, minimal +$num +$num$cnt\$" \
		  "^perf page read, time-scaling form +$num +$num$cnt\$" \
		  "^perf read\(\), 1 hardware event +$num +$num$cnt\$" \
		  "^perf read\(\), group of 4 \(FORMAT_GROUP\) +$num +$num$cnt\$" \
		  "^workload alone +$num +- +$num +-$" \
		  "^pctr record -c 1000000 +$num +[+-]$num +$num +[+-]$num +[1-9][0-9]* +$num/s$" \
		  "^perf record -c 1000000 +$num +[+-]$num +$num +[+-]$num +[1-9][0-9]* +$num/s$" \
		  "^pctr record -c 20000 +$num +[+-]$num +$num +[+-]$num +[1-9][0-9]* +$num/s$" \
		  "^perf record -c 20000 +$num +[+-]$num +$num +[+-]$num +[1-9][0-9]* +$num/s$" \
		  "^pctr record +[+-]$num +-?$num +-?$num +[1-9][0-9]* +($num|-)$" \
		  "^perf record +[+-]$num +-?$num +-?$num +[1-9][0-9]* +($num|-)$" ||
		rows_ok=0
	pass_if $rows_ok "$t pctr and perf's hardware events side by side, with MSR counts (context switch, reads, sampling)"
	verdicts_ok=1
	lines_found "$t no line:" "$log" \
		  "^verdict: inline counter read \(pctr_read\) = $num insns a read \(target <= 17\): (met|NOT met, by $num)" \
		  "^verdict: inline virtual TSC read \(pctr_vtsc\) = $num insns a read \(target <= 14\): (met|NOT met, by $num)" \
		  "^verdict: pctr_read / perf's minimal page read = $num / $num = $num \(target <= 0\.6\): (met|NOT met, by $num)" \
		  "^verdict: pctr_read_all, 4 slots / perf read\(\) of 1 event = $num / $num = $num \(target <= 0\.2\): (met|NOT met, by $num)" \
		  "^verdict: PCIOCRD, 4 slots / perf group read\(\) of 4 = $num / $num = $num \(target <= 0\.8\): (met|NOT met, by $num)" \
		  "^verdict: MSR writes added by pctr, both threads counting instructions = $num wrmsr a switch \(target <= 2\): (met|NOT met, by $num)" \
		  "^verdict: added context-switch cost, pctr / perf, instructions = [+-]$num / [+-]$num = $num \(target <= 0\.2\): (met|NOT met, by $num)" \
		  "^verdict: added context-switch cost, pctr / perf, instructions\+cycles = [+-]$num / [+-]$num = $num \(target <= 0\.2\): (met|NOT met, by $num)" \
		  "^verdict: MSR accesses a sample, pctr \(APIC not counted\) = $num accesses a sample \(target <= 5\): (met|NOT met, by $num)" \
		  "^verdict: the cost of one sample, pctr / perf = [+-]$num / [+-]$num = $num \(target <= 0\.3\): (met|NOT met, by $num)" \
		  "^verdict: added run time sampled every 1000000 instructions, pctr / perf = [+-]$num / [+-]$num = $num \(target <= 1\): (met|NOT met, by $num)" ||
		verdicts_ok=0
	# A summary verdict with its figure for each target, by its key.
	for key in $bench_targets; do
		summary=$(grep -A 2 -F "[$key]" "$log" | tail -n 1)
		case $summary in
		"    => met")
			# shellcheck disable=SC2076 # a word of the list
			[[ " $bench_met " =~ " $key " ]] ||
				echo "  $t $key met now: add it to bench_met" ;;
		"    => NOT met"*)
			# shellcheck disable=SC2076 # a word of the list
			if [[ " $bench_met " =~ " $key " ]]; then
				echo "  $t $key was met and is not now: $(grep -A 1 -F "[$key]" "$log" | tail -n 1)"
				verdicts_ok=0
			else
				echo "  $t $key not met yet (reported):$(grep -A 1 -F "[$key]" "$log" | tail -n 1 | sed 's/^ *icount insns://')"
			fi ;;
		*)	echo "  $t $key: no summary verdict with a figure"; verdicts_ok=0 ;;
		esac
	done
	pass_if $verdicts_ok "$t every target's verdict line, with its figures; the targets met before still met ($bench_met)"
	# The guards (bench/bench): pctr's figures held at their last
	# measured values with some slack; one above its limit fails.
	guards_ok=1
	for key in $bench_guards; do
		summary=$(grep -E "^guard $key: " "$log")
		case $summary in
		*" (limit "*"): ok") ;;
		*) echo "  $t ${summary:-guard $key: no line}"; guards_ok=0 ;;
		esac
	done
	pass_if $guards_ok "$t pctr's switch and sample figures within their guards ($bench_guards)"
	[ $rows_ok = 1 ] && [ $verdicts_ok = 1 ] && [ $guards_ok = 1 ] ||
		tail -n 70 "$log"
}
# The guests run two at a time, one stream per vendor (the debug
# kernel's guest, started long before, has usually ended; -icount makes every figure in
# them independent of a busy host): the results are read after.
# shellcheck disable=SC2206 # split on purpose
vendors=(${PCTR_EMU_VENDORS:-intel amd})
if [ $emu_ok = 1 ]; then
	s_pids=()
	for v in "${vendors[@]}"; do
		suite_stream "$v" &
		s_pids+=($!)
	done
	wait "${s_pids[@]}"
	for k in $kernels_suite; do
		for v in "${vendors[@]}"; do
			suite_results "$k" "$v"
		done
	done
	for k in $kernels_suite; do
		[ -f "$emu/hybrid-$k.rc" ] && hybrid_results "$k"
	done
	bench_results
fi
echo "check: emulated PMU phase $(($(date +%s) - t0))s"
end_phase
