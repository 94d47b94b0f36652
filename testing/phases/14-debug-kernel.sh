#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: the debug kernel
#
# The debug kernel (KASAN, lockdep, UBSAN, kmemleak...): planted bugs are
# reported, then every selftest with no report and no leak.  The kernel,
# the module and the guests ran in the background
# (testing/phases/jobs/debug-kernel.sh, started by the driver, which
# waited for it); here their results.  PCTR_DEBUG_KERNEL=0 leaves it
# out.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

[ "${PCTR_DEBUG_KERNEL:-1}" != 0 ] || end_phase
dbg=$logdir/debug
cat "$dbg/build.log"
if [ ! -s "$dbg/ktree" ]; then
	tail -n 30 "$dbg/build.log"
	bad "debug kernel built with every option of debug.config"
	end_phase
fi
ktree=$(cat "$dbg/ktree")
echo "check: debug kernel $(cat "$ktree/../release") ready in $(cat "$dbg/ready.secs")s (built in $(cat "$ktree/../build-seconds")s)"
ok "debug kernel built with every option of debug.config"
if [ "$(cat "$dbg/module.rc")" = 0 ] &&
   ! grep -E 'warning:|error:' "$dbg/module.log" >/dev/null; then
	ok "module W=1 clean on the debug kernel"
else
	grep -E 'warning:|error:' "$dbg/module.log" | head -n 20
	tail -n 5 "$dbg/module.log"
	bad "module W=1 clean on the debug kernel"
fi
cat "$dbg/planted.log"

echo "check: debug kernel: planted bugs, $(cat "$dbg/planted.secs")s"
rc=$(cat "$dbg/planted.rc" 2>/dev/null || echo 125)
for d in 'KASAN:BUG: KASAN: slab-out-of-bounds in planted_kasan' \
	 'UBSAN:UBSAN: shift-out-of-bounds' \
	 'DEBUG_OBJECTS:ODEBUG: object .* is on stack .*, but NOT annotated' \
	 'lockdep:WARNING: possible recursive locking detected' \
	 'DEBUG_ATOMIC_SLEEP:BUG: sleeping function called from invalid context'; do
	if grep -Eq "${d#*:}" "$dbg/planted-run.log"; then
		ok "debug kernel: ${d%%:*} reports a planted bug"
	else
		bad "debug kernel: ${d%%:*} reports a planted bug"
	fi
done
if [ "$rc" = 120 ]; then
	ok "vm/run fails a run with planted debug reports"
else
	tail -n 30 "$dbg/planted-run.log"
	bad "vm/run fails a run with planted debug reports (got $rc)"
fi

rc=$(cat "$dbg/guest.rc" 2>/dev/null || echo 125)
echo "check: debug kernel: selftests and kmemleak, $(cat "$dbg/guest.secs")s (beside the emulated PMU's guests)"
grep -E '^leakcheck: ' "$dbg/guest.log" | sed 's/^/  [debug] /'
grep -E '^(not ok|ok) [0-9]+ ' "$dbg/guest.log" | sed 's/^/  [debug] /'
line=$(grep -E '^selftests: [0-9]+ passed' "$dbg/guest.log" | tail -n 1)
add_counts "selftests on debug" "$line" || {
	# A stall: the guest's watchdog dumped every task's stack.
	grep -E -A40 'sysrq: Show (Blocked State|State)' "$dbg/guest.log" | head -n 120
	bad "selftests on debug ran to completion"
}
grep -q ' 0 failed' <<<"$line" || failure_details "selftests on debug" "$dbg/guest.log"
grep -q "^leakcheck: calibration: planted.ko's planted leak found" "$dbg/guest.log" &&
	ok "kmemleak reports a leak planted by a module" ||
	bad "kmemleak reports a leak planted by a module"
grep -q "^leakcheck: cycles: 0 leak(s) of pctr's" "$dbg/guest.log" &&
	ok "kmemleak: no leak of pctr's after 5 load/unload cycles" ||
	bad "kmemleak: no leak of pctr's after 5 load/unload cycles"
grep -q "^leakcheck: selftests: 0 leak(s) of pctr's" "$dbg/guest.log" &&
	ok "kmemleak: no leak of pctr's after the selftests" ||
	bad "kmemleak: no leak of pctr's after the selftests"
if grep -q 'vm/run: kernel log check failed' "$dbg/guest.log" ||
   [ "$rc" = 124 ] || [ "$rc" = 125 ] || [ "$rc" = 120 ]; then
	grep -A3 'vm/run: ' "$dbg/guest.log" | head -n 20
	bad "debug kernel log clean (no KASAN, lockdep, UBSAN, ODEBUG or atomic-sleep report; exit $rc)"
else
	ok "debug kernel log clean (no KASAN, lockdep, UBSAN, ODEBUG or atomic-sleep report)"
fi
end_phase
