#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: the VM bench
#
# The VM bench itself (exit status, --add, --user, log checking) and the
# tools in a guest: the readout, the benchmark, the self-check.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

bench=$logdir/bench
mkdir -p "$bench"
cat >"$bench/exit7.c" <<'EOF'
#include <unistd.h>
int main(void) { return getuid() == 1000 ? 0 : 7; }
EOF
cc -O2 -o "$bench/exit7" "$bench/exit7.c"
# The first guest (no PMU) also shows the readout and the self-check
# (checked below): exit7 is its last command, exec'd.
testing/vm/run --kernel "$kb" --add "$bench/exit7" -- sh -c '
	pctr info
	pctr selfcheck; echo "selfcheck exit $?"
	exec ./exit7' >"$bench/1.log" 2>&1
rc=$?
[ $rc = 7 ] && ok "vm/run returns the program's exit status" ||
	bad "vm/run returns the program's exit status (got $rc)"
testing/vm/run --kernel "$kb" --user --add "$bench/exit7" -- ./exit7 >"$bench/2.log" 2>&1
rc=$?
[ $rc = 0 ] && ok "vm/run --user runs as uid 1000" ||
	bad "vm/run --user runs as uid 1000 (got $rc)"
testing/vm/run --kernel "$kb" -- sh -c 'echo "WARNING: CPU: 0 PID: 1 injected by testing/check" >/dev/kmsg' \
	>"$bench/3.log" 2>&1
rc=$?
[ $rc = 120 ] && ok "vm/run fails a run whose dmesg shows a WARNING" ||
	bad "vm/run fails a run whose dmesg shows a WARNING (got $rc)"
# A program that fails on its own must not hide a bad kernel log (120,
# with its own status printed); and --add copies what a link points to
# (a library's SONAME link), under the link's name.
echo pctr-link-target >"$bench/link-target"
ln -sf link-target "$bench/link.so.1"
testing/vm/run --kernel "$kb" --add "$bench/link.so.1" -- sh -c '
	if [ -f link.so.1 ] && [ ! -L link.so.1 ] && grep -q pctr-link-target link.so.1; then
		echo "add: link arrived as its file"
	fi
	echo "WARNING: CPU: 0 PID: 1 injected by testing/check" >/dev/kmsg
	exit 3' >"$bench/3b.log" 2>&1
rc=$?
grep -q 'COMMAND exited 3' "$bench/3b.log" && [ $rc = 120 ] &&
	ok "vm/run fails a bad kernel log whatever the program's status (120, 'exited 3')" ||
	bad "vm/run fails a bad kernel log whatever the program's status (got $rc)"
grep -q '^add: link arrived as its file' "$bench/3b.log" &&
	ok "vm/run --add copies the file a symbolic link points to" ||
	bad "vm/run --add copies the file a symbolic link points to"
# What each guest check below looks for in its guest's log.
info_shown() {
	grep -q '^backend ' "$1" && grep -q '^tsc .*MHz measured' "$1"
}
selfcheck_all_skipped() {
	grep -q '^selfcheck exit 0' "$1" &&
		grep -Eq '^selfcheck: 0 passed, 0 failed, [1-9][0-9]* skipped' "$1"
}
bench_table_shown() {
	grep -Eq '^baseline +[0-9.]+' "$1" &&
		grep -Eq '^pctr +[0-9.]+ +[+-][0-9.]+' "$1" &&
		grep -Eq '^perf task-clock +[0-9.]+ +[+-][0-9.]+' "$1"
}
selfcheck_all_passed() {
	grep -q '^selfcheck exit 0' "$1" &&
		grep -Eq '^selfcheck: [1-9][0-9]* passed, 0 failed' "$1"
}
# Guests do several checks each (a boot costs): without a PMU (the
# first guest, above), the readout and the self-check; on the simulated
# PMU, the benchmark and the self-check.
verdict "make run's readout (pctr info in a guest)" "$bench/1.log" info_shown
# The hardware self-check: without a PMU every check skips, cleanly;
# on the simulated PMU its own plumbing checks pass.
verdict "pctr selfcheck skips every check without a PMU" "$bench/1.log" \
	selfcheck_all_skipped
# The benchmark runs and prints its table (figures, not a verdict).
testing/vm/run --kernel "$kb" --param pmu=sim -- sh -c '
	ctxsw_bench 5000 3
	pctr selfcheck --no-perf; echo "selfcheck exit $?"' >"$bench/5.log" 2>&1
verdict "ctxsw_bench prints pctr and perf side by side" "$bench/5.log" \
	bench_table_shown
verdict "pctr selfcheck passes on the simulated PMU" "$bench/5.log" \
	selfcheck_all_passed
end_phase
