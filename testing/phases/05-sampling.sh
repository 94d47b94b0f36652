#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: sampling
#
# Sampling: pctr record and pctr report (testing/sample-check) in guests.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

bench=$logdir/bench
mkdir -p "$bench"
# On the simulated PMU, on each kernel, as root (with rmmod while
# sampling); it runs its unprivileged part again as uid 1000 (no kernel
# address); pctr top under tmux (testing/top-check).
# testing/sample-check prints one PASS/FAIL line per check; about 70 s a
# kernel, 20 to 30 s more for pctr top.  The kernels' guests run side by
# side (a TCG guest is one host thread; the background jobs have the
# rest), their results read after, in order.
s_pids=()
for k in "${kernels[@]}"; do
	testing/vm/run --kernel "$k" --param pmu=sim --smp 2 \
		--add testing/sample-check --add testing/sample-kernel --add testing/sample-attach --add testing/sample-system --add testing/sample-unpriv \
		"${top_check_adds[@]}" \
		-- sh ./sample-check >"$bench/sample-$k.log" 2>&1 &
	s_pids+=($!)
done
for i in "${!kernels[@]}"; do
	k=${kernels[$i]}
	log="$bench/sample-$k.log"
	wait "${s_pids[$i]}"
	rc=$?
	relay_sample_checks "$k: " "$log"
	grep -qE '^(PASS|FAIL): sample:' "$log" && [ $rc != 120 ] ||
		{ bad "$k: sample-check ran in the guest (exit $rc)"; tail -n 20 "$log"; }
done
end_phase
