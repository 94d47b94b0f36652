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

#include "impl.h"

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

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	cpu_set_t *old = NULL, *cur = NULL;
	int slot[PCTR_NUM], err, ncpus, i;
	struct pctr_bind pb;
	struct cpc_lwp *me;
	struct pctrst st;
	pctr_t *p = NULL;
	size_t size;

	if (cpc_set_check(cpc, __func__, set))
		return -1;
	if (flags)
		return cpc_err(cpc, __func__, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "flags must be 0");
	/*
	 * A CPU binding has no thread to signal, and pctr refuses PCTR_INT
	 * in a binding.  EINVAL, as for any request a binding cannot
	 * count: Solaris's ENOTSUP says the CPU cannot detect overflow,
	 * which is not the trouble here.
	 */
	if (cpc_set_notifies(set))
		return cpc_err(cpc, __func__, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "CPC_OVF_NOTIFY_EMT: a CPU binding has no LWP to signal");
	if (id < 0)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "no CPU %d", id);
	if (cpc_prepare(cpc, __func__, set, slot))
		return -1;
	me = cpc_self_();

	old = cpc_affinity(&size, &ncpus);
	if (!old)
		return cpc_err(cpc, __func__, CPC_PBIND_FAILED, errno,
			       "cannot read the thread's CPU affinity");
	if (id >= ncpus) {
		CPU_FREE(old);
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "no CPU %d", id);
	}
	cur = CPU_ALLOC(ncpus);
	if (!cur) {
		err = errno;
		goto fail;
	}
	p = pctr_open(O_RDWR);
	if (!p) {
		err = errno;
		goto fail;
	}
	cpc_fill_bind(set, slot, &pb, PCTR_BIND_CPU, id);
	if (ioctl(p->fd, PCIOCBIND, &pb) < 0) {
		err = errno;
		pctr_close(p);
		CPU_FREE(old);
		CPU_FREE(cur);
		return cpc_cpu_bind_err(cpc, err, id);
	}
	/* Like processor_bind(2): the calling thread runs on that CPU. */
	CPU_ZERO_S(size, cur);
	CPU_SET_S(id, size, cur);
	if (sched_setaffinity(0, size, cur)) {
		err = errno;
		pctr_close(p);
		CPU_FREE(old);
		CPU_FREE(cur);
		return cpc_err(cpc, __func__, CPC_PBIND_FAILED, err,
			       "cannot run the thread on CPU %d", id);
	}
	if (ioctl(p->fd, PCIOCRD, &st) < 0) {
		err = errno;
		sched_setaffinity(0, size, old);
		pctr_close(p);
		CPU_FREE(old);
		CPU_FREE(cur);
		return cpc_bind_err(cpc, __func__, err, NULL);
	}

	/* The set keeps the descriptor (the page is unused). */
	set->pc = *p;
	free(p);
	for (i = 0; i < (int)set->nreqs; i++)
		set->reqs[i].slot = slot[i];
	set->pid = me->pid;
	set->tid = me->tid;
	set->cpu = id;
	set->oldmask = old;
	set->curmask = cur;
	set->masksize = size;
	set->tsc0 = st.pctr_tsc;
	set->bound = CPC_BOUND_CPU;
	return 0;
fail:
	if (p)
		pctr_close(p);
	CPU_FREE(old);
	if (cur)
		CPU_FREE(cur);
	if (err == EACCES || err == EPERM)
		return cpc_err(cpc, __func__, CPC_RESOURCE_UNAVAIL, EACCES,
			       "%s is not writable by this process",
			       PCTR_DEVICE);
	return cpc_bind_err(cpc, __func__, err, NULL);
}

int cpc_cpu_sample_(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
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

/*
 * End the binding and put the binder's affinity back.  A forked child
 * closes its copy of the descriptor only: the parent's binding stays.
 */
void cpc_cpu_unbind_(cpc_set_t *set)
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
