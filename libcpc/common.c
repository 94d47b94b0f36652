// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc's bottom layer: error reporting, the calling thread as libcpc
 * knows it, what the binding kinds (lwp.c, cpu.c, pctx.c) share, and the
 * calls that act on a set whatever it is bound to (cpc_set_sample,
 * cpc_unbind), through the set's binding ops.  It calls no other file of
 * libcpc (the binding kinds only through those ops), and of libpctx, the
 * library below, only its error printer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpc_private.h"
#include "pctx_private.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK	18
#endif

/* --- error reporting ------------------------------------------------ */

/*
 * The default handler: "libcpc: function: message" on stderr, in one
 * write, as libpctx's default (pctx_print_error_) writes its own.
 */
static void cpc_default_errfn(const char *fn, int subcode, const char *fmt,
			      va_list ap)
{
	pctx_print_error_("libcpc: ", fn, fmt, ap);
}

/*
 * Report through the handle's handler (the default one without), set
 * errno, return -1.  As on Solaris, the format a handler is given ends
 * with a newline, which the messages here leave out: a handler that
 * prints it as it is (cpustat's does) prints one message a line.
 */
int cpc_err(cpc_t *cpc, const char *fn, int subcode, int err,
	    const char *fmt, ...)
{
	cpc_errhndlr_t *h = cpc && cpc->errfn ? cpc->errfn : cpc_default_errfn;
	size_t len = strlen(fmt);
	const char *f = fmt;
	char line[512];
	va_list ap;

	if (len + 2 <= sizeof(line)) {
		memcpy(line, fmt, len);
		line[len] = '\n';
		line[len + 1] = '\0';
		f = line;
	}
	va_start(ap, fmt);
	h(fn, subcode, f, ap);
	va_end(ap);
	errno = err;
	return -1;
}

void cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	cpc->errfn = fn;
}

/*
 * The pctr errnos libcpc reports in words of its own: the handler's
 * subcode, the errno the caller sees, the message (after the event or
 * "binding" when @names says so).
 */
struct cpc_errmsg {
	int		err;
	int		subcode;
	int		errno_out;
	bool		names;
	const char	*msg;
};

static const struct cpc_errmsg cpc_bind_errs[] = {
	{ EAGAIN, CPC_RESOURCE_UNAVAIL, EAGAIN, false,
	  "per-thread counters are unavailable while a CPU is bound (cpc_bind_cpu)" },
	{ ENODEV, CPC_RESOURCE_UNAVAIL, EAGAIN, false,
	  "pctr has no counters on this CPU" },
	{ EOPNOTSUPP, CPC_NOT_SUPPORTED, ENOTSUP, true,
	  "this CPU cannot signal counter overflow (CPC_OVF_NOTIFY_EMT)" },
	/* The backend's refusal of AnyThread (security.rst). */
	{ EPERM, CPC_ATTR_REQUIRES_PRIVILEGE, EACCES, true,
	  "not permitted (anythr needs CAP_PERFMON)" },
	/* pctr's kernel-mode rule (driver/policy.c). */
	{ EACCES, CPC_ATTR_REQUIRES_PRIVILEGE, EACCES, true,
	  "counting in the kernel (CPC_COUNT_SYSTEM) is not permitted: it needs CAP_PERFMON, or kernel.perf_event_paranoid 1 or less where pctr follows perf's rule (Linux 6.12), or pctr loaded with allow_kernel=1" },
};

/* A pctr errno as libcpc reports it, with the handler's subcode. */
int cpc_bind_err(cpc_t *cpc, const char *fn, int err,
		 const struct cpc_request *req)
{
	const char *what = req ? req->event : "binding";
	const struct cpc_errmsg *e;

	for (e = cpc_bind_errs; e < cpc_bind_errs + sizeof(cpc_bind_errs) /
				    sizeof(cpc_bind_errs[0]); e++)
		if (e->err == err)
			return cpc_err(cpc, fn, e->subcode, e->errno_out,
				       "%s%s%s", e->names ? what : "",
				       e->names ? ": " : "", e->msg);
	if (err == EINVAL)
		return cpc_err(cpc, fn, CPC_PIC_NOT_CAPABLE, EINVAL,
			       "%s: the counter cannot count it so (pctr function 0x%llx)",
			       what, req ? (unsigned long long)req->fn : 0ULL);
	/*
	 * Any other in pctr's words; EBUSY, whose pctr_strerror() names the
	 * holder as /proc shows it, is EAGAIN to the caller.
	 */
	return cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL,
		       err == EBUSY ? EAGAIN : err, "%s", pctr_strerror(err));
}

/* A failed read of a bound set's counters. */
int cpc_sample_err(cpc_t *cpc, const char *fn, int err)
{
	if (err == EAGAIN)
		return cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL, EAGAIN,
			       "the set's counters were invalidated by a CPU binding (cpc_bind_cpu): unbind it");
	return cpc_bind_err(cpc, fn, err, NULL);
}

/* --- the calling thread ---------------------------------------------- */

/*
 * The calling thread.  Initial-exec TLS: using it allocates nothing, even
 * the first time in a thread and in a signal handler.
 */
static __thread struct cpc_lwp cpc_lwp
	__attribute__((tls_model("initial-exec")));

/*
 * A word in a MADV_WIPEONFORK page: 1 in the process that set it, 0 in a
 * forked child.  So a fork is noticed at the next call, without a system
 * call, even in a signal handler that runs before fork() has returned in
 * the child (an inherited set's overflow signal does) and so before any
 * pthread_atfork() handler.  NULL if the page could not be made: then
 * every call asks getpid().
 */
static volatile int *cpc_fork_word;
static volatile pid_t cpc_pid;
static pthread_once_t cpc_fork_once = PTHREAD_ONCE_INIT;

static void cpc_fork_word_init(void)
{
	long len = sysconf(_SC_PAGESIZE);
	void *pg;

	if (len <= 0)
		len = 4096;
	pg = mmap(NULL, len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pg == MAP_FAILED)
		return;
	if (madvise(pg, len, MADV_WIPEONFORK)) {
		munmap(pg, len);
		return;
	}
	cpc_pid = getpid();
	__atomic_store_n((int *)pg, 1, __ATOMIC_RELEASE);
	cpc_fork_word = pg;
}

/* Once per process, from cpc_open(): never first from a signal handler. */
void cpc_self_init_(void)
{
	pthread_once(&cpc_fork_once, cpc_fork_word_init);
}

/*
 * The calling thread's record, reset in a forked child: there the
 * parent's threads and their pages do not exist, and the TLS copied from
 * the forking thread describes the parent.
 */
struct cpc_lwp *cpc_self_(void)
{
	struct cpc_lwp *me = &cpc_lwp;
	volatile int *fw = cpc_fork_word;
	pid_t pid;

	if (fw && __atomic_load_n(fw, __ATOMIC_ACQUIRE)) {
		pid = cpc_pid;
	} else {
		pid = getpid();
		if (fw) {
			cpc_pid = pid;
			__atomic_store_n(fw, 1, __ATOMIC_RELEASE);
		}
	}
	if (me->pid != pid) {
		memset(me, 0, sizeof(*me));
		me->tid = (pid_t)syscall(SYS_gettid);
		me->pid = pid;
	}
	return me;
}

/*
 * A thread that bound a set and exits (its counters end with it) leaves
 * the set with no binder: its tid is cleared before pthread_join()
 * returns, so the joiner may clean the set up at once.  A thread-specific
 * key's destructor is the last of the thread's code that sees its TLS.
 */
static pthread_key_t cpc_exit_key;
static pthread_once_t cpc_exit_once = PTHREAD_ONCE_INIT;
static int cpc_exit_key_ok;

static void cpc_thread_exit(void *arg)
{
	struct cpc_lwp *me = arg;

	if (me->set && me->set->pid == me->pid && me->set->tid == me->tid)
		__atomic_store_n(&me->set->tid, 0, __ATOMIC_RELEASE);
}

static void cpc_exit_key_init(void)
{
	cpc_exit_key_ok = pthread_key_create(&cpc_exit_key,
					     cpc_thread_exit) == 0;
}

/* @me (the calling thread) has bound @set.  Not from a signal handler. */
void cpc_self_bound_(struct cpc_lwp *me, cpc_set_t *set)
{
	me->set = set;
	pthread_once(&cpc_exit_once, cpc_exit_key_init);
	if (cpc_exit_key_ok)
		pthread_setspecific(cpc_exit_key, me);
}

/* The thread no longer counts an inherited set (nor has presets for it). */
void cpc_self_forget_(struct cpc_lwp *me)
{
	me->inherited = NULL;
	me->dirty = 0;
}

/* --- what every binding shares ---------------------------------------- */

/* Augmenting path from request @i: Kuhn's bipartite matching. */
static int cpc_match(const struct cpc_request *reqs, unsigned int i,
		     int *owner, uint64_t *seen, int *slot)
{
	uint64_t left = reqs[i].slots & ~*seen, mask;
	unsigned int s;

	/* A free slot first, so that requests keep the lowest ones. */
	for (mask = left; mask; mask &= mask - 1) {
		s = __builtin_ctzll(mask);
		if (owner[s] < 0) {
			*seen |= 1ULL << s;
			owner[s] = i;
			slot[i] = s;
			return 1;
		}
	}
	while (left) {
		s = __builtin_ctzll(left);
		left &= left - 1;
		*seen |= 1ULL << s;
		if (owner[s] < 0 ||
		    cpc_match(reqs, owner[s], owner, seen, slot)) {
			owner[s] = i;
			slot[i] = s;
			return 1;
		}
	}
	return 0;
}

/* Give each of @n requests its own slot; -1 if no assignment exists. */
int cpc_assign(const struct cpc_request *reqs, unsigned int n, int *slot)
{
	int owner[PCTR_NUM];
	unsigned int i;
	uint64_t seen;

	if (n > PCTR_NUM)
		return -1;
	for (i = 0; i < PCTR_NUM; i++)
		owner[i] = -1;
	for (i = 0; i < n; i++) {
		seen = 0;
		if (!cpc_match(reqs, i, owner, &seen, slot))
			return -1;
	}
	return 0;
}

int cpc_set_check(cpc_t *cpc, const char *fn, cpc_set_t *set)
{
	if (!set || set->cpc != cpc)
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set was not created with this handle");
	return 0;
}

/*
 * Is @set bound to a thread other than this one that is still alive?
 * Only that thread can end its counters (and put its CPU affinity back),
 * so such a set may not be unbound, rebound or destroyed from here.  (A
 * thread that exited took its counters with it: its sets may be cleaned
 * up from anywhere.)  A pctx binding belongs to the descriptor, not to a
 * thread of ours; a forked child's copy of a set is its own.
 */
int cpc_set_bound_elsewhere_(const cpc_set_t *set)
{
	struct cpc_lwp *me;

	if (!set->bound || !set->bound->thread_owned)
		return 0;
	me = cpc_self_();
	if (set->pid != me->pid || set->tid == me->tid ||
	    !__atomic_load_n(&set->tid, __ATOMIC_ACQUIRE))
		return 0;
	return syscall(SYS_tgkill, set->pid, set->tid, 0) == 0 ||
	       errno != ESRCH;
}

/*
 * End @set's binding and forget it.  In a forked child only the child's
 * own copies are dropped (each kind's unbind says how).
 *
 * The set is unbound before anything is torn down: an overflow signal
 * may come at the return of any system call here, and its handler's
 * cpc_set_sample(), cpc_request_preset() and cpc_set_restart() must then
 * fail with EINVAL, not read a page that is being unmapped.
 */
void cpc_set_unbind_(cpc_set_t *set)
{
	const struct cpc_binding *kind = set->bound;
	struct cpc_lwp *me = cpc_self_();
	int inherited = me->inherited == set && !me->set;
	unsigned int i;

	if (!kind)
		return;
	if (kind->quiesce)
		kind->quiesce(set, inherited);
	set->bound = NULL;
	if (me->set == set)
		me->set = NULL;
	if (me->inherited == set)
		cpc_self_forget_(me);
	/* Seen so by a signal handler on this thread from here on. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	kind->unbind(set, inherited);
	set->inherit = 0;
	for (i = 0; i < set->nreqs; i++)
		set->reqs[i].slot = -1;
}

/* Unbind @set unless another living thread owns its binding. */
int cpc_set_unbind_here_(cpc_t *cpc, const char *fn, cpc_set_t *set)
{
	if (cpc_set_bound_elsewhere_(set))
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is bound to another thread: unbind it there first");
	cpc_set_unbind_(set);
	return 0;
}

/* Does any request of @set ask for overflow signals? */
int cpc_set_notifies(const cpc_set_t *set)
{
	unsigned int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].flags & CPC_OVF_NOTIFY_EMT)
			return 1;
	return 0;
}

/*
 * The checks of a bind that takes no flags and cannot signal: @set is
 * the handle's, @flags 0, and no request asks for overflow signals
 * (@why_no_notify says why not).
 */
int cpc_bind_check(cpc_t *cpc, const char *fn, cpc_set_t *set,
		   uint_t flags, const char *why_no_notify)
{
	if (cpc_set_check(cpc, fn, set))
		return -1;
	if (flags)
		return cpc_err(cpc, fn, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "flags must be 0");
	if (cpc_set_notifies(set))
		return cpc_err(cpc, fn, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "CPC_OVF_NOTIFY_EMT: %s", why_no_notify);
	return 0;
}

/*
 * What every bind does first: check the set, give each request a slot
 * (in @slot) and end the set's old binding.  -1 (reported) on error.
 */
int cpc_prepare(cpc_t *cpc, const char *fn, cpc_set_t *set, int *slot)
{
	if (!set->nreqs)
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set has no requests");
	if (!cpc->writable)
		return cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL, EACCES,
			       "%s is not writable by this process",
			       PCTR_DEVICE);
	if (cpc_assign(set->reqs, set->nreqs, slot))
		return cpc_err(cpc, fn, CPC_CONFLICTING_REQS, EINVAL,
			       "the requests cannot all be given a counter");
	return cpc_set_unbind_here_(cpc, fn, set);
}

/* The PCIOCBIND argument for @set with the slots of @slot. */
void cpc_fill_bind(const cpc_set_t *set, const int *slot,
		   struct pctr_bind *pb, unsigned int kind, unsigned int id)
{
	unsigned int i;

	memset(pb, 0, sizeof(*pb));
	pb->pb_kind = kind;
	pb->pb_id = id;
	for (i = 0; i < set->nreqs; i++) {
		pb->pb_fn[slot[i]] = set->reqs[i].fn;
		pb->pb_preset[slot[i]] = set->reqs[i].preset;
	}
}

/*
 * A PCIOCBIND binding becomes @set's: it keeps descriptor @p (the page
 * is unused) and the slots of @slot; @tid is the thread it belongs to.
 * The caller fills in the rest of its kind's fields first: @set is bound
 * (to @kind) from here on.
 */
void cpc_set_take(cpc_set_t *set, pctr_t *p, const int *slot, pid_t tid,
		  const struct cpc_binding *kind)
{
	unsigned int i;

	set->pc = *p;
	free(p);
	for (i = 0; i < set->nreqs; i++)
		set->reqs[i].slot = slot[i];
	set->pid = cpc_self_()->pid;
	set->tid = tid;
	set->bound = kind;
}

/* @ns of run time in TSC cycles, cpc_buf_tick()'s unit (ns if unknown). */
uint64_t cpc_ns_to_ticks(const cpc_t *cpc, uint64_t ns)
{
	uint64_t khz = cpc->pc->info.pi_tsc_khz;

	if (!khz)
		return ns;
	return ns / 1000000 * khz + ns % 1000000 * khz / 1000000;
}

/* --- the calls on a bound set, by its binding's ops ------------------ */

int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	uint64_t vals[PCTR_NUM], tick = 0;
	const struct cpc_binding *kind;
	struct timespec ts;
	unsigned int i;

	if (cpc_set_check(cpc, __func__, set))
		return -1;
	kind = set->bound;
	if (!kind)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is not bound");
	/*
	 * Made for this set: by its id, not its size, as Solaris's (a set
	 * destroyed and another made at its address has another id).  The
	 * size still, for a buffer made before requests were added.
	 */
	if (!buf || buf->cpc != cpc || buf->set_id != set->id ||
	    buf->n < set->nreqs)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the buffer was not made for this set");
	memset(set->enabled, 0, sizeof(set->enabled));
	memset(set->running, 0, sizeof(set->running));
	if (kind->sample(cpc, set, vals, &tick))
		return -1;
	buf->tick = tick;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	buf->hrtime = (hrtime_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	for (i = 0; i < set->nreqs; i++) {
		buf->val[i] = vals[set->reqs[i].slot];
		buf->val[buf->n + i] = set->enabled[set->reqs[i].slot];
		buf->val[2 * buf->n + i] = set->running[set->reqs[i].slot];
	}
	return 0;
}

/*
 * Unbind @set.  The binding's kind may end the calling thread's part
 * only (an LWP set the thread counts by inheritance), or refuse.
 */
int cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	int ret = 0;

	if (cpc_set_check(cpc, __func__, set))
		return -1;
	if (!set->bound)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is not bound");
	if (set->bound->unbind_check)
		ret = set->bound->unbind_check(cpc, set);
	if (ret < 0)
		return -1;
	if (ret == 0)
		cpc_set_unbind_(set);
	return 0;
}
