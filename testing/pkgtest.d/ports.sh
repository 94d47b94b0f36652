# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/pkgtest's third part, sourced by it: the example programs of
# the pages pctr follows (testing/pkgtest.d/ports/: Sun Perfmon's cache
# flush, OpenBSD pctr(4)'s time_functionx, cpc_bind_curlwp(3CPC)'s
# Examples 1 and 2, each as its page prints it with what the page leaves
# to the user), built as their users would build them: against the
# staged install, with the overlay's or library's pkg-config line that
# the porting guides show.  Into $work/shared, beside the shared
# libraries, for the guest part to run.

ports=testing/pkgtest.d/ports

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

# Sun Perfmon: <perfmon.h> from the overlay, libperfmon.a.  The page's
# K&R main() and undeclared exit() draw warnings: no -Werror.
overlay_flags pctr-perfmon "-I$u/include/pctr-compat/perfmon -I$u/include" \
	"-L$u/lib -lperfmon"
# shellcheck disable=SC2086 # flags lists
built "Perfmon's cache-flush example builds against the staged overlay (pkg-config pctr-perfmon)" \
	"$work/perfmon_flush.log" $CC -O2 $pc_cflags \
	-o "$work/shared/perfmon_flush" "$ports/perfmon_flush.c" $pc_libs

# OpenBSD: <machine/pctr.h> and <machine/cpu.h> from the overlay, whose
# rdpmc() needs libpctr (beside the binary, through $ORIGIN).
overlay_flags pctr-openbsd "-I$u/include/pctr-compat/openbsd -I$u/include" \
	"-L$u/lib -lpctr"
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built "OpenBSD's time_functionx builds against the staged overlay (pkg-config pctr-openbsd)" \
	"$work/obsd_time_functionx.log" $CC "${warn[@]}" $pc_cflags \
	-o "$work/shared/obsd_time_functionx" "$ports/obsd_time_functionx.c" \
	$pc_libs -Wl,-rpath,'$ORIGIN'

# Solaris: the libcpc examples, shared, as examples/measure is built.
# Example 2 names Solaris's saved registers: on x86-64 the smallest
# change is two definitions on the command line (porting-from-solaris.rst).
regs=()
case $(uname -m) in
x86_64) regs=(-D_GNU_SOURCE -DPC=REG_RIP -DSP=REG_RSP) ;;
esac
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built "cpc_bind_curlwp(3CPC) Example 1 builds against the staged libcpc, as printed (-Wall -Werror)" \
	"$work/cpc_example1.log" $CC -O2 -Wall -Werror $ccflags \
	-o "$work/shared/cpc_example1" "$ports/cpc_example1.c" $clibs \
	-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN'
# shellcheck disable=SC2086,SC2016 # flags lists; $ORIGIN is the linker's
built "cpc_bind_curlwp(3CPC) Example 2 builds against the staged libcpc, completed (-Wall -Werror, ${regs[*]:-no register names})" \
	"$work/cpc_example2.log" $CC -O2 -Wall -Werror -fno-builtin-index \
	"${regs[@]}" $ccflags -o "$work/shared/cpc_example2" \
	"$ports/cpc_example2.c" $clibs \
	-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN'
