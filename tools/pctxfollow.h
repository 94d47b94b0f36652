/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a process tree with libpctx, for the commands that do
 * (cputrack in tools/cpc, pctr stat in tools/pctr): their callbacks as
 * one table, registered in one call, and the reaping of the processes
 * that follow the children.
 */
#ifndef PCTR_TOOLS_PCTXFOLLOW_H
#define PCTR_TOOLS_PCTXFOLLOW_H

#include <errno.h>
#include <sys/wait.h>

#include <libpctx.h>

/* libpctx's callbacks; a NULL one is not called. */
struct pctx_callbacks {
	pctx_sysc_execfn_t		*exec;
	pctx_sysc_forkfn_t		*fork;
	pctx_sysc_exitfn_t		*exit;
	pctx_sysc_lwp_createfn_t	*lwp_create;
	pctx_init_lwpfn_t		*init_lwp;
	pctx_fini_lwpfn_t		*fini_lwp;
	pctx_sysc_lwp_exitfn_t		*lwp_exit;
};

/* Every callback of @cb for @pctx: pctx_set_events()'s result. */
static inline int pctx_callbacks_set(pctx_t *pctx,
				     const struct pctx_callbacks *cb)
{
	return pctx_set_events(pctx,
			       PCTX_SYSC_EXEC_EVENT, cb->exec,
			       PCTX_SYSC_FORK_EVENT, cb->fork,
			       PCTX_SYSC_EXIT_EVENT, cb->exit,
			       PCTX_SYSC_LWP_CREATE_EVENT, cb->lwp_create,
			       PCTX_INIT_LWP_EVENT, cb->init_lwp,
			       PCTX_FINI_LWP_EVENT, cb->fini_lwp,
			       PCTX_SYSC_LWP_EXIT_EVENT, cb->lwp_exit,
			       PCTX_NULL_EVENT);
}

/*
 * Wait for every child: the processes of ours that follow a forked
 * child (libpctx's way) each end with theirs.
 */
static inline void pctx_reap_followers(void)
{
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

#endif /* PCTR_TOOLS_PCTXFOLLOW_H */
