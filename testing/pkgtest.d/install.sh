# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testing/pkgtest's first part, sourced by it: the staged install
# (make install-user DESTDIR=$stage PREFIX=/usr into $u = $stage/usr): the
# files it must hold, its headers (the public ones only), each library's
# .so chain and SONAME, the exported symbols, the man pages.  Leaves
# $cpcdyn (libcpc.so's dynamic section) for the next part.

if make -s install-user DESTDIR="$stage" PREFIX=/usr >"$work/install.log" 2>&1; then
	ok "make install-user DESTDIR=... PREFIX=/usr"
else
	tail -n 20 "$work/install.log"
	bad "make install-user DESTDIR=... PREFIX=/usr"
	finish
fi

u=$stage/usr
missing=
for f in include/pctr.h include/linux/pctr.h lib/libpctr.a \
	 lib/libpctr.so.1.0.0 lib/libpctr.so.1 lib/libpctr.so \
	 lib/pkgconfig/libpctr.pc bin/pctr \
	 share/man/man4/pctr.4 share/man/man1/pctr.1 share/man/man3/libpctr.3 \
	 share/man/man3/pctr_open.3 share/man/man3/pctr_read.3 \
	 share/man/man3/pctr_set.3 share/man/man3/rdpmc.3 \
	 share/man/man3/pctr_strerror.3 share/man/man3/pctr_close.3 \
	 share/man/man3/rdtsc.3 \
	 include/libcpc.h include/libpctx.h include/libcpc_impl.h lib/libcpc.a \
	 lib/libcpc.so.1.0.0 lib/libcpc.so.1 lib/libcpc.so \
	 lib/pkgconfig/libcpc.pc share/man/man3/libcpc.3 \
	 share/man/man3/cpc_bind_curlwp.3 share/man/man3/cpc_set_restart.3 \
	 share/man/man3/cpc_open.3 \
	 bin/cputrack bin/cpustat share/man/man1/cputrack.1 \
	 share/man/man8/cpustat.8 \
	 include/pctr-compat/openbsd/machine/pctr.h \
	 include/pctr-compat/openbsd/machine/cpu.h \
	 include/pctr-compat/perfmon/perfmon.h lib/libperfmon.a \
	 lib/pkgconfig/pctr-openbsd.pc lib/pkgconfig/pctr-perfmon.pc; do
	[ -e "$u/$f" ] || missing+=" $f"
done
if [ -z "$missing" ]; then
	ok "the install holds headers, libraries, .pc, tools, man pages, the overlays"
else
	bad "the install holds headers, libraries, .pc, tools, man pages, the overlays (missing:$missing)"
fi

# The PCP agent (tools/pmdapctr), when PCP's headers are installed: where
# PCP keeps its agents, whatever the prefix.
if [ -f /usr/include/pcp/pmda.h ]; then
	pm=$stage/var/lib/pcp/pmdas/pctr
	check "the install holds the PCP agent in /var/lib/pcp/pmdas/pctr" \
		test -x "$pm/pmdapctr" -a -x "$pm/Install" -a -x "$pm/Remove" \
		     -a -f "$pm/pmns" -a -f "$pm/help.dir" -a -f "$pm/pctr.conf"
fi

# The headers are the public ones, each named in the Makefile (CPC_HDRS
# for libcpc and libpctx, the overlays'): none of the private ones
# (libcpc/*_private.h, libpctx/*_private.h), nor any other.
hdrs=$(cd "$u/include" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs)
want="libcpc.h libcpc_impl.h libpctx.h linux/pctr.h pctr-compat/openbsd/machine/cpu.h pctr-compat/openbsd/machine/pctr.h pctr-compat/perfmon/perfmon.h pctr.h"
if [ "$hdrs" = "$want" ]; then
	ok "the install holds no private header (only $want)"
else
	echo "pkgtest: installed headers: $hdrs"
	bad "the install holds no private header (only $want)"
fi
# One definition of the ABI: the overlays include <linux/pctr.h> and
# define none of its names again.
abi_names=$(sed -En 's/^#define[[:space:]]+([A-Za-z_0-9]+).*/\1/p' "$u/include/linux/pctr.h" | sort -u)
redefined=$(cat "$u"/include/pctr-compat/openbsd/machine/*.h \
		"$u/include/pctr-compat/perfmon/perfmon.h" |
	    sed -En 's/^#define[[:space:]]+([A-Za-z_0-9]+).*/\1/p' | sort -u |
	    comm -12 - <(echo "$abi_names"))
if [ -z "$redefined" ] &&
   grep -q '^#include <linux/pctr.h>' "$u/include/pctr-compat/openbsd/machine/pctr.h" &&
   grep -q '^#include <linux/pctr.h>' "$u/include/pctr-compat/perfmon/perfmon.h"; then
	ok "the overlays include <linux/pctr.h> and redefine none of its names"
else
	echo "pkgtest: redefined: $redefined"
	bad "the overlays include <linux/pctr.h> and redefine none of its names"
fi
# The benchmarks (bench/) are developers' tools: make install leaves them out.
check "the install holds no benchmark" \
	test -z "$(ls "$u/bin" | grep bench)"
check "libpctr.so -> libpctr.so.1 -> libpctr.so.1.0.0" \
	test "$(readlink "$u/lib/libpctr.so")" = libpctr.so.1 -a \
	     "$(readlink "$u/lib/libpctr.so.1")" = libpctr.so.1.0.0
check "libpctr.so.1.0.0 has SONAME libpctr.so.1" \
	grep -q 'Library soname: \[libpctr.so.1\]' \
	<(readelf -d "$u/lib/libpctr.so.1.0.0" 2>&1)
check "libcpc.so -> libcpc.so.1 -> libcpc.so.1.0.0" \
	test "$(readlink "$u/lib/libcpc.so")" = libcpc.so.1 -a \
	     "$(readlink "$u/lib/libcpc.so.1")" = libcpc.so.1.0.0
cpcdyn=$(readelf -d "$u/lib/libcpc.so.1.0.0" 2>&1)
check "libcpc.so.1.0.0 has SONAME libcpc.so.1" \
	grep -q 'Library soname: \[libcpc.so.1\]' <<<"$cpcdyn"
check "libcpc.so.1.0.0 NEEDs libpctr.so.1" \
	grep -q 'Shared library: \[libpctr.so.1\]' <<<"$cpcdyn"

# Every function <pctr.h> declares, other than its inline helpers, is
# marked PCTR_API: an unmarked one would be hidden in libpctr.so.
unmarked=$(grep -E '^[a-z_].*\bpctr_[a-z_0-9]*\(' "$u/include/pctr.h" |
	   grep -Ev '^(PCTR_API|static) ')
if [ -z "$unmarked" ]; then
	ok "<pctr.h> marks every library function PCTR_API"
else
	echo "$unmarked"
	bad "<pctr.h> marks every library function PCTR_API"
fi

# Exported: exactly what the installed header marks PCTR_API (its
# functions, and the inline reads' thread id and page, TLS variables), at
# version LIBPCTR_1, LIBPCTR_1.1 (page version 2) or LIBPCTR_1.2 (its times).
sed -En -e 's/^PCTR_API .*[ *](pctr_[a-z_0-9]*)\(.*/\1/p' \
	-e 's/^PCTR_API extern .*[ *](pctr_[a-z_0-9]*)$/\1/p' \
	"$u/include/pctr.h" | sort >"$work/api.txt"
readelf -W --dyn-syms "$u/lib/libpctr.so.1.0.0" |
	awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $7 != "ABS" && $5 != "LOCAL" { print $8 }' |
	sort -u >"$work/exported.txt"
if [ -s "$work/api.txt" ] && cmp -s <(sed 's/@.*//' "$work/exported.txt" | sort) "$work/api.txt" &&
   ! grep -qvE '@@LIBPCTR_1(\.[12])?$' "$work/exported.txt"; then
	ok "libpctr.so exports exactly the $(wc -l <"$work/api.txt") PCTR_API symbols, at LIBPCTR_1, 1.1 and 1.2"
else
	diff <(sed 's/@.*//' "$work/exported.txt" | sort) "$work/api.txt" | head -n 20
	grep -vE '@@LIBPCTR_1(\.1)?$' "$work/exported.txt" | head -n 5
	bad "libpctr.so exports exactly the PCTR_API symbols, at LIBPCTR_1, 1.1 and 1.2"
fi

# The same for libcpc: every function <libcpc.h> and <libpctx.h> declare
# is marked CPC_API, and libcpc.so exports exactly those, at LIBCPC_1
# or (added later) LIBCPC_1.1.
cpch=("$u/include/libcpc.h" "$u/include/libpctx.h")
unmarked=$(cat "${cpch[@]}" 2>/dev/null |
	   grep -E '^[a-z_].*\b(cpc|pctx)_[a-z_0-9]*\(' |
	   grep -Ev '^(CPC_API|static|typedef) ')
if [ -z "$unmarked" ] && [ -f "${cpch[1]}" ]; then
	ok "<libcpc.h>, <libpctx.h> mark every library function CPC_API"
else
	echo "$unmarked"
	bad "<libcpc.h>, <libpctx.h> mark every library function CPC_API"
fi
cat "${cpch[@]}" 2>/dev/null |
	sed -En 's/^CPC_API .*[ *]((cpc|pctx)_[a-z_0-9]*)\(.*/\1/p' |
	sort >"$work/cpc-api.txt"
readelf -W --dyn-syms "$u/lib/libcpc.so.1.0.0" |
	awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $7 != "ABS" && $5 != "LOCAL" { print $8 }' |
	sort -u >"$work/cpc-exported.txt"
if [ -s "$work/cpc-api.txt" ] &&
   cmp -s <(sed 's/@.*//' "$work/cpc-exported.txt") "$work/cpc-api.txt" &&
   ! grep -qvE '@@LIBCPC_1(\.1)?$' "$work/cpc-exported.txt"; then
	ok "libcpc.so exports exactly the $(wc -l <"$work/cpc-api.txt") CPC_API functions, at LIBCPC_1 and LIBCPC_1.1"
else
	diff <(sed 's/@.*//' "$work/cpc-exported.txt") "$work/cpc-api.txt" | head -n 20
	grep -vE '@@LIBCPC_1(\.1)?$' "$work/cpc-exported.txt" | head -n 5
	bad "libcpc.so exports exactly the CPC_API functions, at LIBCPC_1 and LIBCPC_1.1"
fi

# The man pages, and the one-line pages that point into them, render
# without a warning.
if command -v man >/dev/null; then
	manwarn=$(cd "$u/share/man" && for f in man1/*.1 man3/*.3 man4/*.4 man8/*.8; do
		MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null | sed "s|^|$f: |"
	done)
	if [ -z "$manwarn" ]; then
		ok "the installed man pages render without warnings"
	else
		echo "$manwarn" | head -n 20
		bad "the installed man pages render without warnings"
	fi
else
	skipped "the installed man pages render without warnings (no man)"
fi
