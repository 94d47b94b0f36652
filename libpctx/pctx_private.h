/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctx's private header (never installed; the public one is
 * libpctx.h): the handle, the threads of the controlled process, and
 * what libcpc's cpc_bind_pctx() (../libcpc/pctx.c) asks of them.
 *
 *   pctx.c         (libcpc) cpc_bind_pctx and its binding ops
 *   pctx_run.c     the event loop: callbacks, ticks
 *   pctx_proc.c    create, capture, release; ptrace control of threads
 *
 * each calling only the ones below it (pctx_release() unbinds libcpc's
 * sets through the unbind_sets pointer pctx.c leaves in the handle).
 *
 * Only the thread that runs pctx_run() traces the process (ptrace
 * requests come from the tracer thread): the callbacks run in it, and
 * so do the binds they make.
 */
#ifndef _LIBPCTX_PRIVATE_H
#define _LIBPCTX_PRIVATE_H

#include <signal.h>
#include <stdarg.h>
#include <sys/types.h>

#include "libpctx.h"
#include "pctx_callbacks_private.h"

struct __cpc;
struct __cpc_set;

/* What a traced thread is doing. */
enum pctx_tstate {
	PCTX_T_RUNNING,		/* resumed; a status will come */
	PCTX_T_STOPPED,		/* in a ptrace-stop, ours to resume */
	PCTX_T_EXITING,		/* stopped at PTRACE_EVENT_EXIT */
	PCTX_T_GONE,		/* exited (or replaced by an exec) */
};

struct pctx_thread {
	pid_t		tid;
	id_t		lwpid;		/* Solaris's: 1, 2, ... */
	enum pctx_tstate state;
	int		sig;		/* to pass on at the next resume */
	int		groupstop;	/* stopped by job control */
	int		outside;	/* at an event stop, outside get_signal */
	int		stepped;	/* single-stepped: its trap may come */
	int		inited;		/* init_lwp called, fini_lwp not yet */
	int		pending;	/* an event or exit to dispatch: */
	int		pstatus;	/* its wait status */
	unsigned long	pmsg;		/* and PTRACE_GETEVENTMSG's */
};

struct __pctx {
	pid_t		pid;
	void		*arg;
	int		verbose;
	pctx_errfn_t	*errfn;
	int		created;	/* by pctx_create: killed at release */
	int		traced;		/* we trace its threads now */
	pid_t		tracer;		/* the thread that does (gettid) */
	volatile sig_atomic_t terminate;
	struct pctx_thread *threads;
	unsigned int	nthreads, maxthreads;
	id_t		nextlwp;
	int		exited;		/* exit callback called */
	struct pctx_callbacks cb;	/* NULL: not asked for */
	pid_t		*helpers;	/* controllers forked for -f */
	unsigned int	nhelpers;
	struct __cpc_set *sets;		/* bound through it (libcpc) */
	/* libcpc's, set at its first bind: unbind those sets. */
	void		(*unbind_sets)(pctx_t *pctx);
};

void pctx_error_(pctx_t *pctx, const char *fn, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The default handlers' "<prefix><fn>: <message>" (libcpc's too). */
void pctx_print_error_(const char *prefix, const char *fn, const char *fmt,
		       va_list ap) __attribute__((format(printf, 3, 0)));

/* pctx_proc.c: the threads. */
struct pctx_thread *pctx_thread_(pctx_t *pctx, pid_t tid);
struct pctx_thread *pctx_lwp_(pctx_t *pctx, id_t lwpid);
struct pctx_thread *pctx_thread_add_(pctx_t *pctx, pid_t tid);
int pctx_attach_(pctx_t *pctx);
void pctx_status_(pctx_t *pctx, struct pctx_thread *t, int status);
int pctx_resume_(pctx_t *pctx, struct pctx_thread *t);
int pctx_wait_(pctx_t *pctx, struct pctx_thread *t, int *status);
int pctx_kick_(pctx_t *pctx, struct pctx_thread *t,
	       const int *done);
int pctx_halt_(pctx_t *pctx, struct pctx_thread *t);
void pctx_detach_all_(pctx_t *pctx);
void pctx_reap_(pctx_t *pctx);
void pctx_reap_helpers_(pctx_t *pctx, int block);
int pctx_read_proc_(const char *path, char *buf, size_t size);
char pctx_stat_state_(const char *stat);

/* pctx_run.c: pctx_terminate() for every pctx_run() running. */
void pctx_terminate_running_(void);


#endif /* _LIBPCTX_PRIVATE_H */
