# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/pkgtest's third part, sourced by it: the example programs of
# the pages pctr follows (Sun Perfmon's cache flush, OpenBSD pctr(4)'s
# time_functionx, cpc_bind_curlwp(3CPC)'s Examples 1 and 2), cut out of
# the reference pages now by testing/examples/extract (never copies in
# the tree), with only what each page leaves to the user
# (testing/examples/*.[ch]), built as their users would build them:
# against the staged install, with the overlay's or library's
# pkg-config line that the porting guides show.  Into $work/shared,
# beside the shared libraries, for the guest part to run ($examples = 1
# when they were built).  Without the pages: each check skipped, with
# extract's SKIP line.

ports=$work/examples
exsrc=testing/examples
examples=0
port_builds=(
	"Perfmon's cache-flush example builds against the staged overlay (pkg-config pctr-perfmon)"
	"OpenBSD's time_functionx builds against the staged overlay (pkg-config pctr-openbsd)"
	"cpc_bind_curlwp(3CPC) Example 1 builds against the staged libcpc, as printed (-Wall -Werror)"
	"cpc_bind_curlwp(3CPC) Example 2 builds against the staged libcpc, completed (-Wall -Werror)"
)
testing/examples/extract --no-compile "$ports" >"$work/extract.log" 2>&1
erc=$?
sed 's/^/  /' "$work/extract.log"
if [ $erc = 77 ]; then
	for c in "${port_builds[@]}"; do
		skipped "$c ($(grep '^SKIP: ' "$work/extract.log" | sed 's/^SKIP: //'))"
	done
	return 0
fi
check "the pages' examples are cut out of the reference pages (testing/examples/extract)" \
	test $erc = 0
[ $erc = 0 ] || return 0
examples=1

# overlay_flags NAME WANT_CFLAGS WANT_LIBS: NAME's pkg-config flags (in
# pc_cflags, pc_libs) must be these, in the staging directory.
overlay_flags() {
	local name=$1 want_c=$2 want_l=$3
	read -r pc_cflags < <(pkg-config --cflags "$name" 2>&1)
	read -r pc_libs < <(pkg-config --libs "$name" 2>&1)
	echo "pkgtest: pkg-config $name --cflags: $pc_cflags; --libs: $pc_libs"
	check "pkg-config --cflags --libs $name point into the staging directory" \
		test "$pc_cflags" = "$want_c" -a "$pc_libs" = "$want_l"
}

# built_example WHAT NAME COMMAND...: built, and $examples = 0 if not.
built_example() {
	local what=$1 name=$2
	shift 2
	built "$what" "$work/$name.log" "$@" || examples=0
	[ -x "$work/shared/$name" ] || examples=0
}

# Sun Perfmon: <perfmon.h> from the overlay, libperfmon.a.  The page's
# K&R main() and undeclared exit() draw warnings: no -Werror.
overlay_flags pctr-perfmon "-I$u/include/pctr-compat/perfmon -I$u/include" \
	"-L$u/lib -lperfmon"
# shellcheck disable=SC2086 # flags lists
built_example "${port_builds[0]}" perfmon_flush $CC -O2 $pc_cflags \
	-o "$work/shared/perfmon_flush" "$ports/perfmon_flush.c" $pc_libs

# OpenBSD: <machine/pctr.h> and <machine/cpu.h> from the overlay, whose
# rdpmc() needs libpctr (beside the binary, through $ORIGIN); the page's
# text with functionx() and main() (obsd_functionx.[ch]).
overlay_flags pctr-openbsd "-I$u/include/pctr-compat/openbsd -I$u/include" \
	"-L$u/lib -lpctr"
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built_example "${port_builds[1]}" obsd_time_functionx $CC "${warn[@]}" \
	$pc_cflags -include "$exsrc/obsd_functionx.h" \
	-o "$work/shared/obsd_time_functionx" "$ports/obsd_time_functionx.c" \
	"$exsrc/obsd_functionx.c" $pc_libs -Wl,-rpath,'$ORIGIN'

# Solaris: the libcpc examples, shared, as examples/measure is built,
# with the user's error() (cpc_error.h).  Example 2 names Solaris's
# saved registers: on x86-64 the smallest change is two definitions on
# the command line (porting-from-solaris.rst).
regs=()
case $(uname -m) in
x86_64) regs=(-D_GNU_SOURCE -DPC=REG_RIP -DSP=REG_RSP) ;;
esac
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built_example "${port_builds[2]}" cpc_example1 $CC -O2 -Wall -Werror \
	$ccflags -include "$exsrc/cpc_error.h" -o "$work/shared/cpc_example1" \
	"$ports/cpc_example1.c" $clibs \
	-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN'
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built_example "${port_builds[3]} (${regs[*]:-no register names})" cpc_example2 \
	$CC -O2 -Wall -Werror -fno-builtin-index "${regs[@]}" $ccflags \
	-I"$ports" -o "$work/shared/cpc_example2" "$exsrc/cpc_example2.c" \
	$clibs -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN'
