#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The PMU register writes a context switch costs (issue 27), in the
# emulated PMU's 6.12 guests (run by emu-suite.sh): two threads of one
# process, both counting, ping-pong on one CPU (./switch-msrs, which
# counts the accesses with the kernel's msr tracepoints): with one slot,
# with three, and reading inline through their pages.  Its "msr:" lines
# are read by testing/phases/emu-results.sh (suite_msr).
grep -qs tracefs /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
for args in "1000" "-s 3 1000" "-m 1000" "-m -s 3 1000"; do
	# shellcheck disable=SC2086 # split on purpose
	out=$(./switch-msrs $args 2>&1)
	echo "$out" | sed "1s/^/msr: $args: /; 2,\$s/^/msr-by: $args: /"
done
