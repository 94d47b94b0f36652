# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/lib.sh: what make check's phases share (sourced by
# testing/check and by each testing/phases/NN-NAME.sh): the counters and
# the ways to count, the kernels tested, and the hand-over of a phase's
# counts to the driver.
#
# A phase runs under the driver, which names in PCTR_CHECK_RESULTS the
# file where the phase leaves its counts and failures; a phase script
# (testing/phases/NN-NAME.sh) run directly runs the driver for that
# phase alone, so that its output, counts and background jobs are those
# of `make check PHASES=NAME`.  The background jobs
# (testing/phases/jobs/) and the driver count nothing here.
#
# Environment: PCTR_KERNELS="ver ver" overrides the kernels tested;
# PCTR_SPARC64_KERNELS the sparc64 guests' kernels.

set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
logdir=$top/build/check
mkdir -p "$logdir"

self=${0##*/}
if [[ $self == [0-9][0-9]-*.sh ]] && [ -z "${PCTR_CHECK_RESULTS:-}" ]; then
	self=${self#[0-9][0-9]-}
	exec "$top/testing/check" "${self%.sh}"
fi

# The project's own compiles go through ccache (testing/vm/install-deps
# installs it), its cache outside the clone like the other caches
# (PCTR_CACHE): a warm check compiles only what changed, and the
# compilers' warnings are kept with the objects and printed again, so
# the quality checks still see them.  Paths are hashed relative to the
# tree, so clones at one path share it.  What builds a cache of its own
# (QEMU, the kernels, busybox, PAPI) runs with CCACHE_DISABLE
# (no_ccache).  PCTR_CCACHE=0 leaves ccache out.
ccache_dir=${PCTR_CACHE:-/var/cache/pctr}/ccache
if [ "${PCTR_CCACHE:-1}" != 0 ] && [ -z "${CCACHE_DIR:-}" ] &&
   mkdir -p "$ccache_dir" 2>/dev/null && [ -w "$ccache_dir" ]; then
	export CCACHE_DIR=$ccache_dir
	export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G
	export PATH=/usr/lib/ccache:$PATH
fi
no_ccache() { CCACHE_DISABLE=1 "$@"; }

pass=0 fail=0 skip=0
failed=()

ok() { pass=$((pass + 1)); echo "PASS: $1"; }
bad() { fail=$((fail + 1)); failed+=("$1"); echo "FAIL: $1"; }
# pass_if FLAG NAME: pass NAME when FLAG (set to 0 by a check that
# failed) is 1, else fail it.
pass_if() { if [ "$1" = 1 ]; then ok "$2"; else bad "$2"; fi; }

# verdict NAME LOG TEST: pass NAME when the function TEST finds what it
# wants in LOG (TEST LOG succeeds); else show LOG's last 20 lines and
# fail NAME.
verdict() {
	local name=$1 log=$2 test=$3
	if "$test" "$log"; then
		ok "$name"
	else
		tail -n 20 "$log"
		bad "$name"
	fi
}

# Add counts from a line "WORD: N passed, N failed, N skipped".
add_counts() {
	local what=$1 line=$2 p f s
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		[ "$f" = 0 ] || failed+=("$what ($f)")
		echo "$what: $p passed, $f failed, $s skipped"
		return 0
	fi
	return 1
}

# One guest's results: its TAP lines (tagged TAG), the counts of its
# last summary line "SUMMARY: N passed, N failed, N skipped" and its
# exit status RC.  A guest without that line did not run to the end;
# one that counted no failure but exited nonzero was unhealthy (120:
# a WARNING, BUG or Oops in its kernel log; 124: it timed out).  The
# checks are named "WHAT ran to completion" and "WHAT: guest healthy".
guest_result() {
	local what=$1 log=$2 rc=$3 summary=$4 tag=$5 line
	grep -E '^(not ok|ok) [0-9]+ ' "$log" | sed "s/^/  [$tag] /"
	line=$(grep -E "^$summary: [0-9]+ passed" "$log" | tail -n 1)
	if ! add_counts "$what" "$line"; then
		tail -n 40 "$log"
		bad "$what ran to completion (exit $rc)"
	elif [ "$rc" != 0 ] && grep -q ' 0 failed' <<<"$line"; then
		grep -E -B5 -A3 'vm/run: |WARNING:|BUG:|Oops' "$log" | head -n 40
		bad "$what: guest healthy (exit $rc)"
	elif ! grep -q ' 0 failed' <<<"$line"; then
		failure_details "$what" "$log"
	fi
}

# The harness's lines of each failed test in LOG (from its "#  RUN" to
# its "not ok", at most 12), and each test program that ended without a
# summary, kept for the end of the output: CI shows only its tail.
details=()
failure_details() {
	local what=$1 log=$2 d
	d=$(awk '
		/^#  RUN / { n = 0 }
		{ buf[n % 12] = $0; n++ }
		/^not ok [0-9]+ / && !/# SKIP/ {
			for (i = (n > 12 ? n - 12 : 0); i < n; i++)
				print "    " buf[i % 12]
		}
		/ended without a summary|^# .* exited [0-9]+$/ { print "    " $0 }
	' "$log" | head -n 40)
	[ -n "$d" ] && details+=("  $what:" "$d")
}

# A host script's failures ("FAIL: " lines, each with the lines that
# came just before it, where the script prints what it saw) for the
# summary at the end, which is all a CI log may show.
script_details() {
	local what=$1 log=$2 d
	d=$(grep -E -B6 '^FAIL: ' "$log" | grep -Ev '^(PASS|SKIP): |^--$' |
	    cut -c1-200 | sed 's/^/    /' | head -n 30)
	[ -n "$d" ] && details+=("  $what:" "$d")
}

# A host script's counts from its last line "WHAT: N passed, ..." in
# LOG, its lines matching SHOW (tagged [WHAT]) and its failures' details;
# without that line, the script did not run to the end.
script_result() {
	local what=$1 log=$2 show=$3 line
	line=$(grep -E "^$what: [0-9]+ passed" "$log" | tail -n 1)
	if add_counts "$what" "$line"; then
		grep -E "$show" "$log" | sed "s/^/  [$what] /"
		script_details "$what" "$log"
	else
		tail -n 30 "$log"
		bad "$what ran to completion"
	fi
}

# The checks a guest script printed in LOG as "PASS: sample: ..." and
# "FAIL: sample: ...", each counted here with TAG before its name.
relay_sample_checks() {
	relay_checks "$1" sample "$2"
}

# The same for any script's "PASS: WORD: ..." lines; false when LOG has
# none (the script did not get that far).
relay_checks() {
	local tag=$1 word=$2 log=$3 line
	grep -qE "^(PASS|FAIL): $word:" "$log" || return 1
	while read -r line; do
		case "$line" in
		PASS:*) ok "$tag${line#PASS: }" ;;
		FAIL:*) bad "$tag${line#FAIL: }" ;;
		esac
	done < <(grep -E "^(PASS|FAIL): $word:" "$log")
}

# pctr(1) on the host, where there is no /dev/pctr (and PCTR_DEVICE
# names nothing): pctr_cli WANT-STATUS WANT-STREAM ARGS... is true when
# it exits WANT-STATUS with its usage on WANT-STREAM (stdout: help;
# stderr: a usage error, told as such, with no word of opening: "open"
# as a word, so that --openmetrics in the usage is not one).
pctr_cli() {
	local want=$1 stream=$2 out err rc
	shift 2
	out=$(PCTR_DEVICE=/nonexistent/pctr build/tools/pctr "$@" 2>"$logdir/cli.err")
	rc=$?
	err=$(cat "$logdir/cli.err")
	[ $rc = "$want" ] || return 1
	case $stream in
	stdout) grep -q '^usage: pctr' <<<"$out" && [ -z "$err" ] ;;
	stderr) grep -q '^usage: pctr' <<<"$err" && [ -z "$out" ] &&
		! grep -qw 'open' <<<"$err" ;;
	esac
}

# The kernels tested: PCTR_KERNELS, else each installed kernel with its
# headers, oldest first; kb, the newest, for the single guests.
find_kernels() {
	if [ -n "${PCTR_KERNELS:-}" ]; then
		read -r -a kernels <<<"$PCTR_KERNELS"
	else
		mapfile -t kernels < <(cd /lib/modules && for v in *; do
			[ -f "/boot/vmlinuz-$v" ] && [ -d "$v/build" ] && echo "$v"
		done | sort -V)
	fi
	# shellcheck disable=SC2034 # used by the phases
	kb=${kernels[-1]:-}
	# The kernels of the emulated PMU's guests (its phase and side
	# job): PCTR_EMU_SUITE_KERNELS, else all (6.1's guests add about
	# 80 s, testing.rst; "6.12.95+deb12-amd64" runs only the newest).
	# shellcheck disable=SC2034 # used by the phases
	kernels_suite=${PCTR_EMU_SUITE_KERNELS-${kernels[*]}}
}
find_kernels
# shellcheck disable=SC2034,SC2206 # used by the phases; split on purpose
sparc_kernels=(${PCTR_SPARC64_KERNELS-6.12 6.1})
# What testing/top-check needs beside sample-check in a guest: tmux
# (testing/vm/install-deps), the C.utf8 locale it asks for and the
# terminfo database (Debian's libc-bin and ncurses-base).
# shellcheck disable=SC2034 # used by the phases
top_check_adds=(--add testing/top-check --add /usr/lib/locale/C.utf8
		--add /lib/terminfo)
command -v tmux >/dev/null && top_check_adds+=(--add "$(command -v tmux)")

# The phase's counts, failures and their details for the driver, one
# per line ("counts P F S", "failed TEXT", "detail TEXT"), "complete"
# when the phase ran to its end (end_phase), "stop" when the check
# cannot go on (stop_check): written however the phase script exits.
write_results() {
	local out=${PCTR_CHECK_RESULTS:-}
	[ -n "$out" ] || return 0
	{
		echo "counts $pass $fail $skip"
		[ ${#failed[@]} = 0 ] || printf 'failed %s\n' "${failed[@]}"
		[ ${#details[@]} = 0 ] || printf '%s\n' "${details[@]}" | sed 's/^/detail /'
		[ -z "${phase_complete:-}" ] || echo complete
		[ -z "${phase_stop:-}" ] || echo stop
	} >"$out"
}
end_phase() {
	phase_complete=1
	exit 0
}
stop_check() {
	phase_stop=1
	exit 1
}
trap write_results EXIT
