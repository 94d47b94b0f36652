// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpctx's event loop, pctx_run(): the controlled process runs until
 * one of its threads reports an event (clone, fork, exec, exit) or the
 * next tick is due; then every thread is stopped, the callbacks are
 * called (in LWP order), and it runs on.  As on Solaris:
 *
 *   - init_lwp for every thread when pctx_run() starts, and for a new
 *     thread (then lwp_create);
 *   - fini_lwp then lwp_exit when a thread exits on its own;
 *   - fini_lwp for every thread, then exit, when the process exits;
 *   - fini_lwp for every thread when it execs, then exec (with the new
 *     command line) and init_lwp for LWP 1; without an exec callback,
 *     pctx_run() returns 0 at an exec;
 *   - fork, with a handle on the child, in a new controlling process
 *     (a fork of this one) that exits when the callback returns;
 *   - tick for every thread each @msec milliseconds.
 *
 * A callback that returns nonzero ends pctx_run() with -1.  Ptrace
 * reports the exec and exit events after the fact: fini_lwp at an exec
 * or exit samples counts that are final already (pctr keeps a thread's
 * counts when it execs or exits).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctx_private.h"

/*
 * The handles pctx_run() runs, for cpc_terminate() from a signal
 * handler: slots claimed and freed with atomic operations.
 */
#define PCTX_RUNNING_MAX	64
static pctx_t *pctx_running[PCTX_RUNNING_MAX];

static void pctx_running_add(pctx_t *pctx)
{
	unsigned int i;

	for (i = 0; i < PCTX_RUNNING_MAX; i++) {
		pctx_t *none = NULL;

		if (__atomic_compare_exchange_n(&pctx_running[i], &none, pctx,
						0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

static void pctx_running_del(pctx_t *pctx)
{
	unsigned int i;

	for (i = 0; i < PCTX_RUNNING_MAX; i++) {
		pctx_t *me = pctx;

		__atomic_compare_exchange_n(&pctx_running[i], &me, NULL, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

void pctx_terminate_running_(void)
{
	unsigned int i;
	pctx_t *p;

	for (i = 0; i < PCTX_RUNNING_MAX; i++) {
		p = __atomic_load_n(&pctx_running[i], __ATOMIC_SEQ_CST);
		if (p)
			p->terminate = 1;
	}
}

static uint64_t pctx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A thread's callback (init_lwp, fini_lwp, lwp_create or lwp_exit: one
 * type) @fn for @t: its result, or 0 when there is none.
 */
static int pctx_lwp_call(pctx_t *pctx, pctx_init_lwpfn_t *fn,
			 struct pctx_thread *t)
{
	return fn ? fn(pctx, pctx->pid, t->lwpid, pctx->arg) : 0;
}

static int pctx_init(pctx_t *pctx, struct pctx_thread *t)
{
	if (t->inited || t->lwpid <= 0)
		return 0;
	t->inited = 1;
	return pctx_lwp_call(pctx, pctx->cb.init_lwp, t);
}

static int pctx_fini(pctx_t *pctx, struct pctx_thread *t)
{
	if (!t->inited)
		return 0;
	t->inited = 0;
	return pctx_lwp_call(pctx, pctx->cb.fini_lwp, t);
}

static int pctx_fini_all(pctx_t *pctx)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < pctx->nthreads; i++)
		if (pctx_fini(pctx, &pctx->threads[i]))
			ret = -1;
	return ret;
}

/* Stop every thread we follow: their events are left pending. */
static void pctx_halt_all(pctx_t *pctx)
{
	unsigned int i;

	for (i = 0; i < pctx->nthreads; i++)
		if (pctx->threads[i].state == PCTX_T_RUNNING &&
		    pctx->threads[i].lwpid > 0)
			pctx_halt_(pctx, &pctx->threads[i]);
}

static void pctx_resume_all(pctx_t *pctx)
{
	unsigned int i;

	for (i = 0; i < pctx->nthreads; i++)
		pctx_resume_(pctx, &pctx->threads[i]);
}

/*
 * Does the thread at its exit stop end the whole process?  If it was
 * killed by a signal, if it called exit_group, or if it is the last.
 */
static int pctx_group_exit(pctx_t *pctx, struct pctx_thread *t,
			   unsigned long msg)
{
	unsigned int i;

	if (WIFSIGNALED((int)msg))
		return 1;
#ifdef __x86_64__
	{
		struct user_regs_struct r;

		if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) == 0)
			return r.orig_rax == SYS_exit_group;
	}
#endif
	for (i = 0; i < pctx->nthreads; i++)
		if (&pctx->threads[i] != t && pctx->threads[i].lwpid > 0 &&
		    pctx->threads[i].state != PCTX_T_GONE)
			return 0;
	return 1;
}

/* The process's command line, as Solaris's psinfo has it (80 chars). */
static void pctx_psargs(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n, i;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

/* The process exited (its exit stop, or the main thread's end). */
static int pctx_on_exit(pctx_t *pctx, struct pctx_thread *t, int code)
{
	int ret = pctx_fini_all(pctx) ? -1 : 0;

	if (!pctx->exited) {
		pctx->exited = 1;
		if (pctx->cb.exit)
			pctx->cb.exit(pctx, pctx->pid, t->lwpid, code, pctx->arg);
	}
	return ret;
}

/* An exec: the old image's threads end, LWP 1 begins. */
static int pctx_on_exec(pctx_t *pctx, struct pctx_thread *t)
{
	char cmd[81];
	unsigned int i;
	int ret = 0;

	pctx_fini_all(pctx);
	/*
	 * The other threads of the old image are gone or going: they are
	 * still reaped (LWP id 0: no callbacks), the execing thread is
	 * the main thread now.
	 */
	for (i = 0; i < pctx->nthreads; i++) {
		struct pctx_thread *o = &pctx->threads[i];

		o->lwpid = 0;
		if (o->tid == pctx->pid && o != t)
			o->state = PCTX_T_GONE;
	}
	t->tid = pctx->pid;
	t->pending = 0;
	if (!pctx->cb.exec)
		return 1;		/* Solaris's: stop following it */
	pctx->nextlwp = 1;
	t->lwpid = pctx->nextlwp++;
	/* Keep it first: LWP order is array order. */
	if (t != &pctx->threads[0]) {
		struct pctx_thread tmp = pctx->threads[0];

		pctx->threads[0] = *t;
		*t = tmp;
		t = &pctx->threads[0];
	}
	pctx_psargs(pctx->pid, cmd, sizeof(cmd));
	if (pctx->cb.exec(pctx, pctx->pid, t->lwpid, cmd, pctx->arg))
		ret = -1;
	if (!ret && pctx_init(pctx, t))
		ret = -1;
	return ret;
}

/* A new thread: wait for its first stop, then init_lwp, lwp_create. */
static int pctx_on_clone(pctx_t *pctx, struct pctx_thread *parent,
			 pid_t tid)
{
	struct pctx_thread *t;
	char path[64];
	int status;

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pctx->pid,
		 (int)tid);
	if (access(path, F_OK)) {
		/* A process (clone without CLONE_THREAD): not ours. */
		if (waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status))
			ptrace(PTRACE_DETACH, tid, 0, 0);
		return 0;
	}
	t = pctx_thread_(pctx, tid);
	if (!t)
		t = pctx_thread_add_(pctx, tid);
	if (!t)
		return -1;
	while (t->state == PCTX_T_RUNNING) {
		if (pctx_wait_(pctx, t, &status) < 0)
			return 0;
		pctx_status_(pctx, t, status);
	}
	if (t->state == PCTX_T_GONE)
		return 0;
	if (pctx_init(pctx, t) ||
	    pctx_lwp_call(pctx, pctx->cb.lwp_create, t))
		return -1;
	return 0;
}

/*
 * A fork: the child is handed, stopped, to a new controlling process
 * (a fork of this one) that calls the fork callback with a handle on it
 * and exits; the child runs on when the callback returns.
 */
static void pctx_on_fork(pctx_t *pctx, struct pctx_thread *parent,
			 pid_t child)
{
	pctx_sysc_forkfn_t *fn = pctx->cb.fork;
	int status, created = pctx->created;
	pctx_t *np;
	pid_t h, *hs;

	if (waitpid(child, &status, __WALL) != child || !WIFSTOPPED(status))
		return;
	/*
	 * Stopped by job control once we let go, until its new owner
	 * takes it.  A signal given to PTRACE_DETACH is delivered only
	 * from a signal-delivery-stop: make one with a SIGSTOP first.
	 */
	syscall(SYS_tgkill, child, child, SIGSTOP);
	while (ptrace(PTRACE_CONT, child, 0, 0) == 0 &&
	       waitpid(child, &status, __WALL) == child &&
	       WIFSTOPPED(status) &&
	       !((unsigned int)status >> 16 == 0 &&
		 WSTOPSIG(status) == SIGSTOP))
		;
	ptrace(PTRACE_DETACH, child, 0, (void *)(long)SIGSTOP);
	fflush(NULL);
	h = fork();
	if (h == 0) {
		np = pctx_capture(child, pctx->arg, pctx->verbose,
				  pctx->errfn);
		if (!np) {
			kill(child, SIGCONT);
			_exit(1);
		}
		np->created = created;
		fn(np, pctx->pid, (id_t)child, (pid_t)parent->lwpid,
		   pctx->arg);
		pctx_release(np);
		kill(child, SIGCONT);
		_exit(0);
	}
	if (h < 0) {
		pctx_error_(pctx, "run", errno, "cannot follow pid %d: %s\n",
			    (int)child, strerror(errno));
		kill(child, SIGCONT);
		return;
	}
	hs = realloc(pctx->helpers, (pctx->nhelpers + 1) * sizeof(*hs));
	if (hs) {
		pctx->helpers = hs;
		hs[pctx->nhelpers++] = h;
	}
}

/* One pending event of @t.  1: stop following (pctx_run returns 0). */
static int pctx_dispatch(pctx_t *pctx, struct pctx_thread *t)
{
	int status = t->pstatus, ev;
	unsigned long msg;

	t->pending = 0;
	if (t->lwpid <= 0)
		return 0;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		/* Only the main thread's end says the process ended. */
		if (t->tid != pctx->pid)
			return 0;
		if (pctx_on_exit(pctx, t, WIFEXITED(status) ?
				 WEXITSTATUS(status) : 128 + WTERMSIG(status)))
			return -1;
		return 1;
	}
	ev = (unsigned int)status >> 16;
	msg = t->pmsg;
	switch (ev) {
	case PTRACE_EVENT_EXIT:
		if (pctx_group_exit(pctx, t, msg)) {
			if (pctx_on_exit(pctx, t, WIFEXITED((int)msg) ?
					 WEXITSTATUS((int)msg) :
					 128 + WTERMSIG((int)msg)))
				return -1;
			return 1;
		}
		if (pctx_fini(pctx, t) ||
		    pctx_lwp_call(pctx, pctx->cb.lwp_exit, t))
			return -1;
		return 0;
	case PTRACE_EVENT_CLONE:
		if ((pid_t)msg <= 0)
			return 0;
		return pctx_on_clone(pctx, t, (pid_t)msg);
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (pctx->cb.fork && (pid_t)msg > 0)
			pctx_on_fork(pctx, t, (pid_t)msg);
		return 0;
	case PTRACE_EVENT_EXEC:
		return pctx_on_exec(pctx, t);
	}
	return 0;
}

/*
 * Every pending event, in LWP order, until none is left: a callback's
 * bind lets a thread run one instruction at a tick (pctx_kick_), which
 * may be a system call that reports one.  As pctx_dispatch().
 */
static int pctx_dispatch_all(pctx_t *pctx)
{
	unsigned int i;
	int ret, again;

	do {
		again = 0;
		for (i = 0; i < pctx->nthreads; i++) {
			if (!pctx->threads[i].pending)
				continue;
			again = 1;
			ret = pctx_dispatch(pctx, &pctx->threads[i]);
			if (ret)
				return ret;
		}
	} while (again);
	return 0;
}

/* A status from any thread we follow, without waiting; 1 if one came. */
static int pctx_poll(pctx_t *pctx)
{
	unsigned int i;
	int status, got = 0;
	pid_t r;

	for (i = 0; i < pctx->nthreads; i++) {
		struct pctx_thread *t = &pctx->threads[i];

		if (t->state != PCTX_T_RUNNING)
			continue;
		r = waitpid(t->tid, &status, __WALL | WNOHANG);
		if (r == t->tid) {
			pctx_status_(pctx, t, status);
			got = 1;
		} else if (r < 0 && errno == ECHILD) {
			t->state = PCTX_T_GONE;
		}
	}
	return got;
}

int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
	     int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	sigset_t chld, old;
	uint64_t goal = 0, now;
	int running = 1, ret;
	unsigned int i;

	if (!pctx)
		return errno = EINVAL, -1;
	if (msec == 0)
		nsamples = 0;
	if (nsamples == 0)
		nsamples = UINT_MAX;
	if (pctx_attach_(pctx))
		return -1;
	pctx_running_add(pctx);
	/* SIGCHLD wakes the wait below: held here, taken by sigtimedwait. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);

	for (i = 0; i < pctx->nthreads && running == 1; i++)
		if (pctx->threads[i].state != PCTX_T_GONE &&
		    pctx_init(pctx, &pctx->threads[i])) {
			if (pctx->verbose)
				pctx_error_(pctx, "run", EINVAL,
					    "%d: lwp discovery failed\n",
					    (int)pctx->pid);
			running = -1;
		}
	if (msec)
		goal = pctx_now_ms() + msec;

	while (running == 1 && !pctx->terminate) {
		int due = 0;

		pctx_resume_all(pctx);
		while (!pctx->terminate) {
			struct timespec ts = { 0, 10000000 };

			if (pctx_poll(pctx))
				break;
			now = pctx_now_ms();
			if (msec && now >= goal) {
				due = 1;
				break;
			}
			if (msec && goal - now < 10)
				ts.tv_nsec = (goal - now) * 1000000;
			sigtimedwait(&chld, NULL, &ts);
		}
		if (pctx->terminate)
			break;
		/* The whole process stops for the callbacks. */
		pctx_halt_all(pctx);
		ret = pctx_dispatch_all(pctx);
		if (ret) {
			running = ret > 0 ? 0 : -1;
			break;
		}
		if (!due)
			continue;
		for (i = 0; i < pctx->nthreads && running == 1; i++) {
			struct pctx_thread *t = &pctx->threads[i];

			if (!t->inited || t->state != PCTX_T_STOPPED || !tick)
				continue;
			if (tick(pctx, pctx->pid, t->lwpid, pctx->arg))
				running = -1;
		}
		if (running == 1) {
			ret = pctx_dispatch_all(pctx);
			if (ret)
				running = ret > 0 ? 0 : -1;
		}
		if (running == 1 && --nsamples == 0)
			running = 0;
		/*
		 * Behind (a busy host): skip to the next goal.  A missed
		 * interval is not a sample: nsamples counts ticks taken.
		 */
		goal += msec;
		now = pctx_now_ms();
		while (goal <= now)
			goal += msec;
	}
	/* The process ended: let its threads go and reap them. */
	if (pctx->exited)
		pctx_reap_(pctx);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pctx_reap_helpers_(pctx, 0);
	pctx_running_del(pctx);
	if (pctx->terminate)
		return 0;
	return running == -1 ? -1 : 0;
}
