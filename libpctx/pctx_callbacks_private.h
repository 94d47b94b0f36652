/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctx's seven callback kinds in one list: the event that names each
 * in pctx_set_events(), its member in struct pctx_callbacks, its type.
 * libpctx keeps a handle's callbacks in that structure, and the commands
 * that follow a process tree (cputrack, pctr stat: tools/pctxfollow.h)
 * register theirs from one.  Never installed: the public libpctx.h is
 * Solaris's, which has no such structure.
 */
#ifndef _LIBPCTX_CALLBACKS_PRIVATE_H
#define _LIBPCTX_CALLBACKS_PRIVATE_H

#include "libpctx.h"

/* X(event, member, type) for each callback, in the events' order. */
#define PCTX_CALLBACKS(X)						     \
	X(PCTX_SYSC_EXEC_EVENT,		exec,		pctx_sysc_execfn_t)	     \
	X(PCTX_SYSC_FORK_EVENT,		fork,		pctx_sysc_forkfn_t)	     \
	X(PCTX_SYSC_EXIT_EVENT,		exit,		pctx_sysc_exitfn_t)	     \
	X(PCTX_SYSC_LWP_CREATE_EVENT,	lwp_create,	pctx_sysc_lwp_createfn_t) \
	X(PCTX_INIT_LWP_EVENT,		init_lwp,	pctx_init_lwpfn_t)	     \
	X(PCTX_FINI_LWP_EVENT,		fini_lwp,	pctx_fini_lwpfn_t)	     \
	X(PCTX_SYSC_LWP_EXIT_EVENT,	lwp_exit,	pctx_sysc_lwp_exitfn_t)

#define PCTX_CALLBACK_MEMBER(event, member, type)	type *member;

/* A handle's callbacks; a NULL one is not called. */
struct pctx_callbacks {
	PCTX_CALLBACKS(PCTX_CALLBACK_MEMBER)
};

#endif /* _LIBPCTX_CALLBACKS_PRIVATE_H */
