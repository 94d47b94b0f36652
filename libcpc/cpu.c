// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: binding a set to a CPU (cpc_bind_cpu).
 *
 * The set gets a descriptor of its own, bound with PCIOCBIND
 * (PCTR_BIND_CPU): it counts whatever runs on the CPU.  As Solaris binds
 * the calling LWP to the CPU with processor_bind(2), the calling thread
 * is pinned to it (sched_setaffinity) until cpc_unbind(), which puts its
 * old affinity back.  Only that thread samples and unbinds the set; its
 * sample fails with EAGAIN once its affinity was changed.
 *
 * cpc_buf_tick() of a CPU-bound set is the TSC cycles since the bind:
 * the counters are programmed on the CPU all that time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpc_private.h"

static const struct cpc_binding cpc_cpu_binding;

/*
 * The calling thread's affinity, in a mask as large as the kernel wants
 * (sched_getaffinity() fails with EINVAL for a smaller one); *@ncpus
 * gets the CPUs it can name.
 */
static cpu_set_t *cpc_affinity(size_t *size, int *ncpus)
{
	cpu_set_t *m;
	int n;

	for (n = 1024; n <= (1 << 22); n *= 2) {
		m = CPU_ALLOC(n);
		if (!m)
			return NULL;
		*size = CPU_ALLOC_SIZE(n);
		if (!sched_getaffinity(0, *size, m)) {
			*ncpus = n;
			return m;
		}
		CPU_FREE(m);
		if (errno != EINVAL)
			return NULL;
	}
	errno = EINVAL;
	return NULL;
}

/* PCIOCBIND's errno for a CPU, as Solaris's cpc_bind_cpu() has it. */
static int cpc_cpu_bind_err(cpc_t *cpc, int err, processorid_t id)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return cpc_err(cpc, "cpc_bind_cpu", CPC_RESOURCE_UNAVAIL,
			       EACCES,
			       "counting on a CPU needs CAP_PERFMON or CAP_SYS_ADMIN");
	case EAGAIN:
		return cpc_err(cpc, "cpc_bind_cpu", CPC_RESOURCE_UNAVAIL,
			       EAGAIN, "CPU %d is bound already", id);
	case ENXIO:
		return cpc_err(cpc, "cpc_bind_cpu", CPC_INVALID_ARGUMENT,
			       ENOSYS, "CPU %d is not online", id);
	case EINVAL:
		return cpc_err(cpc, "cpc_bind_cpu", CPC_INVALID_ARGUMENT,
			       EINVAL,
			       "no CPU %d, or a request it cannot count", id);
	}
	return cpc_bind_err(cpc, "cpc_bind_cpu", err, NULL);
}

/*
 * Bind descriptor @p to CPU @id with @set's requests in the slots of
 * @slot, and run the calling thread there only (@cur: room for a mask of
 * @size bytes), as processor_bind(2) does on Solaris.  The TSC then in
 * *@tsc0.  -1 (reported) on error, the thread's affinity @old put back.
 */
static int cpc_cpu_attach(cpc_t *cpc, pctr_t *p, const cpc_set_t *set,
			  const int *slot, processorid_t id,
			  const cpu_set_t *old, cpu_set_t *cur, size_t size,
			  uint64_t *tsc0)
{
	struct pctr_bind pb;
	struct pctrst st;
	int err;

	cpc_fill_bind(set, slot, &pb, PCTR_BIND_CPU, id);
	if (ioctl(p->fd, PCIOCBIND, &pb) < 0)
		return cpc_cpu_bind_err(cpc, errno, id);
	CPU_ZERO_S(size, cur);
	CPU_SET_S(id, size, cur);
	if (sched_setaffinity(0, size, cur))
		return cpc_err(cpc, "cpc_bind_cpu", CPC_PBIND_FAILED, errno,
			       "cannot run the thread on CPU %d", id);
	if (ioctl(p->fd, PCIOCRD, &st) < 0) {
		err = errno;
		sched_setaffinity(0, size, old);
		return cpc_bind_err(cpc, "cpc_bind_cpu", err, NULL);
	}
	*tsc0 = st.pctr_tsc;
	return 0;
}

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	cpu_set_t *old, *cur = NULL;
	int slot[PCTR_NUM], err, ncpus;
	pctr_t *p = NULL;
	size_t size;

	/*
	 * A CPU binding has no thread to signal, and pctr refuses PCTR_INT
	 * in a binding.  EINVAL, as for any request a binding cannot
	 * count: Solaris's ENOTSUP says the CPU cannot detect overflow,
	 * which is not the trouble here.
	 */
	if (cpc_bind_check(cpc, __func__, set, flags,
			   "a CPU binding has no LWP to signal"))
		return -1;
	if (id < 0)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "no CPU %d", id);
	if (cpc_prepare(cpc, __func__, set, slot))
		return -1;

	old = cpc_affinity(&size, &ncpus);
	if (!old)
		return cpc_err(cpc, __func__, CPC_PBIND_FAILED, errno,
			       "cannot read the thread's CPU affinity");
	if (id >= ncpus) {
		cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			"no CPU %d", id);
		goto fail;
	}
	cur = CPU_ALLOC(ncpus);
	p = cur ? pctr_open(O_RDWR) : NULL;
	if (!p) {
		if (errno == EACCES || errno == EPERM)
			cpc_err(cpc, __func__, CPC_RESOURCE_UNAVAIL, EACCES,
				"%s is not writable by this process",
				PCTR_DEVICE);
		else
			cpc_bind_err(cpc, __func__, errno, NULL);
		goto fail;
	}
	if (cpc_cpu_attach(cpc, p, set, slot, id, old, cur, size, &set->tsc0))
		goto fail;
	set->cpu = id;
	set->oldmask = old;
	set->curmask = cur;
	set->masksize = size;
	cpc_set_take(set, p, slot, cpc_self_()->tid, &cpc_cpu_binding);
	return 0;
fail:
	err = errno;
	if (p)
		pctr_close(p);
	CPU_FREE(old);
	if (cur)
		CPU_FREE(cur);
	errno = err;
	return -1;
}

static int cpc_cpu_sample(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
			  uint64_t *tick)
{
	struct cpc_lwp *me = cpc_self_();
	cpu_set_t *cur = set->curmask;
	struct pctrst st;

	if (set->pid != me->pid || set->tid != me->tid)
		return cpc_err(cpc, "cpc_set_sample", CPC_INVALID_ARGUMENT,
			       EINVAL,
			       "the set is bound to a CPU by another thread: sample it there");
	/* Solaris: EAGAIN once the LWP no longer runs on the CPU only. */
	if (!sched_getaffinity(0, set->masksize, cur) &&
	    (CPU_COUNT_S(set->masksize, cur) != 1 ||
	     !CPU_ISSET_S(set->cpu, set->masksize, cur)))
		return cpc_err(cpc, "cpc_set_sample", CPC_PBIND_FAILED,
			       EAGAIN,
			       "the thread no longer runs on CPU %d only (its affinity was changed)",
			       set->cpu);
	if (ioctl(set->pc.fd, PCIOCRD, &st) < 0)
		return cpc_sample_err(cpc, "cpc_set_sample", errno);
	memcpy(vals, st.pctr_hwc, sizeof(st.pctr_hwc));
	*tick = st.pctr_tsc - set->tsc0;
	return 0;
}

/* cpc_unbind(): only from the binding thread while it lives. */
static int cpc_cpu_unbind_check(cpc_t *cpc, cpc_set_t *set)
{
	if (cpc_set_bound_elsewhere_(set))
		return cpc_err(cpc, "cpc_unbind", CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is bound to a CPU by another thread: unbind it there");
	return 0;
}

/*
 * End the binding and put the binder's affinity back.  A forked child
 * closes its copy of the descriptor only: the parent's binding stays.
 */
static void cpc_cpu_unbind(cpc_set_t *set, int inherited)
{
	struct cpc_lwp *me = cpc_self_();

	if (set->pid == me->pid) {
		ioctl(set->pc.fd, PCIOCRELEASE);
		if (set->tid == me->tid)
			sched_setaffinity(0, set->masksize, set->oldmask);
	}
	close(set->pc.fd);
	set->pc.fd = -1;
	CPU_FREE(set->oldmask);
	CPU_FREE(set->curmask);
	set->oldmask = NULL;
	set->curmask = NULL;
}

static const struct cpc_binding cpc_cpu_binding = {
	.thread_owned	= 1,
	.sample		= cpc_cpu_sample,
	.unbind_check	= cpc_cpu_unbind_check,
	.unbind		= cpc_cpu_unbind,
};
