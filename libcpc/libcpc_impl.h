/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * <libcpc_impl.h>: the names Solaris's cpustat(1M) and cputrack(1) take
 * from libcpc's implementation header (through their cpucmds.h), so that
 * they build unchanged.  Everything else there is Solaris's private
 * business and not provided.
 *
 * The tools use <string.h>'s functions without including it: it is
 * included here (<libcpc.h> declares only strerror() and bzero(), so
 * that a program's "int index" does not clash with glibc's index()).
 *
 * CPC_TICKREG_NAME: the name of the register cpc_buf_tick() reads, for
 * the tools' column header: "tsc" on x86 (pctr's virtual TSC), "%tick"
 * on SPARC as on Solaris, "tick" elsewhere.
 */
#ifndef _LIBCPC_IMPL_PUBLIC_H
#define _LIBCPC_IMPL_PUBLIC_H

#include <inttypes.h>
#include <string.h>		/* as the tools expect (above) */
#include <sys/types.h>
#include <libcpc.h>

#if defined(__i386__) || defined(__x86_64__)
#define CPC_TICKREG_NAME	"tsc"
#elif defined(__sparc__)
#define CPC_TICKREG_NAME	"%tick"
#else
#define CPC_TICKREG_NAME	"tick"
#endif

#endif /* _LIBCPC_IMPL_PUBLIC_H */
