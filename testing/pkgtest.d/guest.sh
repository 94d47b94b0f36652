# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/pkgtest's last part, sourced by it: what the parts before it
# built, run in a guest (pmu=sim perfmon=1, on $kver or the newest
# kernel): no system call in the hot loop; the examples' counts and
# overflow signals; the pages' examples (ports.sh, run by
# testing/examples/guest-run), which also run on the sim in a second
# guest on each other installed kernel (PCTR_KERNELS; beside the first),
# and on the emulated Intel and AMD PMUs in make check's emulated-PMU
# phase.  --no-guest ($guest = 0) counts these checks as skipped.

# shellcheck source=testing/examples/checks.sh
. testing/examples/checks.sh
guest_checks=(
	"hotloop (shared) reads without a system call, in a guest"
	"hotloop-static reads without a system call, in a guest"
	"hotloop --canary: the sandbox kills an ioctl, in a guest"
	"measure (shared) counts 20 iterations, in a guest"
	"measure-static counts 20 iterations, in a guest"
	"overflow (shared) catches its overflow signals, in a guest"
	"overflow: each signal came exactly PERIOD counts after the last (sim is exact)"
)
if [ -z "$kver" ]; then
	kver=$(cd /lib/modules 2>/dev/null && for v in *; do
		[ -f "/boot/vmlinuz-$v" ] && [ -d "$v/build" ] && echo "$v"
	done | sort -V | tail -n 1)
fi
# The other kernels, for the pages' examples on the sim.
if [ -n "${PCTR_KERNELS:-}" ]; then
	read -r -a ex_kernels <<<"$PCTR_KERNELS"
else
	mapfile -t ex_kernels < <(cd /lib/modules 2>/dev/null && for v in *; do
		[ -f "/boot/vmlinuz-$v" ] && [ -d "$v/build" ] && echo "$v"
	done | sort -V)
fi
other_kernels=()
for k in "${ex_kernels[@]}"; do
	[ "$k" = "$kver" ] || other_kernels+=("$k")
done
ex_where=("on the sim, $kver")
for k in "${other_kernels[@]}"; do
	ex_where+=("on the sim, $k")
done
if [ "$guest" = 0 ] || [ "$examples" = 0 ]; then
	why="--no-guest"
	[ "$examples" = 1 ] || why="the pages' examples were not built"
	for where in "${ex_where[@]}"; do
		for c in "${examples_checks[@]}"; do
			skipped "$c, $where ($why)"
		done
	done
fi
if [ "$guest" = 0 ]; then
	for c in "${guest_checks[@]}"; do
		skipped "$c"
	done
	finish
fi
echo "pkgtest: guest on ${kver:-no kernel}, pmu=sim"
# The guest copies each --add file into /work: the shared programs find
# /work/libpctr.so.1 and /work/libcpc.so.1 through their $ORIGIN rpath.
# The examples' output is kept apart, each line marked "[name] ".
period=1000000
ex_add=()
if [ "$examples" = 1 ]; then
	ex_add=(--add testing/examples/guest-run)
	for ex in perfmon_flush obsd_time_functionx cpc_example1 cpc_example2; do
		ex_add+=(--add "$work/shared/$ex")
	done
	# The other kernels' guests, beside this one: the examples alone.
	ex_pids=()
	for k in "${other_kernels[@]}"; do
		testing/vm/run --kernel "$k" --param pmu=sim --param perfmon=1 \
			--add "$work/shared/libpctr.so.1" \
			--add "$work/shared/libcpc.so.1" "${ex_add[@]}" -- \
			sh ./guest-run "@$k" >"$work/guest-$k.log" 2>&1 &
		ex_pids+=($!)
	done
fi
# shellcheck disable=SC2016 # expanded in the guest
testing/vm/run ${kver:+--kernel "$kver"} --param pmu=sim --param perfmon=1 \
	--add "$sh" --add "$work/shared/libpctr.so.1" --add "$st" \
	--add "$work/shared/libcpc.so.1" --add "$work/shared/measure" \
	--add "$work/shared/overflow" --add "$st2" "${ex_add[@]}" -- sh -c '
	./hotloop; echo "pkgtest-rc hotloop $?"
	./hotloop-static; echo "pkgtest-rc hotloop-static $?"
	./hotloop --canary; echo "pkgtest-rc canary $?"
	for ex in measure measure-static overflow; do
		PERIOD='"$period"' ./$ex >$ex.out 2>&1
		echo "pkgtest-rc $ex $?"
		sed "s/^/[$ex] /" $ex.out
	done
	[ ! -f ./guest-run ] || sh ./guest-run
	exit 0' >"$work/guest.log" 2>&1
vrc=$?
grep -E '^hotloop|^pkgtest-rc|^examples-rc|^\[measure\]|^\[overflow\] overflow( 1:|:)' \
	"$work/guest.log"
rc_of() { sed -n "s/^pkgtest-rc $1 \([0-9]*\)$/\1/p" "$work/guest.log" | tail -n 1; }
out_of() { sed -n "s/^\[$1\] //p" "$work/guest.log"; }
# Exit 0 and its "ok" line, which reports no fallback.
# shellcheck disable=SC2317 # called through check
survived() {
	[ "$(rc_of "$1")" = 0 ] &&
		grep -q "^$1: ok .* fallbacks=0 " "$work/guest.log"
}
if [ $vrc != 0 ]; then
	tail -n 30 "$work/guest.log"
	bad "the guest ran cleanly (testing/vm/run exit $vrc)"
fi
check "${guest_checks[0]}" survived hotloop
check "${guest_checks[1]}" survived hotloop-static
# 128 + SIGSYS (31): killed by the filter.
check "${guest_checks[2]}" test "$(rc_of canary)" = 159

# measure: 20 iterations, each with both counts, growing with the work
# done (iteration n does n times the work of the first; the first also
# takes the page faults, so it is left out).  The sim counts time, and a
# loaded host stretches an iteration whenever it does not run the vCPU
# (seen: five of twenty iterations 3 to 8 times too long, under a busy
# builder), but nothing makes one shorter than its work: the shortest of
# iterations 16-20 (at least 16 times the work) must be over twice the
# shortest of iterations 2-6 (at most 6 times; 2 unless all are stretched).
# shellcheck disable=SC2317 # called through check
measured() {
	local out
	out=$(out_of "$1")
	if [ "$(rc_of "$1")" = 0 ] &&
	   [ "$(grep -Ec '^iter +[0-9]+: PAPI_tot_cyc +[1-9][0-9]* +PAPI_tot_ins +[1-9][0-9]* +ticks +[1-9]' <<<"$out")" = 20 ] &&
	   awk '{ n = $2 + 0; v = $4 + 0 }
		/^iter/ && n >= 2 && n <= 6 { if (!na++ || v < a) a = v }
		/^iter/ && n >= 16 { if (!nb++ || v < b) b = v }
		END { exit !(na == 5 && nb == 5 && b > 2 * a) }' <<<"$out"; then
		return 0
	fi
	echo "$1 (exit $(rc_of "$1")):"
	tail -n 22 <<<"$out"
	return 1
}
check "${guest_checks[3]}" measured measure
check "${guest_checks[4]}" measured measure-static

# overflow: at least one signal, each reported with where the thread was
# (si_addr, the ucontext's pc and sp) and a nonzero count since the last
# restart, and a summary that counts them all.
ovf=$(out_of overflow)
novf=$(grep -Ec '^overflow [0-9]+:' <<<"$ovf")
ovf_re='^overflow [0-9]+: lwp [1-9][0-9]* si_addr 0x[0-9a-f]*[1-9a-f][0-9a-f]* pc 0x[0-9a-f]+ sp 0x[0-9a-f]+ PAPI_tot_cyc 0x[0-9a-f]+ counted [1-9][0-9]*$'
# shellcheck disable=SC2317 # called through check
overflowed() {
	[ "$(rc_of overflow)" = 0 ] && [ "$novf" -gt 0 ] &&
	[ "$(grep -Ec "$ovf_re" <<<"$ovf")" = "$novf" ] &&
	grep -q "^overflow: $novf overflows of PAPI_tot_cyc, one per $period counts, in 20 iterations$" <<<"$ovf"
}
if overflowed; then
	ok "${guest_checks[5]} ($novf signals)"
else
	grep -v '^overflow [0-9]' <<<"$ovf" | tail -n 10
	grep -Ev "$ovf_re" <<<"$ovf" | grep '^overflow [0-9]' | head -n 5
	bad "${guest_checks[5]} (exit $(rc_of overflow), $novf signals)"
fi
# On the simulated PMU the counters freeze exactly at the wrap: the
# overflowed counter reads 0 and its twin exactly the period.
exact=$(grep -Ec " PAPI_tot_cyc 0x0 counted $period\$" <<<"$ovf")
if [ "$novf" -gt 0 ] && [ "$exact" = "$novf" ]; then
	ok "${guest_checks[6]}"
else
	grep '^overflow [0-9]' <<<"$ovf" | grep -v " 0x0 counted $period\$" | head -n 5
	bad "${guest_checks[6]} ($exact of $novf)"
fi

# --- the pages' examples ----------------------------------------------
if [ "$examples" = 1 ]; then
	examples_check "" "${ex_where[0]}" "$work/guest.log"
	i=1
	for k in "${other_kernels[@]}"; do
		wait "${ex_pids[$((i - 1))]}"
		erc=$?
		cat "$work/guest-$k.log" >>"$work/guest.log"
		if [ $erc != 0 ]; then
			tail -n 30 "$work/guest-$k.log"
			bad "the sim's guest on $k ran cleanly (testing/vm/run exit $erc)"
		fi
		examples_check "@$k" "${ex_where[$i]}" "$work/guest-$k.log"
		i=$((i + 1))
	done
fi
