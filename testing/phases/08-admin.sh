#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: administration
#
# Administration: pctr load/unload/status through libkmod and the error
# messages in guests (testing/admintest), DKMS builds for each kernel
# (testing/dkmstest), the Debian packages (testing/debtest), the PCP
# agent under dbpmda (testing/pmdatest), a fleet of two hosts running it
# under pmcd, collected by pmlogger and pmproxy (testing/fleet-check).
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

# pctr load/unload/status and the error messages in guests on each
# kernel (testing/admintest), while DKMS builds the module for each kernel
# in its own trees and the Debian packages are built and checked in a
# copy under build/deb (testing/dkmstest, testing/debtest): those run in the
# background on the core the single-threaded guest leaves.
adm_cli=1
for a in "load --help" "unload --help" "status --help"; do
	# shellcheck disable=SC2086
	pctr_cli 0 stdout $a || { echo "pctr $a: not help on stdout, exit 0"; adm_cli=0; }
done
for a in "load -x" "load bogus" "load a.ko b.ko" "unload extra" "status extra"; do
	# shellcheck disable=SC2086
	pctr_cli 2 stderr $a || { echo "pctr $a: not a usage error, exit 2"; adm_cli=0; }
done
pass_if $adm_cli "pctr load/unload/status: help and usage errors (exit 2)"
( testing/dkmstest "${kernels[@]}" >"$logdir/dkmstest.log" 2>&1
  testing/debtest >"$logdir/debtest.log" 2>&1 ) &
adm_bg=$!
testing/admintest "${kernels[@]}" >"$logdir/admintest.log" 2>&1
# pmdapctr, the PCP agent, driven by PCP's dbpmda in a guest on the
# simulated PMU and, when testing/vm/qemu has built its QEMU (and
# PCTR_PMDA_EMU is not 0), on the emulated Intel PMU beside perf
# (testing/pmdatest).
pmda_runs=(sim)
[ "${PCTR_PMDA_EMU:-1}" != 0 ] && testing/vm/qemu/build --print >/dev/null 2>&1 &&
	pmda_runs+=(intel)
# The fleet (two guests on the emulated Intel and AMD PMUs, pmcd in each,
# pmlogger and pmproxy here: testing/fleet-check) beside pmdatest's
# guests, when testing/vm/qemu has built its QEMU and PCTR_FLEET is not 0.
fleet_bg=
if [ "${PCTR_FLEET:-1}" != 0 ] && testing/vm/qemu/build --print >/dev/null 2>&1; then
	testing/fleet-check --kernel "$kb" >"$logdir/fleet-check.log" 2>&1 &
	fleet_bg=$!
fi
for r in "${pmda_runs[@]}"; do
	a=()
	[ "$r" = intel ] && a=(--emulated-pmu intel)
	testing/pmdatest --kernel "$kb" "${a[@]}" >"$logdir/pmdatest-$r.log" 2>&1
	relay_checks "[$r] " pmda "$logdir/pmdatest-$r.log" ||
		{ tail -n 20 "$logdir/pmdatest-$r.log"; bad "[$r] pmdatest ran"; }
done
if [ -n "$fleet_bg" ]; then
	wait "$fleet_bg"
	relay_checks "" fleet "$logdir/fleet-check.log" ||
		{ tail -n 20 "$logdir/fleet-check.log"; bad "fleet-check ran"; }
	grep -E '^fleet-check: took' "$logdir/fleet-check.log" | sed 's/^/  /'
fi
wait $adm_bg
for t in admintest dkmstest debtest; do
	script_result "$t" "$logdir/$t.log" '^FAIL: |^  \[lintian\]|took [0-9]+s|\([0-9]+s\)$'
done
end_phase
