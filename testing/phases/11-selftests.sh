#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: selftests in guests
#
# Every selftest in a QEMU guest on each kernel (6.1 and 6.12), and
# security_test again as uid 1000.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

# The kernels' guests run side by side: a TCG guest is one host thread
# (vm/run's thread=single), the builder has two cores, and vm/run gives
# each run its own initramfs and console log.  The short uid 1000 guests
# run one after the other beside them, not each after its kernel's long
# one: the phase then ends with the longer of the two, with no core left
# idle while the other kernel's guest finishes.
sg_pids=()
for k in "${kernels[@]}"; do
	(
		testing/vm/run --kernel "$k" >"$logdir/guest-$k.log" 2>&1
		echo $? >"$logdir/guest-$k.rc"
	) &
	sg_pids+=($!)
done
# The security rules as they apply to an ordinary user: uid 1000, no
# capabilities, on the simulated PMU (the root-only tests skip).
(
	for k in "${kernels[@]}"; do
		testing/vm/run --kernel "$k" --user --param pmu=sim -- \
			/pctr/selftests/run_all /pctr/selftests/security_test \
			>"$logdir/guest-user-$k.log" 2>&1
		echo $? >"$logdir/guest-user-$k.rc"
	done
) &
sg_pids+=($!)
wait "${sg_pids[@]}"
for k in "${kernels[@]}"; do
	log=$logdir/guest-$k.log
	echo "check: selftests on $k"
	rc=$(cat "$logdir/guest-$k.rc" 2>/dev/null || echo 125)
	guest_result "selftests on $k" "$log" "$rc" selftests "$k"
	log=$logdir/guest-user-$k.log
	rc=$(cat "$logdir/guest-user-$k.rc" 2>/dev/null || echo 125)
	guest_result "security_test as uid 1000 on $k" "$log" "$rc" selftests "$k uid 1000"
done
end_phase
