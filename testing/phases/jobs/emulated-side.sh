#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's background job for the phase "the emulated PMU": its
# guests that need no other of the phase's, left in build/check/emu for
# it to read (logs, exit statuses, times).  The driver starts it after
# the documentation's examples, so that it runs beside the selftests'
# guests, which leave a core idle for a third of their phase (their
# tests sleep); both are timed by instructions (-icount), so a busy
# host changes none of their figures.  With QEMU not built yet (a cold
# run), testing/vm/qemu/build builds it first, under its lock.
#
#   - The short benchmark against perf (make bench --quick, -icount
#     only) on the emulated Intel PMU of the newest kernel.
#   - The hybrid Intel part (issue 26 point 11): P-cores 8 + 4, E-cores
#     6 + 3, two vCPUs (one of each), on each kernel, hybrid_test (perf
#     leaves counts in the P-core's own counters) and scrub_test.  6.1
#     hangs bringing up a second vCPU under -icount (vm/run), so its
#     guest runs without it, and scrub_test leaves out its bounds on a
#     count (PCTR_COUNTS_INEXACT).  PCTR_EMU_HYBRID=0 leaves it out.
# PCTR_EMU_SUITE_KERNELS chooses the kernels, as for the phase
# (kernels_suite, testing/lib.sh).
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

emu=$logdir/emu
mkdir -p "$emu"
rm -f "$emu"/hybrid[.-]* "$emu"/bench.*
no_ccache testing/vm/qemu/build >"$emu/qemu-build-side.log" 2>&1 || exit 0

t1=$(date +%s)
bench/bench --quick --only icount --kernel "$kb" >"$emu/bench.log" 2>&1
echo $? >"$emu/bench.rc"
echo $(($(date +%s) - t1)) >"$emu/bench.secs"

[ "${PCTR_EMU_HYBRID:-1}" = 1 ] || exit 0
for k in $kernels_suite; do
	opt=() env=
	case $k in
	6.1.*) opt=(--no-icount) env="PCTR_COUNTS_INEXACT=1 " ;;
	esac
	t1=$(date +%s)
	testing/vm/run --kernel "$k" --emulated-pmu intel-hybrid --smp 2 "${opt[@]}" \
		--perf -- sh -c "dmesg | grep 'pctr: intel'
			${env}PCTR_NO_SIM=1 /pctr/selftests/run_all /pctr/selftests/hybrid_test /pctr/selftests/scrub_test" \
		>"$emu/hybrid-$k.log" 2>&1
	echo $? >"$emu/hybrid-$k.rc"
	echo $(($(date +%s) - t1)) >"$emu/hybrid-$k.secs"
done
