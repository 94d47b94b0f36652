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

#include "cpc_private.h"
#include "pctx_private.h"

static const struct cpc_binding cpc_pctx_binding;

/* pctx_release(): what is bound through @pctx ends with it. */
static void cpc_pctx_release(pctx_t *pctx)
{
	while (pctx->sets)
		cpc_set_unbind_(pctx->sets);	/* unlinks it */
}

/* /proc/<pid>/task/<tid>/<file> into @buf (NUL-terminated); -1 if gone. */
static int cpc_read_task(pid_t pid, pid_t tid, const char *file, char *buf,
			 size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
		 (int)tid, file);
	return pctx_read_proc_(path, buf, size);
}

/*
 * The thread's run time in ns: schedstat's first field, exact; on a
 * kernel without CONFIG_SCHED_INFO (no schedstat file), utime + stime
 * of its stat, in clock ticks.  -1 if gone.
 */
static int cpc_run_ns(pid_t pid, pid_t tid, uint64_t *ns)
{
	unsigned long long ut, st;
	char buf[512], *p;
	long hz;

	if (!cpc_read_task(pid, tid, "schedstat", buf, sizeof(buf))) {
		*ns = strtoull(buf, NULL, 10);
		return 0;
	}
	if (cpc_read_task(pid, tid, "stat", buf, sizeof(buf)))
		return -1;
	/* After "tid (comm) ": state, then fields 4 to 13, then 14, 15. */
	p = strrchr(buf, ')');
	hz = sysconf(_SC_CLK_TCK);
	if (!p || hz <= 0 ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &ut, &st) != 2)
		return -1;
	*ns = (ut + st) * (1000000000ULL / (unsigned long long)hz);
	return 0;
}

/* The state letter of /proc/<pid>/task/<tid>/stat, 0 if unreadable. */
static char cpc_thread_state(pid_t pid, pid_t tid)
{
	char buf[512];

	if (cpc_read_task(pid, tid, "stat", buf, sizeof(buf)))
		return 0;
	return pctx_stat_state_(buf);
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
			       "thread %d's counters are taken (it counts already, another binds it, or perf holds the PMU)",
			       (int)tid);
	case EPERM:
		/* Not traceable; EACCES is the kernel-mode rule (below). */
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

/* The binding is @set's, made through @pctx for thread @tid. */
static void cpc_pctx_take(cpc_set_t *set, pctx_t *pctx, pctr_t *p,
			  const int *slot, pid_t tid)
{
	set->pctx = pctx;
	set->pctx_next = pctx->sets;
	pctx->sets = set;
	pctx->unbind_sets = cpc_pctx_release;
	set->tick = 0;
	if (cpc_run_ns(pctx->pid, tid, &set->run0))
		set->run0 = 0;
	cpc_set_take(set, p, slot, tid, &cpc_pctx_binding);
}

/*
 * In a libpctx callback (pctx_run(), or after pctx_create()): the caller
 * traces the process, and LWP @id is stopped.  Whatever set is bound to
 * it is unbound first (a new set replaces the old one, as cputrack's
 * rotation of sets expects), and the thread is let run up to its return
 * to user space so that pctr ends that binding in it; then the bind's
 * setup is queued and the thread let run again, as far as the same
 * point, until the setup has run (pctx_kick_).  The thread runs none of
 * its own instructions meanwhile.
 */
static int cpc_bind_traced(cpc_t *cpc, pctx_t *pctx, id_t id,
			   cpc_set_t *set, const int *slot)
{
	struct pctx_thread *t = pctx_lwp_(pctx, id);
	struct cpc_bind_job job = { 0 };
	struct pctr_bind pb;
	cpc_set_t *s, *next;
	sigset_t all, old;
	pthread_t th;
	int tries, err;
	pctr_t *p;

	if (!t || t->state == PCTX_T_GONE || t->state == PCTX_T_EXITING)
		return cpc_err(cpc, "cpc_bind_pctx", CPC_INVALID_ARGUMENT,
			       ESRCH, "process %d has no lwp %d",
			       (int)pctx->pid, (int)id);
	if (t->groupstop) {
		errno = EAGAIN;
		goto kick_failed;
	}
	/* pctr ends the old binding when the new one is set up. */
	for (s = pctx->sets; s; s = next) {
		next = s->pctx_next;
		if (s->tid == t->tid)
			cpc_set_unbind_(s);
	}
	p = pctr_open(O_RDWR);
	if (!p)
		return cpc_pctx_bind_err(cpc, errno, pctx->pid, t->tid);
	cpc_fill_bind(set, slot, &pb, PCTR_BIND_THREAD, t->tid);
	job.fd = p->fd;
	job.pb = &pb;
	/*
	 * pctr gives up (EAGAIN) if it finds the thread stopped before the
	 * setup ran: it may, between two of our kicks.  Try again then.
	 */
	for (tries = 0; tries < 50; tries++) {
		job.done = 0;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = pthread_create(&th, NULL, cpc_bind_job_run, &job);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (err) {
			pctr_close(p);
			return cpc_err(cpc, "cpc_bind_pctx",
				       CPC_RESOURCE_UNAVAIL, EAGAIN,
				       "no thread for the bind: %s",
				       strerror(err));
		}
		err = pctx_kick_(pctx, t, &job.done);
		if (err < 0)
			err = errno;
		pthread_join(th, NULL);
		if (job.ret == 0 || job.err != EAGAIN)
			break;
		if (err == EPERM) {
			pctr_close(p);
			errno = EPERM;
			goto kick_failed;
		}
		if (err)
			break;
	}
	if (job.ret < 0 || err) {
		pctr_close(p);
		if (job.ret == 0 || err == ESRCH)
			return cpc_err(cpc, "cpc_bind_pctx",
				       CPC_INVALID_ARGUMENT, ESRCH,
				       "lwp %d of process %d has exited",
				       (int)id, (int)pctx->pid);
		return cpc_pctx_bind_err(cpc, job.err, pctx->pid, t->tid);
	}
	cpc_pctx_take(set, pctx, p, slot, t->tid);
	return 0;

kick_failed:
	if (errno == EAGAIN)
		return cpc_err(cpc, "cpc_bind_pctx", CPC_RESOURCE_UNAVAIL,
			       EAGAIN, "lwp %d is stopped by job control",
			       (int)id);
	if (errno == EPERM)
		return cpc_err(cpc, "cpc_bind_pctx", CPC_INVALID_ARGUMENT,
			       EINVAL,
			       "process %d is traced by another thread: bind from the thread that runs pctx_run",
			       (int)pctx->pid);
	return cpc_err(cpc, "cpc_bind_pctx", CPC_INVALID_ARGUMENT, ESRCH,
		       "lwp %d of process %d has exited", (int)id,
		       (int)pctx->pid);
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
	if (id == 0 || id > INT_MAX)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, ESRCH,
			       "no thread %u", (unsigned int)id);
	if (pctx->traced) {
		if (cpc_prepare(cpc, __func__, set, slot))
			return -1;
		return cpc_bind_traced(cpc, pctx, id, set, slot);
	}
	/*
	 * Outside pctx_run(): Solaris numbers a process's LWPs from 1;
	 * Linux threads have system-wide thread IDs.  @id is a thread ID
	 * (TID) of the target, and 1, Solaris's first LWP, means its main
	 * thread (TID = PID).  That is never ambiguous: TID 1 is init's
	 * main thread, so only init's threads could mean it otherwise, and
	 * for init both are the same thread.
	 */
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

	cpc_pctx_take(set, pctx, p, slot, tid);
	return 0;
}

/*
 * The binding's counts, and each slot's enabled and running times
 * (PCIOCRDX; PCIOCRD on a module without it); *@tick the thread's run
 * time since the bind, in TSC cycles: its slots' enabled time, which the
 * driver takes at the same moment as the counts (the thread runs on
 * while a loaded binder reads /proc: a third of a 480 ms tick once);
 * from /proc's schedstat on a module without PCIOCRDX (the last figure
 * once it exited).
 */
static int cpc_pctx_sample(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
			   uint64_t *tick)
{
	struct pctrstx x;
	uint64_t ns, en = 0;
	unsigned int s;

	if (ioctl(set->pc.fd, PCIOCRDX, &x) == 0) {
		memcpy(set->enabled, x.pctr_enabled, sizeof(set->enabled));
		memcpy(set->running, x.pctr_running, sizeof(set->running));
		for (s = 0; s < PCTR_NUM; s++)
			if (x.pctr_enabled[s] > en)
				en = x.pctr_enabled[s];
		set->tick = en;
	} else if (errno != ENOTTY ||
		   ioctl(set->pc.fd, PCIOCRD, &x.pctr_st) < 0) {
		return cpc_sample_err(cpc, "cpc_set_sample", errno);
	} else if (!cpc_run_ns(set->pctx->pid, set->tid, &ns) &&
		   ns >= set->run0) {
		set->tick = cpc_ns_to_ticks(cpc, ns - set->run0);
	}
	memcpy(vals, x.pctr_st.pctr_hwc, sizeof(x.pctr_st.pctr_hwc));
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

/*
 * Solaris's: end every pctx_run() of this process at its next look
 * (pctx_terminate()), those of the captures @cpc's sets are bound
 * through first.  Async-signal-safe: it only reads pointers and sets
 * flags.
 */
void cpc_terminate(cpc_t *cpc)
{
	cpc_set_t *s;

	if (cpc) {
		for (s = cpc->sets; s; s = s->next)
			if (s->pctx)
				pctx_terminate(s->pctx);
	}
	pctx_terminate_running_();
}
