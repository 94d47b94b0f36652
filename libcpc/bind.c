// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: binding a set to the calling thread and sampling it.
 *
 * Binding ends whatever counter context the thread had, programs one
 * pctr slot per request (PCIOCS), applies the presets (PCIOCPRESET) and
 * maps the thread's counter page, so that cpc_set_sample() reads the
 * counters without a system call.  A set is bound to one thread at a
 * time and is sampled, restarted and unbound from that thread; binding
 * another set on the same thread unbinds the first.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "impl.h"

/* The set bound to this thread, for cpc_request_preset(). */
static __thread cpc_set_t *cpc_lwp_set;

static pid_t cpc_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * Is @set bound to a thread other than this one that is still alive?
 * Only the binding thread can end its counters, so such a set may not be
 * unbound, rebound or destroyed from here.  (A thread that exited took
 * its counters with it: its sets may be cleaned up from anywhere.)
 */
int cpc_set_bound_elsewhere_(const cpc_set_t *set)
{
	if (!set->bound || set->tid == cpc_gettid())
		return 0;
	return syscall(SYS_tgkill, getpid(), set->tid, 0) == 0 ||
	       errno != ESRCH;
}

/*
 * End @set's binding: from the binding thread, or after it exited (the
 * kernel ended its counters then; only the mapping is left).
 */
void cpc_set_unbind_(cpc_set_t *set)
{
	unsigned int i;

	if (set->tid == cpc_gettid()) {
		pctr_release(&set->pc);
	} else if (set->pc.page) {
		munmap((void *)set->pc.page, PCTR_PAGE_SIZE);
		set->pc.page = NULL;
	}
	set->bound = 0;
	for (i = 0; i < set->nreqs; i++)
		set->reqs[i].slot = -1;
	if (cpc_lwp_set == set)
		cpc_lwp_set = NULL;
}

/* A pctr errno as libcpc reports it, with the handler's subcode. */
static int cpc_bind_err(cpc_t *cpc, const char *fn, int err,
			const struct cpc_request *req)
{
	switch (err) {
	case EBUSY:
		return cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL, EAGAIN,
			       "the counters are in use by perf or the NMI watchdog (try sysctl kernel.nmi_watchdog=0)");
	case ENODEV:
		return cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL, EAGAIN,
			       "pctr has no counters on this CPU");
	case EPERM:
	case EACCES:
		return cpc_err(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE, EACCES,
			       "%s: not permitted (anythr needs CAP_PERFMON)",
			       req ? req->event : "binding");
	case EINVAL:
		return cpc_err(cpc, fn, CPC_PIC_NOT_CAPABLE, EINVAL,
			       "%s: the counter cannot count it so (pctr function 0x%llx)",
			       req ? req->event : "binding",
			       req ? (unsigned long long)req->fn : 0ULL);
	}
	return cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL, err, "%s",
		       pctr_strerror(err));
}

static int cpc_set_check(cpc_t *cpc, const char *fn, cpc_set_t *set)
{
	if (!set || set->cpc != cpc)
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set was not created with this handle");
	return 0;
}

/* The bound set may be used only from its thread. */
static int cpc_set_check_bound(cpc_t *cpc, const char *fn, cpc_set_t *set)
{
	if (cpc_set_check(cpc, fn, set))
		return -1;
	if (!set->bound)
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is not bound");
	if (set->tid != cpc_gettid())
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is bound to another thread");
	return 0;
}

int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	int slot[PCTR_NUM], err;
	struct cpc_request *req = NULL;
	unsigned int i, nread = 0;

	if (cpc_set_check(cpc, __func__, set))
		return -1;
	if (flags & ~CPC_BIND_LWP_INHERIT)
		return cpc_err(cpc, __func__, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "unknown flags 0x%x",
			       flags & ~CPC_BIND_LWP_INHERIT);
	if (flags & CPC_BIND_LWP_INHERIT)
		return cpc_err(cpc, __func__, CPC_NOT_SUPPORTED, ENOTSUP,
			       "CPC_BIND_LWP_INHERIT: pctr cannot give new threads counters yet");
	if (!set->nreqs)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set has no requests");
	if (!cpc->writable)
		return cpc_err(cpc, __func__, CPC_RESOURCE_UNAVAIL, EACCES,
			       "%s is not writable by this process",
			       PCTR_DEVICE);
	if (cpc_assign(set->reqs, set->nreqs, slot))
		return cpc_err(cpc, __func__, CPC_CONFLICTING_REQS, EINVAL,
			       "the requests cannot all be given a counter");

	if (cpc_set_bound_elsewhere_(set))
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is bound to another thread: unbind it there first");
	if (set->bound)
		cpc_set_unbind_(set);
	if (cpc_lwp_set)
		cpc_set_unbind_(cpc_lwp_set);

	/* The handle's descriptor, with a page of this thread's own. */
	set->pc = *cpc->pc;
	set->pc.page = NULL;
	set->pc.retries = 0;
	set->pc.fallbacks = 0;
	set->tid = cpc_gettid();
	if (ioctl(set->pc.fd, PCIOCRELEASE) < 0)
		goto fail;
	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		req->slot = slot[i];
		if (pctr_set(&set->pc, slot[i], req->fn) < 0)
			goto fail;
		if ((unsigned int)slot[i] + 1 > nread)
			nread = slot[i] + 1;
	}
	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		if (req->preset && pctr_preset(&set->pc, slot[i], req->preset))
			goto fail;
	}
	req = NULL;
	if (pctr_map(&set->pc) < 0)
		goto fail;
	set->nread = nread;
	set->bound = 1;
	cpc_lwp_set = set;
	return 0;
fail:
	err = errno;
	pctr_release(&set->pc);
	for (i = 0; i < set->nreqs; i++)
		set->reqs[i].slot = -1;
	return cpc_bind_err(cpc, __func__, err, req);
}

int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set,
		  uint_t flags)
{
	return cpc_err(cpc, __func__, CPC_NOT_SUPPORTED, ENOTSUP,
		       "binding to another process's threads is not supported by pctr yet");
}

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	return cpc_err(cpc, __func__, CPC_NOT_SUPPORTED, ENOTSUP,
		       "pctr counts threads, not CPUs");
}

int cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	if (cpc_set_check_bound(cpc, __func__, set))
		return -1;
	cpc_set_unbind_(set);
	return 0;
}

/* The new preset takes effect at the next cpc_set_restart() (or bind). */
int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	cpc_set_t *set = cpc_lwp_set;

	if (!set || set->cpc != cpc)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "this thread has no bound set");
	if (index < 0 || (unsigned int)index >= set->nreqs)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "no request %d in the bound set", index);
	set->reqs[index].preset = preset;
	return 0;
}

/*
 * Count on from each request's preset.  pctr's counters never freeze
 * (there is no overflow signal yet), so this only applies the presets.
 */
int cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	struct cpc_request *req;
	unsigned int i;

	if (cpc_set_check_bound(cpc, __func__, set))
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		if (pctr_preset(&set->pc, req->slot, req->preset) < 0)
			return cpc_bind_err(cpc, __func__, errno, req);
	}
	return 0;
}

int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	uint64_t vals[PCTR_NUM];
	struct timespec ts;
	unsigned int i;

	if (cpc_set_check_bound(cpc, __func__, set))
		return -1;
	if (!buf || buf->cpc != cpc || buf->n < set->nreqs)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the buffer was not made for this set");
	if (pctr_read_n(&set->pc, vals, set->nread) < 0)
		return cpc_bind_err(cpc, __func__, errno, NULL);
	buf->tick = pctr_vtsc(&set->pc);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < set->nreqs; i++)
		buf->val[i] = vals[set->reqs[i].slot];
	buf->hrtime = (hrtime_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return 0;
}
