# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # globals of testing/doc-examples
#
# testing/doc-examples.d/machine.sh: a "machine" block, run as a user on a
# real machine would type it (testing/doc-examples' header):
#   run_machine BLOCK WHAT NAME
# Each line is a result of its own.  Sourced by testing/doc-examples.

# The guest's PMU: the bench's emulated Intel PMU when its QEMU is cached
# (a PMU the backend really drives), else plain TCG (no PMU: pctr offers
# the TSC only, and pctr selfcheck skips every check).
machine_pmu() {
	if "$top/testing/vm/qemu/build" --print >/dev/null 2>&1; then
		pmu_args=(--emulated-pmu intel)
		pmu_what="the emulated Intel PMU"
		pmu_note=
	else
		pmu_args=()
		pmu_what="plain TCG, no PMU"
		pmu_note=": the emulated PMU's QEMU is not cached (testing/vm/qemu/build)"
	fi
}

# A command as shown in a result: without its comment.
machine_label() {
	printf '%s' "$1" | sed 's/[[:space:]]*#.*//'
}

# machine_host DIR WHAT LINE: a host line, in the view, as root (sudo
# dropped) and with DESTDIR (and INSTALL_MOD_PATH) a directory of the
# run's, so that an install never reaches the host's own /usr.
machine_host() {
	local dir=$1 what=$2 cmd=$3 label rc
	label=$(machine_label "$cmd")
	echo "doc-machine: host \$ $cmd" >>"$last_out"
	(
		cd "$view" || exit 1
		export DESTDIR=$dir/destdir INSTALL_MOD_PATH=$dir/destdir
		bash -e -o pipefail -c "$cmd" </dev/null
	) >"$dir/host.log" 2>&1
	rc=$?
	cat "$dir/host.log" >>"$last_out"
	if [ $rc != 0 ]; then
		tail -n 30 "$dir/host.log"
		bad "$what: $label (host, exit $rc)"
		return 1
	fi
	case "$cmd" in
	*install*)
		if [ -z "$(ls -A "$dir/destdir")" ]; then
			bad "$what: $label (host: nothing installed under DESTDIR)"
			return 1
		fi
		ok "$what: $label (host, into DESTDIR=${dir#"$top"/}/destdir)"
		;;
	*)
		ok "$what: $label (host)"
		;;
	esac
}

# machine_guest DIR WHAT LINE...: consecutive guest lines, in one guest of
# the kernel the view's pctr.ko was built for, booted without the module;
# its working directory holds that pctr.ko and build/tools/ at the same
# relative paths as in the view.
machine_guest() {
	local dir=$1 what=$2 kver rc i n st l stopped
	shift 2
	[ $# = 0 ] && return 0
	if [ "$guest" = 0 ]; then
		for l in "$@"; do
			skipped "$what: $(machine_label "$l") (boots a guest; --no-guest)"
		done
		return 0
	fi
	if [ ! -f "$view/pctr.ko" ]; then
		for l in "$@"; do
			bad "$what: $(machine_label "$l") (guest: no pctr.ko was built before it)"
		done
		return 1
	fi
	kver=$(modinfo -F vermagic "$view/pctr.ko" | cut -d' ' -f1)
	machine_pmu
	# Two vCPUs on the emulated PMU, as make check's emulated-PMU phase
	# boots its guests (vm/run gives 6.1 one under -icount).
	case "$kver" in
	6.1.*) ;;
	*) [ ${#pmu_args[@]} = 0 ] || pmu_args+=(--smp 2) ;;
	esac
	rm -rf "$dir/guest"
	mkdir -p "$dir/guest/build/tools"
	cp "$view/pctr.ko" "$dir/guest/"
	cp -L "$view"/build/tools/* "$dir/guest/build/tools/"
	printf '%s\n' "$@" >"$dir/guest/.doc-machine.lines"
	cp "$top/testing/doc-examples.d/machine-guest.sh" "$dir/guest/.doc-machine.sh"
	echo "doc-machine: guest: $kver, $pmu_what$pmu_note" | tee -a "$last_out"
	"$top/testing/vm/run" --kernel "$kver" --no-load "${pmu_args[@]}" \
		--add "$dir/guest/pctr.ko" --add "$dir/guest/build" \
		--add "$dir/guest/.doc-machine.lines" \
		--add "$dir/guest/.doc-machine.sh" \
		-- sh ./.doc-machine.sh </dev/null >"$dir/guest.log" 2>&1
	rc=$?
	cat "$dir/guest.log" >>"$last_out"
	i=0
	n=$#
	stopped=
	for l in "$@"; do
		i=$((i + 1))
		if [ -n "$stopped" ]; then
			skipped "$what: $(machine_label "$l") (after $stopped failed)"
			continue
		fi
		st=$(sed -n "s/^doc-machine: exit $i \([0-9][0-9]*\)\$/\1/p" "$dir/guest.log")
		if [ "$st" = 0 ]; then
			ok "$what: $(machine_label "$l") (guest, $kver, $pmu_what)"
			continue
		fi
		tail -n 30 "$dir/guest.log"
		if [ -n "$st" ]; then
			bad "$what: $(machine_label "$l") (guest, exit $st)"
		else
			bad "$what: $(machine_label "$l") (guest: no exit status; vm/run exit $rc)"
		fi
		stopped=$(machine_label "$l")
	done
	# The guest's own verdict: a bad kernel log (120), a timeout (124).
	if [ $rc != 0 ] && grep -q "^doc-machine: exit $n 0\$" "$dir/guest.log"; then
		tail -n 30 "$dir/guest.log"
		bad "$what: the guest's kernel log and exit (vm/run exit $rc)"
	fi
	[ $rc = 0 ]
}

run_machine() {
	local b=$1 what=$2 name=$3 dir=$view/$3.machine line cmd group=() failed=0
	rm -rf "$dir"
	mkdir -p "$dir/destdir"
	last_out=$dir/out
	: >"$last_out"
	while IFS= read -r line; do
		cmd=${line#"${line%%[![:space:]]*}"}
		case "$cmd" in
		''|'#'*) continue ;;
		esac
		cmd=${cmd#sudo }
		if [ $failed = 1 ]; then
			skipped "$what: $(machine_label "$cmd") (after a line failed)"
			continue
		fi
		if [ "${cmd%% *}" = make ]; then
			machine_guest "$dir" "$what" "${group[@]}" || failed=1
			group=()
			if [ $failed = 1 ]; then
				skipped "$what: $(machine_label "$cmd") (after a line failed)"
				continue
			fi
			machine_host "$dir" "$what" "$cmd" || failed=1
		else
			group+=("$cmd")
		fi
	done <"$b"
	machine_guest "$dir" "$what" "${group[@]}" || failed=1
	[ $failed = 0 ] || broken=$name
}
