/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a process tree with libpctx, for the commands that do
 * (cputrack in tools/cpc, pctr stat in tools/pctr): their callbacks as
 * one table (libpctx's own struct pctx_callbacks), registered in one
 * call, and the reaping of the processes that follow the children.
 */
#ifndef PCTR_TOOLS_PCTXFOLLOW_H
#define PCTR_TOOLS_PCTXFOLLOW_H

#include <errno.h>
#include <sys/wait.h>

#include <libpctx.h>
#include <pctx_callbacks_private.h>

/* The arguments pctx_set_events() takes for one callback. */
#define PCTX_CALLBACK_ARGS(event, member, type)	event, cb->member,

/* Every callback of @cb for @pctx: pctx_set_events()'s result. */
static inline int pctx_callbacks_set(pctx_t *pctx,
				     const struct pctx_callbacks *cb)
{
	return pctx_set_events(pctx, PCTX_CALLBACKS(PCTX_CALLBACK_ARGS)
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
