# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/pkgtest's second part, sourced by it: programs built against
# the staged install through pkg-config (the staging directory as the
# sysroot): selftests/pkg/hotloop.c on libpctr, shared ($sh) and static
# ($st), and the libcpc examples measure and overflow, shared (in
# $work/shared, with the libraries beside them) and measure static
# ($st2), for the guest part to run; the shared ones also run on the
# host, where there is no device.

# PREFIX=/usr makes -I/usr/include and -L/usr/lib, which with the sysroot
# are the staging directory's; some pkg-config versions would drop them
# as system directories unless told to keep them.
export PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH=$u/lib/pkgconfig
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1

# pkg_flags LIB: LIB's --cflags, --libs and --static --libs from
# pkg-config, in pc_cflags, pc_libs and pc_slibs; they and its version
# must be the staged install's.
pkg_flags() {
	local lib=$1
	# (read strips the blank pkg-config leaves at the end.)
	read -r pc_cflags < <(pkg-config --cflags "$lib" 2>&1)
	read -r pc_libs < <(pkg-config --libs "$lib" 2>&1)
	read -r pc_slibs < <(pkg-config --static --libs "$lib" 2>&1)
	echo "pkgtest: pkg-config $lib --cflags: $pc_cflags; --libs: $pc_libs; --static --libs: $pc_slibs"
	check "pkg-config --cflags --libs $lib point into the staging directory" \
		test "$pc_cflags" = "-I$u/include" -a \
		"$pc_libs" = "-L$u/lib -l${lib#lib}"
	check "pkg-config --modversion $lib is 1.0.0" \
		test "$(pkg-config --modversion "$lib" 2>&1)" = 1.0.0
}

pkg_flags libpctr
cflags=$pc_cflags libs=$pc_libs slibs=$pc_slibs

CC=${CC:-cc}
warn=(-O2 -Wall -Wextra -Werror)

# built WHAT LOG COMMAND...: ok WHAT if COMMAND (a build) succeeds, else
# its output, kept in LOG, and bad.
built() {
	local what=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then
		ok "$what"
	else
		cat "$log"
		bad "$what"
	fi
}

# no_device WHAT STATUS -F|-G PATTERN COMMAND...: COMMAND run on the host
# with no device must exit STATUS and say PATTERN (grep -F or -G); else
# its output, and bad.
no_device() {
	local what=$1 want=$2 how=$3 pattern=$4 out rc
	shift 4
	out=$(PCTR_DEVICE=$work/no-such-device "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -q "$how" -- "$pattern" <<<"$out"; then
		ok "$what"
	else
		echo "$out"
		bad "$what (exit $rc)"
	fi
}

# Shared: libpctr.so.1 sits next to the binary, found through $ORIGIN.
sh=$work/shared/hotloop
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built "hotloop builds against the staged libpctr (shared, pkg-config)" \
	"$work/shared.log" $CC "${warn[@]}" $cflags -o "$sh" \
	selftests/pkg/hotloop.c $libs -Wl,-rpath,'$ORIGIN'
cp -L "$u/lib/libpctr.so.1" "$work/shared/libpctr.so.1"
dyn=$(readelf -d "$sh" 2>&1)
check "hotloop (shared) NEEDs libpctr.so.1" \
	grep -q 'Shared library: \[libpctr.so.1\]' <<<"$dyn"
check "hotloop (shared) binds pctr_open@LIBPCTR_1" \
	grep -q 'pctr_open@LIBPCTR_1' <(readelf -W --dyn-syms "$sh" 2>&1)
check "hotloop (shared) resolves libpctr.so.1 beside it" \
	grep -q "libpctr.so.1 => $work/shared/libpctr.so.1" <(ldd "$sh" 2>&1)
# Run on the host with no device: it loads the library, and pctr_open
# and pctr_strerror from it report the missing device.
no_device "hotloop (shared) runs on the host and reports the missing device" \
	2 -F "hotloop: pctr_open: no $work/no-such-device: the pctr module is not loaded (load it: sudo pctr load" \
	"$sh"

# Static: the whole program, libpctr.a included.
st=$work/static/hotloop-static
# shellcheck disable=SC2086
built "hotloop builds against the staged libpctr (static, pkg-config --static)" \
	"$work/static.log" $CC "${warn[@]}" -static $cflags -o "$st" \
	selftests/pkg/hotloop.c $slibs
# shellcheck disable=SC2317 # called through check
static_ok() {
	local dyn syms
	dyn=$(readelf -d "$st" 2>&1)
	syms=$(nm "$st" 2>&1)
	! grep -q NEEDED <<<"$dyn" && grep -q ' T pctr_open$' <<<"$syms"
}
check "hotloop-static needs no shared library, pctr_open linked in" static_ok

# --- the libcpc examples, built against the staged libcpc --------------
# libpctr is libcpc's Requires.private: --libs names libcpc alone.
pkg_flags libcpc
ccflags=$pc_cflags clibs=$pc_libs cslibs=$pc_slibs
# Static linking needs libpctr, and libpfm when libcpc uses it.
# shellcheck disable=SC2317 # called through check
static_libs_ok() {
	local w want=(-lcpc -lpctr)
	grep -q 'Shared library: \[libpfm' <<<"$cpcdyn" && want+=(-lpfm)
	for w in "${want[@]}"; do
		[[ " $cslibs " == *" $w "* ]] || return 1
	done
}
check "pkg-config --static --libs libcpc adds what libcpc.so NEEDs" \
	static_libs_ok

# Shared, as a program would be built against an installed libcpc;
# libcpc.so.1 and libpctr.so.1 beside the binary.  DT_RPATH, unlike
# RUNPATH, also serves libcpc.so.1's own NEEDED libpctr.so.1.
cp -L "$u/lib/libcpc.so.1" "$work/shared/libcpc.so.1"
for ex in measure overflow; do
	# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
	built "examples/$ex builds against the staged libcpc (shared, pkg-config)" \
		"$work/$ex.log" $CC "${warn[@]}" $ccflags \
		-o "$work/shared/$ex" "examples/$ex.c" $clibs \
		-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN'
	check "$ex NEEDs libcpc.so.1" grep -q 'Shared library: \[libcpc.so.1\]' \
		<(readelf -d "$work/shared/$ex" 2>&1)
	check "$ex binds cpc_open@LIBCPC_1" grep -q 'cpc_open@LIBCPC_1' \
		<(readelf -W --dyn-syms "$work/shared/$ex" 2>&1)
	check "$ex resolves libcpc.so.1 and libpctr.so.1 beside it" \
		test "$(ldd "$work/shared/$ex" 2>&1 |
			grep -Ec "^\s*lib(cpc|pctr)\.so\.1 => $work/shared/")" = 2
done
# Run on the host with no device: measure loads the libraries and
# reports the missing counters.
no_device "measure (shared) runs on the host and reports the missing device" \
	1 -G '^measure: performance counters unavailable' "$work/shared/measure"

# Static: measure with libcpc.a and what pkg-config --static adds.
st2=$work/static/measure-static
# shellcheck disable=SC2086
built "examples/measure builds against the staged libcpc (static, pkg-config --static)" \
	"$work/measure-static.log" $CC "${warn[@]}" -static $ccflags \
	-o "$st2" examples/measure.c $cslibs
# shellcheck disable=SC2317 # called through check
cpc_static_ok() {
	! grep -q NEEDED <(readelf -d "$st2" 2>&1) &&
		grep -q ' T cpc_open$' <(nm "$st2" 2>&1)
}
check "measure-static needs no shared library, cpc_open linked in" cpc_static_ok
