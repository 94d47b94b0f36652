/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctx, the part of it libcpc's cpc_bind_pctx(3CPC) needs: a handle on
 * another process whose threads a set can be bound to.
 *
 * pctx_capture() checks that process @pid exists and records it; unlike
 * Solaris's, it neither stops the process nor takes control of it (pctr
 * binds a set through ptrace(2) only for the moment of the bind, see
 * cpc_bind_pctx()).  @arg is kept for the caller.  Errors go to @errfn;
 * without one, to stderr when @verbose is nonzero, and nowhere
 * otherwise.  NULL with errno ESRCH (no such process) or EINVAL (the
 * calling process itself, which cpc_bind_curlwp() counts).
 *
 * pctx_release() unbinds every set still bound through @pctx, as
 * cpc_unbind() would, and frees it.
 *
 * Not provided: pctx_create(), pctx_set_events(), pctx_run().
 */
#ifndef _LIBPCTX_H
#define _LIBPCTX_H

#include <stdarg.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CPC_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define CPC_API		__attribute__((visibility("default")))
#else
#define CPC_API
#endif
#endif

#ifndef _CPC_PCTX_T
#define _CPC_PCTX_T
typedef struct __pctx pctx_t;
#endif

typedef void (pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

CPC_API pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
			     pctx_errfn_t *errfn);
CPC_API void pctx_release(pctx_t *pctx);

#ifdef __cplusplus
}
#endif

#endif /* _LIBPCTX_H */
