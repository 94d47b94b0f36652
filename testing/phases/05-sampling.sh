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
# kernel, 20 to 30 s more for pctr top.
for k in "${kernels[@]}"; do
	log="$bench/sample-$k.log"
	testing/vm/run --kernel "$k" --param pmu=sim --smp 2 \
		--add testing/sample-check --add testing/sample-attach --add testing/sample-unpriv \
		"${top_check_adds[@]}" \
		-- sh ./sample-check >"$log" 2>&1
	rc=$?
	relay_sample_checks "$k: " "$log"
	grep -qE '^(PASS|FAIL): sample:' "$log" && [ $rc != 120 ] ||
		{ bad "$k: sample-check ran in the guest (exit $rc)"; tail -n 20 "$log"; }
done
end_phase
