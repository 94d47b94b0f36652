// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpctx (the part cpc_bind_pctx() needs) and cpc_bind_pctx(): counting
 * a thread of another process.
 *
 * pctr sets such counters up in the target thread's own context, for a
 * caller that traces the thread with ptrace(2) at the time of the bind
 * (PCIOCBIND, PCTR_BIND_THREAD).  So cpc_bind_pctx() seizes the thread
 * (PTRACE_SEIZE: it keeps running), binds a descriptor of the set's own,
 * and detaches (PTRACE_INTERRUPT, waitpid, PTRACE_DETACH: the thread
 * stops only for that moment).  The binding then lives on the
 * descriptor: cpc_set_sample() reads it with PCIOCRD, cpc_unbind() ends
 * it, and after the thread exits (or execs) the set keeps its final
 * counts.
 *
 * The kernel waits for the thread to run the setup, and a seized thread
 * that gets a signal stops in a signal-delivery-stop until its tracer
 * lets it go on: a signal in the moment between the seize and the setup
 * would hold the bind forever.  So the ioctl runs in a short-lived
 * helper thread (all signals blocked) while the calling thread, the
 * tracer, passes such signals on (PTRACE_CONT with the signal) and
 * leaves a job-control stop a stop (PTRACE_LISTEN: the bind then waits
 * for SIGCONT).
 *
 * While the bind runs, the caller waits for the target with
 * waitpid(tid, __WALL): a SIGCHLD handler or another thread reaping
 * every child meanwhile (waitpid(-1)) may take that status away, and if
 * the target exits then, its status is consumed here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "impl.h"
#include "libpctx.h"

static const struct cpc_binding cpc_pctx_binding;

struct __pctx {
	pid_t		pid;
	void		*arg;
	int		verbose;
	pctx_errfn_t	*errfn;
	cpc_set_t	*sets;		/* bound through it */
};

static void pctx_err(pctx_errfn_t *errfn, int verbose, const char *fn,
		     int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void pctx_err(pctx_errfn_t *errfn, int verbose, const char *fn,
		     int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	if (errfn) {
		errfn(fn, fmt, ap);
	} else if (verbose) {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		fprintf(stderr, "libpctx: %s: %s\n", fn, msg);
	}
	va_end(ap);
	errno = err;
}

pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;

	/* kill(pid, 0): EPERM still says the process exists. */
	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH)) {
		pctx_err(errfn, verbose, __func__, ESRCH, "no process %d",
			 (int)pid);
		return NULL;
	}
	if (pid == getpid()) {
		pctx_err(errfn, verbose, __func__, EINVAL,
			 "process %d is the caller: cpc_bind_curlwp() counts its threads",
			 (int)pid);
		return NULL;
	}
	pctx = calloc(1, sizeof(*pctx));
	if (!pctx)
		return NULL;
	pctx->pid = pid;
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn;
	return pctx;
}

void pctx_release(pctx_t *pctx)
{
	if (!pctx)
		return;
	while (pctx->sets)
		cpc_set_unbind_(pctx->sets);	/* unlinks it */
	free(pctx);
}

/* /proc/<pid>/task/<tid>/<file> into @buf (NUL-terminated); -1 if gone. */
static int cpc_read_task(pid_t pid, pid_t tid, const char *file, char *buf,
			 size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
		 (int)tid, file);
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

/* The thread's run time in ns (schedstat's first field); -1 if gone. */
static int cpc_run_ns(pid_t pid, pid_t tid, uint64_t *ns)
{
	char buf[96];

	if (cpc_read_task(pid, tid, "schedstat", buf, sizeof(buf)))
		return -1;
	*ns = strtoull(buf, NULL, 10);
	return 0;
}

/* The state letter of /proc/<pid>/task/<tid>/stat, 0 if unreadable. */
static char cpc_thread_state(pid_t pid, pid_t tid)
{
	char buf[512], *p;

	if (cpc_read_task(pid, tid, "stat", buf, sizeof(buf)))
		return 0;
	/* "tid (comm) S ...": comm may hold anything, so the last ')'. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Stop the seized thread for a moment and detach.  PTRACE_DETACH wants
 * it in a ptrace-stop: PTRACE_INTERRUPT makes one.  If the stop it
 * reports is a signal-delivery-stop instead (a signal came first), the
 * signal is passed on at the detach, as if it had never been traced; an
 * interrupt or group-stop (PTRACE_EVENT_STOP) passes nothing.
 */
static void cpc_detach(pid_t tid)
{
	int status, sig = 0;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
		/* Gone: reap it if it died traced by us. */
		waitpid(tid, &status, __WALL | WNOHANG);
		return;
	}
	for (;;) {
		if (waitpid(tid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return;
		if (WIFSTOPPED(status))
			break;
	}
	if ((status >> 16) == 0)
		sig = WSTOPSIG(status);
	ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig);
}

/* The bind, run by a helper thread while its caller tends the target. */
struct cpc_bind_job {
	int			fd;
	const struct pctr_bind	*pb;
	int			ret;
	int			err;
	int			done;
};

static void *cpc_bind_job_run(void *arg)
{
	struct cpc_bind_job *job = arg;

	job->ret = ioctl(job->fd, PCIOCBIND, job->pb);
	job->err = errno;
	__atomic_store_n(&job->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Keep the seized thread running until the bind is done: pass on the
 * signals it stops for, restart it after a ptrace notification, and
 * leave a group-stop a stop.  1 if the thread exited meanwhile (its
 * status was reaped here), else 0.
 */
static int cpc_tend(pid_t tid, const struct cpc_bind_job *job)
{
	const struct timespec nap = { 0, 200000 };
	int status, gone = 0;
	pid_t r;

	while (!__atomic_load_n(&job->done, __ATOMIC_ACQUIRE)) {
		r = gone ? 0 : waitpid(tid, &status, __WALL | WNOHANG);
		if (r == tid && WIFSTOPPED(status)) {
			if ((status >> 16) == 0)	/* signal-delivery-stop */
				ptrace(PTRACE_CONT, tid, 0,
				       (void *)(long)WSTOPSIG(status));
			else if (WSTOPSIG(status) == SIGTRAP)
				ptrace(PTRACE_CONT, tid, 0, 0);
			else				/* group-stop */
				ptrace(PTRACE_LISTEN, tid, 0, 0);
			continue;
		}
		if (r == tid || (r < 0 && errno == ECHILD))
			gone = 1;
		nanosleep(&nap, NULL);
	}
	return gone;
}

/* PCIOCBIND of @job for seized thread @tid, then detach from it. */
static void cpc_bind_seized(pid_t tid, struct cpc_bind_job *job)
{
	sigset_t all, old;
	pthread_t th;
	int gone = 0;

	/* Blocked in the helper: an inherited overflow signal stays there. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&th, NULL, cpc_bind_job_run, job)) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		cpc_bind_job_run(job);	/* no helper: take the chance */
	} else {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		gone = cpc_tend(tid, job);
		pthread_join(th, NULL);
	}
	if (!gone)
		cpc_detach(tid);
}

/* PCIOCBIND's errno for a thread, as Solaris's cpc_bind_pctx() has it. */
static int cpc_pctx_bind_err(cpc_t *cpc, int err, pid_t pid, pid_t tid)
{
	switch (err) {
	case ESRCH:
		return cpc_err(cpc, "cpc_bind_pctx", CPC_INVALID_ARGUMENT,
			       ESRCH, "process %d has no thread %d", (int)pid,
			       (int)tid);
	case EBUSY:
		return cpc_err(cpc, "cpc_bind_pctx", CPC_RESOURCE_UNAVAIL,
			       EAGAIN,
			       "thread %d counts already (for itself, or bound by another)",
			       (int)tid);
	case EPERM:
	case EACCES:
		return cpc_err(cpc, "cpc_bind_pctx", CPC_RESOURCE_UNAVAIL,
			       EACCES, "not permitted to count thread %d",
			       (int)tid);
	case EINTR:
		return cpc_err(cpc, "cpc_bind_pctx", CPC_RESOURCE_UNAVAIL,
			       EINTR,
			       "interrupted while thread %d was being set up",
			       (int)tid);
	}
	return cpc_bind_err(cpc, "cpc_bind_pctx", err, NULL);
}

int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set,
		  uint_t flags)
{
	struct cpc_bind_job job = { 0 };
	int slot[PCTR_NUM], err;
	struct pctr_bind pb;
	char path[64], state;
	pctr_t *p;
	pid_t tid;

	/*
	 * pctr cannot signal another process's thread on overflow: it
	 * refuses PCTR_INT in a binding (EINVAL), and so does this.
	 */
	if (cpc_bind_check(cpc, __func__, set, flags,
			   "not for another process's thread"))
		return -1;
	if (!pctx)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "no pctx (see pctx_capture)");
	/*
	 * Solaris numbers a process's LWPs from 1; Linux threads have
	 * system-wide thread IDs.  @id is a thread ID (TID) of the target,
	 * and 1, Solaris's first LWP, means its main thread (TID = PID).
	 * That is never ambiguous: TID 1 is init's main thread, so only
	 * init's threads could mean it otherwise, and for init both are
	 * the same thread.
	 */
	if (id == 0 || id > INT_MAX)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, ESRCH,
			       "no thread %u", (unsigned int)id);
	tid = id == 1 ? pctx->pid : (pid_t)id;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pctx->pid,
		 (int)tid);
	if (access(path, F_OK))
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, ESRCH,
			       "process %d has no thread %d", (int)pctx->pid,
			       (int)tid);
	/*
	 * The kernel sets the counters up when the thread runs: a stopped
	 * thread would leave the bind waiting until it is continued.
	 */
	state = cpc_thread_state(pctx->pid, tid);
	if (state == 'T' || state == 't')
		return cpc_err(cpc, __func__, CPC_RESOURCE_UNAVAIL, EAGAIN,
			       "thread %d is stopped", (int)tid);
	if (state == 'Z' || state == 'X')
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, ESRCH,
			       "thread %d has exited", (int)tid);
	if (cpc_prepare(cpc, __func__, set, slot))
		return -1;

	p = pctr_open(O_RDWR);
	if (!p)
		return cpc_pctx_bind_err(cpc, errno, pctx->pid, tid);
	cpc_fill_bind(set, slot, &pb, PCTR_BIND_THREAD, tid);
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0) {
		err = errno;
		pctr_close(p);
		/* EPERM: the caller may not ptrace it. */
		if (err == EPERM)
			return cpc_err(cpc, __func__, CPC_RESOURCE_UNAVAIL,
				       EACCES,
				       "not permitted to ptrace thread %d (another user's, traced already, or ptrace_scope)",
				       (int)tid);
		return cpc_pctx_bind_err(cpc, err, pctx->pid, tid);
	}
	/* Seized, not stopped: the thread runs the setup meanwhile. */
	job.fd = p->fd;
	job.pb = &pb;
	cpc_bind_seized(tid, &job);
	if (job.ret < 0) {
		pctr_close(p);
		return cpc_pctx_bind_err(cpc, job.err, pctx->pid, tid);
	}

	set->pctx = pctx;
	set->pctx_next = pctx->sets;
	pctx->sets = set;
	set->tick = 0;
	if (cpc_run_ns(pctx->pid, tid, &set->run0))
		set->run0 = 0;
	cpc_set_take(set, p, slot, tid, &cpc_pctx_binding);
	return 0;
}

/*
 * The binding's counts; *@tick the thread's run time since the bind, in
 * TSC cycles (from /proc's schedstat: the last figure once it exited).
 */
static int cpc_pctx_sample(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
			   uint64_t *tick)
{
	struct pctrst st;
	uint64_t ns;

	if (ioctl(set->pc.fd, PCIOCRD, &st) < 0)
		return cpc_sample_err(cpc, "cpc_set_sample", errno);
	memcpy(vals, st.pctr_hwc, sizeof(st.pctr_hwc));
	if (!cpc_run_ns(set->pctx->pid, set->tid, &ns) && ns >= set->run0)
		set->tick = cpc_ns_to_ticks(cpc, ns - set->run0);
	*tick = set->tick;
	return 0;
}

/*
 * End the binding and leave the capture's list.  A forked child closes
 * its copy of the descriptor only: the parent's binding stays.
 */
static void cpc_pctx_unbind(cpc_set_t *set, int inherited)
{
	cpc_set_t **pp;

	if (set->pid == cpc_self_()->pid)
		ioctl(set->pc.fd, PCIOCRELEASE);
	close(set->pc.fd);
	set->pc.fd = -1;
	if (set->pctx) {
		for (pp = &set->pctx->sets; *pp; pp = &(*pp)->pctx_next) {
			if (*pp == set) {
				*pp = set->pctx_next;
				break;
			}
		}
	}
	set->pctx = NULL;
	set->pctx_next = NULL;
}

static const struct cpc_binding cpc_pctx_binding = {
	.sample		= cpc_pctx_sample,
	.unbind		= cpc_pctx_unbind,
};
