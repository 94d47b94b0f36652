#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: code quality
#
# The module builds with W=1 and sparse (C=2) without a single warning on
# each kernel; checkpatch is clean; user space builds without warnings;
# no file calls a layer above it.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

# The kernels' builds run side by side, beside checkpatch (one core
# each), from scratch (C=2 checks every file): the modules they leave
# in build/vm are those the guests load (testing/vm/build-module).
q_pids=()
for k in "${kernels[@]}"; do
	scratch=$logdir/quality-$k
	rm -rf "build/vm/$k/kmod"
	( testing/vm/build-module "$k" W=1 C=2 >"$scratch.log" 2>&1
	  echo $? >"$scratch.rc" ) &
	q_pids+=($!)
done

checkpatch=$(ls /usr/src/linux-source-*/scripts/checkpatch.pl 2>/dev/null | head -n 1)
if [ -n "$checkpatch" ]; then
	cp_bad=0
	while read -r f; do
		if ! perl "$checkpatch" --no-tree --quiet --show-types \
			--ignore FILE_PATH_CHANGES -f "$f" \
			>"$logdir/checkpatch.out" 2>&1; then
			echo "checkpatch: $f"
			head -n 20 "$logdir/checkpatch.out"
			cp_bad=1
		fi
	done < <(git ls-files 'driver/*.[ch]' 'uapi/*.h' 2>/dev/null ||
		 find driver uapi -name '*.[ch]')
	[ $cp_bad = 0 ] && ok "checkpatch clean (driver, uapi)" ||
		bad "checkpatch clean (driver, uapi)"
else
	skip=$((skip + 1))
	echo "SKIP: checkpatch (no linux-source)"
fi

wait "${q_pids[@]}"
for k in "${kernels[@]}"; do
	scratch=$logdir/quality-$k
	if [ "$(cat "$scratch.rc")" != 0 ]; then
		tail -n 20 "$scratch.log"
		bad "module builds on $k"
	elif grep -E 'warning:|error:|sparse:' "$scratch.log" >/dev/null; then
		grep -E 'warning:|error:|sparse:' "$scratch.log" | head -n 20
		bad "module W=1 C=2 clean on $k"
	else
		ok "module W=1 C=2 clean on $k"
	fi
done

rm -rf build/lib build/libcpc build/tools build/selftests build/examples
if make -s -j2 userspace >"$logdir/userspace.log" 2>&1 &&
   ! grep -q 'warning:' "$logdir/userspace.log"; then
	ok "user space builds without warnings"
else
	head -n 30 "$logdir/userspace.log"
	bad "user space builds without warnings"
fi

# No file calls a layer above it (Documentation/design.rst): the module's
# objects as built for the newest kernel, and libcpc's.
kq=build/vm/$kb/kmod
if out=$(testing/layers "$kq/driver:$kq/driver" "build/libcpc:libcpc,libpctx" 2>&1); then
	ok "no call or include loop between files (driver, libcpc)"
else
	echo "$out"
	bad "no call or include loop between files (driver, libcpc)"
fi

# The layer check's own test (testing/layers-selftest), when there is
# one: it plants loops and checks that they are found.
if [ -x testing/layers-selftest ]; then
	testing/layers-selftest >"$logdir/layers-selftest.log" 2>&1
	script_result layers-selftest "$logdir/layers-selftest.log" '^FAIL: '
fi
end_phase
