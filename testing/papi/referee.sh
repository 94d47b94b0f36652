#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/papi/referee.sh: in a guest of an emulated PMU, as root,
# papi_command_line PAPI_TOT_INS (one binary, PAPI's own workload
# between PAPI_start and PAPI_stop: do_flops(NUM_FLOPS) and do_misses)
# counted by pctr's component (the private build) and by perf_event's
# (Debian's libpapi.so.7.0 in /work or /work/debian, by
# LD_LIBRARY_PATH; perf_event_paranoid 2 for its run only): under
# -icount a count is exact, and pctr's must be perf_event's within MAX
# (default 8) instructions, what the two components' own start and stop
# code between the counters' enable and disable may differ by (pctr one
# fewer on the emulated AMD PMU, 2026-11-28, both kernels: 200852861
# and 200852862).  Where perf_event cannot count PAPI_TOT_INS (the
# emulated Intel PMU: Debian's libpfm4 knows no PMU of its CPU model) it
# says so; the phase then holds pctr's count to the other guests' (one
# binary, one workload).  On the sim (no presets) it does nothing.
# Prints "papi: referee: ..." lines with the counts, and "PASS: papi:
# ..." / "FAIL: papi: ..." lines.
#
#   referee.sh [MAX]

cd /work || exit 1
max=${1:-8}
ok() { echo "PASS: papi: $*"; }
bad() { echo "FAIL: papi: $*"; }

# count [LIBDIR]: PAPI_TOT_INS of one run, or nothing.
count() {
	# shellcheck disable=SC2086 # no word when there is no LIBDIR
	env ${1:+LD_LIBRARY_PATH=$1} ./papi_command_line PAPI_TOT_INS >referee.out 2>&1
	sed -n 's/^PAPI_TOT_INS :[[:space:]]*\([0-9][0-9]*\)[[:space:]]*$/\1/p' referee.out
}

if ./papi_component_avail 2>&1 | grep -q 'sim backend'; then
	echo "papi: referee: the sim has no PAPI_TOT_INS"
	exit 0
fi
p=$(count)
echo "papi: referee: pctr's papi_command_line PAPI_TOT_INS: $p"
if [ -z "$p" ]; then
	cat referee.out
	bad "papi_command_line PAPI_TOT_INS counts on pctr (as root)"
	exit 1
fi

deb=
for d in /work /work/debian; do
	[ -e "$d/libpapi.so.7.0" ] && deb=$d/libpapi.so.7.0
done
if [ -z "$deb" ]; then
	bad "papi_command_line PAPI_TOT_INS: Debian's libpapi.so.7.0 for the referee"
	exit 1
fi
mkdir -p /tmp/debian
ln -sf "$deb" /tmp/debian/libpapi.so.7.0
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
r=$(count /tmp/debian)
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
echo "papi: referee: perf_event's papi_command_line PAPI_TOT_INS: $r"
if [ -z "$r" ] && grep -q 'Failed adding: PAPI_TOT_INS' referee.out; then
	echo "papi: referee: perf_event cannot count PAPI_TOT_INS here: $(grep -m 1 -i 'because' referee.out)"
	exit 0
elif [ -z "$r" ]; then
	cat referee.out
	bad "papi_command_line PAPI_TOT_INS counts on perf_event (the referee)"
	exit 1
fi
d=$((p - r))
if [ "${d#-}" -le "$max" ]; then
	ok "papi_command_line PAPI_TOT_INS: pctr $p, perf_event $r (difference $d, at most $max)"
else
	bad "papi_command_line PAPI_TOT_INS: pctr $p, perf_event $r (difference $d, at most $max)"
fi
