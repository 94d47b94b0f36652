#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: pctr(1): the command line, and its output read by other programs
#
# pctr(1)'s, cputrack's and cpustat's command lines, checked on the host
# before any device access; then what pctr's outputs other programs
# read (JSON, OpenMetrics, node_exporter's textfile, the flame graph),
# each read by that program.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

# On the host there is no /dev/pctr (and PCTR_DEVICE names nothing): help
# must not need one, and usage errors must be told as such (exit 2);
# pctr_cli is in testing/lib.sh.
cli_ok=1
for a in --help -h help "selfcheck --help" "stat --help" "record --help" "report --help" \
	 "top --help"; do
	# shellcheck disable=SC2086 # split on purpose
	pctr_cli 0 stdout $a || { echo "pctr $a: not help on stdout, exit 0"; cli_ok=0; }
done
for a in bogus "info extra" "read extra" "help extra" "selfcheck --bogus" "selfcheck --loops" \
	 stat "stat -q true" "stat -x, --json true" "stat -e" "stat -l extra" \
	 "stat --json --openmetrics true" "stat -I 100 --openmetrics true" \
	 record "record -q true" "report extra" "report -q" \
	 top "top -p 1 -a" "top -p 1 extra" "top -q" \
	 -s "-s x" "-s 0 -f zz" "-f 01" "-k" "-l -s 0" "-l extra" "-s 0 -q"; do
	# shellcheck disable=SC2086
	pctr_cli 2 stderr $a || { echo "pctr $a: not a usage error, exit 2"; cli_ok=0; }
done
# OpenBSD's options, well formed: past the parser to the (absent) device.
for a in "-s 0 -f 01 -k -u -e -i -t 2 -m 0f" "-s 3" -l; do
	# shellcheck disable=SC2086
	PCTR_DEVICE=/nonexistent/pctr build/tools/pctr $a >/dev/null 2>&1
	[ $? = 1 ] || { echo "pctr $a: not exit 1 without the device"; cli_ok=0; }
done
pass_if $cli_ok "pctr: help and usage errors before any device access"

# cputrack and cpustat likewise: -h and usage errors (exit 2) need no
# device; the tests in the guests (cputrack_test) do the rest.
sol_ok=1
for t in cputrack cpustat; do
	build/tools/$t -h 2>/dev/null | grep -q '^Usage:' ||
		{ echo "$t -h: no usage on stdout"; sol_ok=0; }
	for a in "" -Z "-c x -N" "-c x -T" "-c x -T y true" "-c x -q"; do
		# shellcheck disable=SC2086 # split on purpose
		build/tools/$t $a >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || { echo "$t $a: exit $rc, not 2"; sol_ok=0; }
	done
done
pass_if $sol_ok "cputrack, cpustat: help and usage errors before any device access"

# What other programs read, each checked by a real reader, in guests on
# the sim that run side by side (one vCPU each): pctr stat --json with
# command lines that are not UTF-8, read by Python's json module
# (testing/json-check); pctr stat --openmetrics and --textfile, read by
# python3-prometheus-client's parsers and node_exporter
# (testing/openmetrics-check); pctr report --svg's flame graph, opened by
# headless Chromium (testing/flame-check, the pictures it takes kept in
# build/check/flame).
declare -A reader_pid
for c in json openmetrics flame; do
	opts=(--kernel "$kb")
	[ $c = flame ] && opts+=(--out "$logdir/flame")
	testing/$c-check "${opts[@]}" >"$logdir/$c-check.log" 2>&1 &
	reader_pid[$c]=$!
done
for c in json openmetrics flame; do
	wait "${reader_pid[$c]}"
	rc=$?
	if ! relay_checks "" $c "$logdir/$c-check.log"; then
		tail -n 20 "$logdir/$c-check.log"
		bad "$c-check ran (exit $rc)"
	fi
done
end_phase
