// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpctx: the handle (pctx_create, pctx_capture, pctx_set_events,
 * pctx_terminate, pctx_release) and ptrace(2) control of the controlled
 * process's threads, for the event loop (pctx_run.c) and for libcpc's
 * binds (pctx.c).
 *
 * Every thread is attached with PTRACE_SEIZE, so that it can be stopped
 * (PTRACE_INTERRUPT) without a signal, and reports clone, exec and exit
 * (and fork when a fork callback is set) as ptrace events.  A created
 * process is attached before it execs, and is stopped at its exec; a
 * captured one only when pctx_run() starts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctx_private.h"

/* --- errors ------------------------------------------------------------ */

/*
 * The default handlers' output, libpctx's and libcpc's (common.c):
 * "<prefix><fn>: <message>" on stderr, in one write so that messages
 * from several threads do not mix.  The message ends with its newline,
 * as every message given to a handler does.
 */
void pctx_print_error_(const char *prefix, const char *fn, const char *fmt,
		       va_list ap)
{
	char msg[600];
	int n;

	n = snprintf(msg, sizeof(msg), "%s%s: ", prefix, fn);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	fputs(msg, stderr);
}

/* Solaris's default: "libpctx: pctx_<fn>: <message>" on stderr. */
static void pctx_default_errfn(const char *fn, const char *fmt, va_list ap)
{
	pctx_print_error_("libpctx: pctx_", fn, fmt, ap);
}

/*
 * Report through the caller's handler (Solaris's messages end with a
 * newline, and so do these), or the default one; set errno to @err.
 */
void pctx_error_(pctx_t *pctx, const char *fn, int err, const char *fmt, ...)
{
	pctx_errfn_t *h = pctx->errfn ? pctx->errfn : pctx_default_errfn;
	va_list ap;

	va_start(ap, fmt);
	h(fn, fmt, ap);
	va_end(ap);
	errno = err;
}

static pctx_t *pctx_new(void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx = calloc(1, sizeof(*pctx));

	if (!pctx)
		return NULL;
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn;
	pctx->nextlwp = 1;
	return pctx;
}

/* --- the threads ------------------------------------------------------- */

struct pctx_thread *pctx_thread_(pctx_t *pctx, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < pctx->nthreads; i++)
		if (pctx->threads[i].tid == tid &&
		    pctx->threads[i].state != PCTX_T_GONE)
			return &pctx->threads[i];
	return NULL;
}

struct pctx_thread *pctx_lwp_(pctx_t *pctx, id_t lwpid)
{
	unsigned int i;

	for (i = 0; i < pctx->nthreads; i++)
		if (pctx->threads[i].lwpid == lwpid)
			return &pctx->threads[i];
	return NULL;
}

/* A new thread, with the next LWP id; NULL without memory. */
struct pctx_thread *pctx_thread_add_(pctx_t *pctx, pid_t tid)
{
	struct pctx_thread *t;

	if (pctx->nthreads == pctx->maxthreads) {
		unsigned int n = pctx->maxthreads ? 2 * pctx->maxthreads : 8;

		t = realloc(pctx->threads, n * sizeof(*t));
		if (!t)
			return NULL;
		pctx->threads = t;
		pctx->maxthreads = n;
	}
	t = &pctx->threads[pctx->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->lwpid = pctx->nextlwp++;
	t->state = PCTX_T_RUNNING;
	return t;
}

/*
 * A status waitpid() gave for @t: its new state.  A ptrace event (clone,
 * fork, exec, exit) or the thread's end is left pending for pctx_run()
 * to dispatch; a signal is passed on at the next resume.
 */
void pctx_status_(pctx_t *pctx, struct pctx_thread *t, int status)
{
	int ev;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		t->state = PCTX_T_GONE;
		t->sig = 0;
		t->pending = 1;
		t->pstatus = status;
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	ev = (unsigned int)status >> 16;
	t->groupstop = 0;
	t->outside = ev != 0 && ev != PTRACE_EVENT_STOP;
	t->state = PCTX_T_STOPPED;
	if (ev == 0) {
		/* A signal on its way: passed on at the next resume. */
		t->sig = WSTOPSIG(status);
		/*
		 * But not the trap of our single step (pctx_kick_), which
		 * may come after another stop: it would kill the program.
		 */
		if (t->sig == SIGTRAP && t->stepped) {
			siginfo_t si;

			if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 &&
			    (si.si_code == TRAP_TRACE ||
			     si.si_code == TRAP_BRKPT ||
			     (si.si_code == SI_USER && !si.si_pid))) {
				t->sig = 0;
				t->stepped = 0;
			}
		}
	} else if (ev == PTRACE_EVENT_STOP) {
		/* Not SIGTRAP: a group-stop (job control). */
		t->groupstop = WSTOPSIG(status) != SIGTRAP;
	} else {
		if (ev == PTRACE_EVENT_EXIT)
			t->state = PCTX_T_EXITING;
		/* Its message now: a later stop would replace it. */
		t->pmsg = 0;
		ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &t->pmsg);
		t->pending = 1;
		t->pstatus = status;
	}
}

/* waitpid() for @t; 0, or -1 if it cannot be waited for (then gone). */
int pctx_wait_(pctx_t *pctx, struct pctx_thread *t, int *status)
{
	for (;;) {
		if (waitpid(t->tid, status, __WALL) == t->tid)
			return 0;
		if (errno != EINTR) {
			t->state = PCTX_T_GONE;
			return -1;
		}
	}
}

/* Let a stopped thread go on (a job-control stop stays one). */
int pctx_resume_(pctx_t *pctx, struct pctx_thread *t)
{
	long ret;

	if (t->state != PCTX_T_STOPPED && t->state != PCTX_T_EXITING)
		return 0;
	if (t->groupstop)
		ret = ptrace(PTRACE_LISTEN, t->tid, 0, 0);
	else
		ret = ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)t->sig);
	t->sig = 0;
	/* ESRCH: killed meanwhile; its exit status will come. */
	t->state = PCTX_T_RUNNING;
	return ret < 0 && errno != ESRCH ? -1 : 0;
}

/*
 * Let a stopped thread run the work pctr queued for it (a bind's setup)
 * and stop again.  Queued work runs on the way back to user space,
 * after the signal handling where the stops of PTRACE_INTERRUPT and of
 * signals happen.  So from a ptrace event stop (exec, clone, fork), a
 * PTRACE_INTERRUPT while stopped and PTRACE_CONT make it run the work
 * and stop before any instruction of its own; from a stop within the
 * signal handling (an interrupt, as at a tick), a PTRACE_SINGLESTEP
 * takes it out, through the work, and back after one instruction (its
 * SIGTRAP is not passed on); where there is no single step (sparc64),
 * a PTRACE_CONT and an interrupt once the work has run, so the thread
 * may run some instructions of its own in between.  Repeated while the
 * work has not run (*@done still 0), once if @done is NULL.  -1 with errno ESRCH if the
 * thread exits (or is exiting), EAGAIN if job control holds it, EPERM
 * if the caller is not the tracer thread.
 */
int pctx_kick_(pctx_t *pctx, struct pctx_thread *t, const int *done)
{
	const struct timespec nap = { 0, 200000 };
	int status, i, step;
	long ret;

	if (!pctx->traced || (pid_t)syscall(SYS_gettid) != pctx->tracer)
		return errno = EPERM, -1;
	/* Give the bind a moment to queue its work first. */
	if (done)
		nanosleep(&(struct timespec){ 0, 3000000 }, NULL);
	for (;;) {
		if (done && __atomic_load_n(done, __ATOMIC_ACQUIRE))
			break;
		if (t->state == PCTX_T_EXITING || t->state == PCTX_T_GONE)
			return errno = ESRCH, -1;
		if (t->state != PCTX_T_STOPPED)
			return errno = EINVAL, -1;
		if (t->groupstop)
			return errno = EAGAIN, -1;
		step = !t->outside;
		if (step) {
			t->stepped = 1;
			ret = ptrace(PTRACE_SINGLESTEP, t->tid, 0,
				     (void *)(long)t->sig);
			/*
			 * No single step on this architecture (sparc64:
			 * EIO): continue it and interrupt it as below,
			 * once the work has run; it may run a few of its
			 * own instructions first.
			 */
			if (ret < 0 && errno == EIO) {
				t->stepped = 0;
				ret = ptrace(PTRACE_CONT, t->tid, 0,
					     (void *)(long)t->sig);
			}
		} else {
			ret = ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
			if (ret == 0)
				ret = ptrace(PTRACE_CONT, t->tid, 0,
					     (void *)(long)t->sig);
		}
		if (ret < 0)
			return errno = ESRCH, -1;
		t->sig = 0;
		t->state = PCTX_T_RUNNING;
		/*
		 * A thread that was stopped in a blocking system call goes
		 * back into it and does not come to the single step's trap:
		 * once the work has run (or after 20 ms), interrupt it.
		 */
		for (i = 0; step && i < 100; i++) {
			if (waitpid(t->tid, &status, __WALL | WNOHANG) ==
			    t->tid)
				break;
			if (done && __atomic_load_n(done, __ATOMIC_ACQUIRE) &&
			    i >= 5)
				i = 100;
			else
				nanosleep(&nap, NULL);
		}
		if (step && i >= 100)
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
		if ((!step || i >= 100) && pctx_wait_(pctx, t, &status) < 0)
			return errno = ESRCH, -1;
		pctx_status_(pctx, t, status);
		if (!done)
			break;
		/* The work signals its end: wait for that a little. */
		for (i = 0; i < 50; i++) {
			if (__atomic_load_n(done, __ATOMIC_ACQUIRE))
				break;
			nanosleep(&nap, NULL);
		}
	}
	if (t->state == PCTX_T_GONE)
		return errno = ESRCH, -1;
	return 0;
}

/* Stop a running thread (PTRACE_INTERRUPT); 0 once stopped, -1 if gone. */
int pctx_halt_(pctx_t *pctx, struct pctx_thread *t)
{
	int status;

	if (t->state == PCTX_T_RUNNING &&
	    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0 && errno != ESRCH)
		return -1;
	while (t->state == PCTX_T_RUNNING) {
		if (pctx_wait_(pctx, t, &status) < 0)
			return -1;
		pctx_status_(pctx, t, status);
	}
	return t->state == PCTX_T_GONE ? -1 : 0;
}

static long pctx_options(const pctx_t *pctx)
{
	long o = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		 PTRACE_O_TRACEEXIT;

	if (pctx->cb.fork)
		o |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (pctx->created)
		o |= PTRACE_O_EXITKILL;
	return o;
}

/* A file of /proc into @buf (NUL-terminated); -1 if unreadable. */
int pctx_read_proc_(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The state letter of a stat line "pid (comm) S ...", 0 if none. */
char pctx_stat_state_(const char *stat)
{
	/* comm may hold anything, so after the last ')'. */
	const char *p = strrchr(stat, ')');

	return p && p[1] == ' ' ? p[2] : 0;
}

/* The state letter of /proc/<pid>/stat, 0 if unreadable. */
static char pctx_proc_state(pid_t pid)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pctx_read_proc_(path, buf, sizeof(buf)))
		return 0;
	return pctx_stat_state_(buf);
}

/* Seize and stop thread @tid of a captured process. */
static int pctx_seize(pctx_t *pctx, pid_t tid)
{
	struct pctx_thread *t;

	if (ptrace(PTRACE_SEIZE, tid, 0, (void *)pctx_options(pctx)) < 0) {
		if (errno == ESRCH)
			return 0;	/* gone meanwhile */
		if (errno == EPERM && pctx_thread_(pctx, tid))
			return 0;	/* ours already (auto-attached) */
		return -1;
	}
	t = pctx_thread_add_(pctx, tid);
	if (!t)
		return -1;
	pctx_halt_(pctx, t);
	return 0;
}

/* Take a thread out of a group-stop into an ordinary stop. */
static void pctx_unfreeze(pctx_t *pctx, struct pctx_thread *t)
{
	int status, n;

	for (n = 0; n < 10 && t->state == PCTX_T_STOPPED && t->groupstop; n++) {
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0 ||
		    ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
			return;
		t->state = PCTX_T_RUNNING;
		if (pctx_wait_(pctx, t, &status) < 0)
			return;
		pctx_status_(pctx, t, status);
	}
}

/*
 * Take control of the process: pctx_create's has been since its exec,
 * a captured one is seized thread by thread (its main thread first, LWP
 * 1), until a pass finds no new thread.  Every thread is left stopped.
 */
int pctx_attach_(pctx_t *pctx)
{
	char path[64];
	struct dirent *d;
	unsigned int i;
	int found, stopped;
	DIR *dir;

	pctx->tracer = syscall(SYS_gettid);
	if (pctx->traced) {
		for (i = 0; i < pctx->nthreads; i++)
			if (pctx->threads[i].state == PCTX_T_STOPPED)
				ptrace(PTRACE_SETOPTIONS, pctx->threads[i].tid,
				       0, (void *)pctx_options(pctx));
		return 0;
	}
	stopped = 0;
	if (pctx_seize(pctx, pctx->pid) < 0 || !pctx_thread_(pctx, pctx->pid))
		goto fail;
	pctx->traced = 1;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pctx->pid);
	do {
		found = 0;
		dir = opendir(path);
		if (!dir)
			break;
		while ((d = readdir(dir))) {
			pid_t tid = atoi(d->d_name);

			if (tid <= 0 || pctx_thread_(pctx, tid))
				continue;
			if (pctx_seize(pctx, tid) < 0) {
				closedir(dir);
				goto fail;
			}
			found = 1;
		}
		closedir(dir);
	} while (found);
	/*
	 * Stopped by job control, or about to be (as the child a fork
	 * callback is given is): it runs under us now.  A SIGSTOP on its
	 * way is dropped; a thread in a group-stop leaves it and stops
	 * again for the SIGCONT, passed on when it is resumed.
	 */
	for (i = 0; i < pctx->nthreads; i++) {
		if (pctx->threads[i].sig == SIGSTOP)
			pctx->threads[i].sig = 0;
		if (pctx->threads[i].groupstop)
			stopped = 1;
	}
	if (stopped) {
		kill(pctx->pid, SIGCONT);
		for (i = 0; i < pctx->nthreads; i++)
			pctx_unfreeze(pctx, &pctx->threads[i]);
	}
	return 0;
fail:
	if (errno == EPERM)
		pctx_error_(pctx, "run", EPERM, "pid %d: permission denied\n",
			    (int)pctx->pid);
	else if (errno == ESRCH)
		pctx_error_(pctx, "run", ESRCH, "pid %d doesn't exist\n",
			    (int)pctx->pid);
	else
		pctx_error_(pctx, "run", errno, "pid %d: %s\n",
			    (int)pctx->pid, strerror(errno));
	pctx_detach_all_(pctx);
	return -1;
}

/* Let go of every thread, each with the signal it was stopped for. */
void pctx_detach_all_(pctx_t *pctx)
{
	unsigned int i;

	for (i = 0; i < pctx->nthreads; i++) {
		struct pctx_thread *t = &pctx->threads[i];

		if (t->state == PCTX_T_GONE || pctx_halt_(pctx, t) < 0)
			continue;
		ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->sig);
		t->state = PCTX_T_GONE;
	}
	pctx->nthreads = 0;
	pctx->traced = 0;
}

/*
 * Wait for every thread of a dying process: the others first, as its
 * main thread is reported only once they are reaped.
 */
void pctx_reap_(pctx_t *pctx)
{
	const struct timespec nap = { 0, 1000000 };
	struct pctx_thread *lead = NULL;
	unsigned int i;
	int status, n;

	for (i = 0; i < pctx->nthreads; i++) {
		struct pctx_thread *t = &pctx->threads[i];

		if (t->state == PCTX_T_GONE)
			continue;
		if (t->tid == pctx->pid) {
			lead = t;
			continue;
		}
		pctx_resume_(pctx, t);
		while (t->state != PCTX_T_GONE &&
		       pctx_wait_(pctx, t, &status) == 0) {
			pctx_status_(pctx, t, status);
			pctx_resume_(pctx, t);
		}
	}
	if (!lead)
		return;
	/* A thread we never heard of would hold it: give up after 5 s. */
	pctx_resume_(pctx, lead);
	for (n = 0; n < 5000 && lead->state != PCTX_T_GONE; n++) {
		pid_t r = waitpid(lead->tid, &status, __WALL | WNOHANG);

		if (r < 0 && errno != EINTR)
			break;
		if (r == lead->tid) {
			pctx_status_(pctx, lead, status);
			pctx_resume_(pctx, lead);
		} else {
			nanosleep(&nap, NULL);
		}
	}
}

/* The controllers forked for a fork callback: reaped when done. */
void pctx_reap_helpers_(pctx_t *pctx, int block)
{
	unsigned int i = 0;
	int status;

	while (i < pctx->nhelpers) {
		if (waitpid(pctx->helpers[i], &status,
			    block ? 0 : WNOHANG) == 0 ||
		    (block && errno == EINTR)) {
			i++;
			continue;
		}
		pctx->helpers[i] = pctx->helpers[--pctx->nhelpers];
	}
}

/* --- the handle -------------------------------------------------------- */

/*
 * Fork, and exec @filename (searched in PATH as execvp(3) does) in the
 * child once it is seized: the process is returned stopped at its exec.
 */
pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
		    int verbose, pctx_errfn_t *errfn)
{
	int go[2], report[2], status, err = 0;
	struct pctx_thread *t;
	pctx_t *pctx;
	pid_t pid;
	char c = 0;

	pctx = pctx_new(arg, verbose, errfn);
	if (!pctx)
		return NULL;
	if (pipe2(go, O_CLOEXEC) < 0) {
		err = errno;
		goto fail_nopipe;
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		err = errno;
		close(go[0]);
		close(go[1]);
		goto fail_nopipe;
	}
	pid = fork();
	if (pid == 0) {
		/* Wait to be seized, exec, or report why not. */
		close(go[1]);
		close(report[0]);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		execvp(filename, argv);
		err = errno;
		if (write(report[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(go[0]);
	close(report[1]);
	if (pid < 0) {
		err = errno;
		close(go[1]);
		close(report[0]);
		pctx_error_(pctx, "create", err, "cannot fork, program '%s'\n",
			    filename);
		free(pctx);
		return NULL;
	}
	pctx->pid = pid;
	pctx->created = 1;
	if (ptrace(PTRACE_SEIZE, pid, 0,
		   (void *)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) < 0) {
		err = errno;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(go[1]);
		close(report[0]);
		pctx_error_(pctx, "create", err,
			    "cannot trace program '%s': %s\n", filename,
			    strerror(err));
		free(pctx);
		return NULL;
	}
	if (write(go[1], &c, 1) < 0)
		err = errno;
	close(go[1]);
	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		if (WIFSTOPPED(status) &&
		    (unsigned int)status >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8))
			break;
		if (WIFSTOPPED(status)) {
			/* A signal before the exec: passed on. */
			ptrace(PTRACE_CONT, pid, 0,
			       (void *)(long)((unsigned int)status >> 16 ?
					      0 : WSTOPSIG(status)));
			continue;
		}
		/* It died: why, the pipe says. */
		if (read(report[0], &err, sizeof(err)) != sizeof(err))
			err = ECHILD;
		pid = 0;
		break;
	}
	close(report[0]);
	if (pid <= 0) {
		if (err == ENOENT)
			pctx_error_(pctx, "create", ENOENT,
				    "cannot find program '%s'\n", filename);
		else if (err == EACCES || err == ENOEXEC)
			pctx_error_(pctx, "create", err,
				    "cannot execute program '%s'\n", filename);
		else
			pctx_error_(pctx, "create", err,
				    "%s, program '%s'\n", strerror(err),
				    filename);
		free(pctx);
		return NULL;
	}
	t = pctx_thread_add_(pctx, pid);
	if (!t) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, __WALL);
		free(pctx);
		errno = ENOMEM;
		return NULL;
	}
	t->state = PCTX_T_STOPPED;
	t->outside = 1;		/* at its exec */
	pctx->traced = 1;
	pctx->tracer = syscall(SYS_gettid);
	return pctx;

fail_nopipe:
	pctx_error_(pctx, "create", err, "cannot fork, program '%s'\n",
		    filename);
	free(pctx);
	return NULL;
}

/*
 * Name process @pid.  Whether the caller may trace it is checked as
 * ptrace(2) would check it (opening its /proc mem file asks the same
 * question), but it is attached only by pctx_run() (or, for a bind
 * outside pctx_run(), by cpc_bind_pctx() for that moment).
 */
pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	char path[64], state;
	pctx_t *pctx;
	int fd;

	pctx = pctx_new(arg, verbose, errfn);
	if (!pctx)
		return NULL;
	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH)) {
		pctx_error_(pctx, "capture", ESRCH, "pid %d doesn't exist\n",
			    (int)pid);
		goto fail;
	}
	if (pid == getpid()) {
		pctx_error_(pctx, "capture", EINVAL, "cannot capture self!\n");
		goto fail;
	}
	state = pctx_proc_state(pid);
	if (state == 'Z' || state == 'X') {
		pctx_error_(pctx, "capture", ESRCH, "pid %d is a zombie\n",
			    (int)pid);
		goto fail;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		pctx_error_(pctx, "capture", EPERM,
			    "pid %d: permission denied\n", (int)pid);
		goto fail;
	}
	if (fd >= 0)
		close(fd);
	pctx->pid = pid;
	return pctx;
fail:
	free(pctx);
	return NULL;
}

/* One case of pctx_set_events(): the callback that follows @event. */
#define PCTX_SET_CALLBACK(event, member, type)				\
	case event:							\
		pctx->cb.member = va_arg(ap, type *);			\
		break;

int pctx_set_events(pctx_t *pctx, ...)
{
	pctx_event_t ev;
	va_list ap;
	int ret = 0;

	va_start(ap, pctx);
	while ((ev = (pctx_event_t)va_arg(ap, int)) != PCTX_NULL_EVENT) {
		switch (ev) {
		PCTX_CALLBACKS(PCTX_SET_CALLBACK)
		default:
			pctx_error_(pctx, "set_events", EINVAL,
				    "unknown event type %x\n", (unsigned int)ev);
			ret = -1;
			goto out;
		}
	}
out:
	va_end(ap);
	return ret;
}

/* Async-signal-safe: pctx_run() returns (0) at its next look. */
void pctx_terminate(pctx_t *pctx)
{
	if (pctx)
		pctx->terminate = 1;
}

/*
 * Unbind what is bound through @pctx; then a created process is killed
 * and a captured one let go (each thread with the signal it had
 * pending), and the handle freed.
 */
void pctx_release(pctx_t *pctx)
{
	if (!pctx)
		return;
	if (pctx->unbind_sets)
		pctx->unbind_sets(pctx);
	if (pctx->traced && pctx->created) {
		kill(pctx->pid, SIGKILL);
		pctx_reap_(pctx);
		pctx->traced = 0;
	} else if (pctx->traced) {
		pctx_detach_all_(pctx);
	}
	pctx_reap_helpers_(pctx, 0);
	free(pctx->helpers);
	free(pctx->threads);
	free(pctx);
}
