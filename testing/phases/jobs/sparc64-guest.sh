#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's background job for the phase "sparc64 guest": pctr on
# sparc64 kernels (6.12 and 6.1; PCTR_SPARC64_KERNELS) under QEMU's sun4u
# with the emulated UltraSPARC I/II counters, the logs, exit statuses
# and times in build/check/sparc64-guest.
#
# On each kernel, two guests: guest-check under -icount (the backend
# loads, PCR.PRIV as user space sees it, the Perfmon program with exact
# counts), then the portable per-thread selftests of $sparc_suite
# through run_all without -icount (their timed loops then take
# wall-clock time, as on x86; they count on the simulated PMU or need no
# exact count).  Warm, the job is the module and user space cross-built
# for each kernel and the TCG guests, done on one core while the next
# phases run (the driver starts it after the host tests).  Cold, QEMU,
# the kernels and busybox are built first, here in the background too,
# and their time is printed with the results.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

sparc_suite="backend_test bind_test cpc_test cpc_inherit_test cpc_bind_test cputrack_test ctx_test dev_test lib_test notify_test openbsd_test page_test pctx_test perfmon_dev_test sample_test security_test"
sgd=$logdir/sparc64-guest
rm -rf "$sgd"
mkdir -p "$sgd"

cold=
testing/vm/qemu/build-sparc64 --check || cold+=" QEMU"
for sk in "${sparc_kernels[@]}"; do
	testing/vm/kernel/build-sparc64-guest --check "$sk" >/dev/null ||
		cold+=" kernel-$sk"
done
testing/vm/sparc64/build-busybox --check >/dev/null || cold+=" busybox"
echo "$cold" >"$sgd/cold"
t=$(date +%s)
if [ -n "$cold" ]; then
	export CCACHE_DISABLE=1	# each has a cache of its own (testing/lib.sh)
	{ testing/vm/qemu/build-sparc64 &&
	  for sk in "${sparc_kernels[@]}"; do
		testing/vm/kernel/build-sparc64-guest "$sk" || exit 1
	  done &&
	  testing/vm/sparc64/build-busybox; } >"$sgd/build.log" 2>&1
	unset CCACHE_DISABLE
fi
echo $(($(date +%s) - t)) >"$sgd/build.secs"
for sk in "${sparc_kernels[@]}"; do
	t=$(date +%s)
	testing/vm/sparc64/run --kernel "$sk" \
		--add testing/vm/sparc64/guest-check -- ./guest-check \
		>"$sgd/guest-$sk.log" 2>&1
	echo $? >"$sgd/guest-$sk.rc"
	# shellcheck disable=SC2046,SC2086 # split on purpose
	testing/vm/sparc64/run --kernel "$sk" --no-icount --timeout 1500 \
		-- /pctr/selftests/run_all $(printf '/pctr/selftests/%s ' $sparc_suite) \
		>"$sgd/suite-$sk.log" 2>&1
	echo $? >"$sgd/suite-$sk.rc"
	echo $(($(date +%s) - t)) >"$sgd/guest-$sk.secs"
done
