#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sh ./emu-suite.sh [perf] [scrub] [stat] [msr] [sample_VENDOR] [examples]
#                   [flags]
#
# What a guest on the emulated PMU runs (make check's phase "the emulated
# PMU"): emu-count.sh, the selftests on the real backend as root and as
# uid 1000, and as asked scrub_test, stat_test, the register writes of
# a context switch (emu-msr.sh), sample-check, the reference pages'
# examples (testing/examples/guest-run), QEMU's flags under PMIs
# (emu-flags.sh), then
# emu-pmi.sh and perf's own tests with pctr unloaded: the cases of
# ./perf-tests (fragments of their descriptions, separated by '|').
sel=/pctr/selftests
for a in "$@"; do
	case "$a" in
	sample_*) want_sample=${a#sample_} ;;
	*) eval "want_$a=1" ;;
	esac
done
# First, on the module as the bench loaded it: pmu=auto's pick, perf and
# pctr counting the calibrated loop, pctr stat, the self-check and the
# hand-over (emu-count.sh).
sh ./emu-count.sh
# The simulator's tests run in the plain guests: PCTR_NO_SIM skips them.
PCTR_NO_SIM=1 $sel/run_all $sel/backend_test $sel/security_test $sel/dev_test \
	$sel/module_test $sel/lib_test $sel/notify_test $sel/cpc_test \
	$sel/cpc_inherit_test $sel/cpc_bind_test $sel/sys_test \
	$sel/page_abi_test $sel/page_abi_v1_test 2>&1
su -s /bin/sh user -c "export PATH=$PATH; cd /work; \
	$sel/run_all $sel/security_test" 2>&1 | sed 's/^/user: /'
[ -n "$want_scrub" ] && $sel/run_all $sel/scrub_test 2>&1 | sed 's/^/scrub: /'
[ -n "$want_msr" ] && sh ./emu-msr.sh
[ -n "$want_stat" ] && PCTR_NO_SIM=1 $sel/run_all $sel/stat_test 2>&1 | sed 's/^/stattest: /'
# Sampling on the real backend (testing/sample-check; it reloads the
# module as it found it).
if [ -n "$want_sample" ]; then
	t0=$(cut -d. -f1 /proc/uptime)
	sh ./sample-check $want_sample 2>&1
	echo "# sample-check took $(($(cut -d. -f1 /proc/uptime) - t0)) s"
fi
# The reference pages' examples as testing/pkgtest built them (it
# loads pctr with perfmon=1 for them, and as it was after).
if [ -n "$want_examples" ]; then
	t0=$(cut -d. -f1 /proc/uptime)
	sh ./guest-run 2>&1
	echo "# examples took $(($(cut -d. -f1 /proc/uptime) - t0)) s"
fi
if [ -n "$want_flags" ]; then
	t0=$(cut -d. -f1 /proc/uptime)
	sh ./emu-flags.sh
	echo "# flags took $(($(cut -d. -f1 /proc/uptime) - t0)) s"
fi
[ -n "$want_perf" ] || exit 0
[ -f ./emu-pmi.sh ] && sh ./emu-pmi.sh
rmmod pctr
# coreutils' sleep (dynamic, as perf's PERF_RECORD_* test wants it) and
# objdump (for "Object code reading") are in /work.
export PATH=/work:$PATH
tr '|' '\n' <perf-tests | while read -r t; do
	perf test -v "$t" >pt.out 2>&1
	if ! grep -Eq '^ *[0-9]+(\.[0-9]+)?: .* : ' pt.out; then
		echo "perftest none|$t|no such test in this perf"
		continue
	fi
	sed -n 's/^ *\([0-9][0-9.]*\): \(.*[^ ]\) *: \([^:]*\)$/perftest \1|\2|\3/p' pt.out
	grep -q ': FAILED' pt.out && grep -v '^ *[0-9][0-9.]*: ' pt.out |
		tail -n 12 | sed 's/^/perftest-v: /'
done
exit 0
