/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctx: the Solaris process context library (pctx_capture(3CPC),
 * pctx_set_events(3CPC)) on Linux, with ptrace(2) where Solaris has
 * /proc.  A controlling process creates (pctx_create) or names
 * (pctx_capture) another process, says which of its events it wants to
 * hear of (pctx_set_events), and runs it (pctx_run): the callbacks are
 * called in the controlling thread, with the thread concerned stopped,
 * and may bind counter sets to the process's threads with
 * cpc_bind_pctx(3CPC), sample and unbind them.  Threads are named by
 * Solaris LWP ids: 1 for the main thread, then 2, 3, ... in the order
 * libpctx learns of them; an exec starts again from 1.  See libpctx(3)
 * for what differs from Solaris.
 *
 * The functions are in libcpc itself (libpctx.so is a linker script that
 * names it, libpctx.a is empty).
 */
#ifndef _LIBPCTX_H
#define _LIBPCTX_H

#include <fcntl.h>
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

#ifndef _CPC_UINT_T
#define _CPC_UINT_T
typedef unsigned int uint_t;
#endif

#ifndef _CPC_PCTX_T
#define _CPC_PCTX_T
typedef struct __pctx pctx_t;
#endif

/* An error report: the function (without "pctx_"), a printf format. */
typedef void (pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

CPC_API pctx_t *pctx_create(const char *filename, char *const *argv,
			    void *arg, int verbose, pctx_errfn_t *errfn);
CPC_API pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
			     pctx_errfn_t *errfn);

typedef int pctx_sysc_execfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
			       char *cmd, void *arg);
typedef void pctx_sysc_forkfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
				pid_t child, void *arg);
typedef void pctx_sysc_exitfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
				int status, void *arg);
typedef int pctx_sysc_lwp_createfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
				     void *arg);
typedef int pctx_init_lwpfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
			      void *arg);
typedef int pctx_fini_lwpfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
			      void *arg);
typedef int pctx_sysc_lwp_exitfn_t(pctx_t *pctx, pid_t pid, id_t lwpid,
				   void *arg);

typedef enum {
	PCTX_NULL_EVENT = 0,
	PCTX_SYSC_EXEC_EVENT,
	PCTX_SYSC_FORK_EVENT,
	PCTX_SYSC_EXIT_EVENT,
	PCTX_SYSC_LWP_CREATE_EVENT,
	PCTX_INIT_LWP_EVENT,
	PCTX_FINI_LWP_EVENT,
	PCTX_SYSC_LWP_EXIT_EVENT
} pctx_event_t;

CPC_API int pctx_set_events(pctx_t *pctx, ...);
CPC_API int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
		     int (*tick)(pctx_t *, pid_t, id_t, void *));
CPC_API void pctx_terminate(pctx_t *pctx);
CPC_API void pctx_release(pctx_t *pctx);

#ifdef __cplusplus
}
#endif

#endif /* _LIBPCTX_H */
