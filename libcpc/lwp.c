// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: binding a set to the calling thread (cpc_bind_curlwp) and what
 * only such a set does: presets and restarts (cpc_request_preset,
 * cpc_set_restart), counting switched off and on (cpc_enable,
 * cpc_disable), inheritance.  Its ops table (cpc_lwp_binding) samples
 * and unbinds it for common.c.
 *
 * Binding ends whatever counter context the thread had, programs one
 * pctr slot per request (PCIOCS), applies the presets (PCIOCPRESET),
 * starts every slot from its preset at once (PCIOCRESTART) and maps the
 * thread's counter page, so that cpc_set_sample() reads the counters
 * without a system call.  A set is bound to one thread at a time and is
 * sampled, restarted and unbound from that thread; binding another set
 * on the same thread unbinds the first.
 *
 * With CPC_BIND_LWP_INHERIT (PCTR_O_INHERIT) the threads the binder
 * creates afterwards, and its forked children, get counters of their own
 * from the kernel, started from the presets.  They have no page:
 * cpc_set_sample() reads their counters with PCIOCRD, which reads the
 * calling thread's.  Each presets and restarts its own counters, from a
 * SIGEMT handler too: sampling, cpc_request_preset() and
 * cpc_set_restart() neither allocate nor print unless they fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "cpc_private.h"

static const struct cpc_binding cpc_lwp_binding;

/* The overflow signal to ask for: pctr's default where SIGEMT is SIGIO. */
#if SIGEMT == SIGIO
#define CPC_EMT_SIGNO	0
#else
#define CPC_EMT_SIGNO	SIGEMT
#endif

/* Did the calling thread bind @set (and not a parent before a fork)? */
static int cpc_is_binder(const cpc_set_t *set, const struct cpc_lwp *me)
{
	return set->pid == me->pid && set->tid == me->tid;
}

/* Do the functions PCIOCRD read for this thread make @set's requests? */
static int cpc_counts_set(const cpc_set_t *set, const struct pctrst *st)
{
	unsigned int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].slot < 0 ||
		    st->pctr_fn[set->reqs[i].slot] != set->reqs[i].fn)
			return 0;
	return 1;
}

/*
 * The calling thread, which did not bind @set (an inheriting one),
 * counts it: it was made after the bind, or is a forked child.  Checked
 * once with PCIOCRD (into @st if given) and then remembered.  0, or -1
 * with errno EINVAL (it does not count the set) or PCIOCRD's.
 */
static int cpc_adopt(cpc_t *cpc, cpc_set_t *set, struct cpc_lwp *me,
		     struct pctrst *st)
{
	struct pctrst mine;

	if (me->inherited == set && !st)
		return 0;
	if (!st)
		st = &mine;
	if (ioctl(cpc->pc->fd, PCIOCRD, st) < 0)
		return -1;
	if (!cpc_counts_set(set, st)) {
		errno = EINVAL;
		return -1;
	}
	if (me->inherited != set) {
		cpc_self_forget_(me);
		me->inherited = set;
	}
	return 0;
}

/* The inheriting set the calling thread counts, if one of @cpc's. */
static cpc_set_t *cpc_inherited_set(cpc_t *cpc, struct cpc_lwp *me)
{
	cpc_set_t *s;

	for (s = cpc->sets; s; s = s->next)
		if (s == me->inherited && s->bound == &cpc_lwp_binding &&
		    s->inherit)
			return s;
	for (s = cpc->sets; s; s = s->next)
		if (s->bound == &cpc_lwp_binding && s->inherit &&
		    !cpc_is_binder(s, me) && !cpc_adopt(cpc, s, me, NULL))
			return s;
	return NULL;
}

int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	int slot[PCTR_NUM], err, notify;
	struct cpc_request *req = NULL;
	struct pctr_opts opts;
	struct cpc_lwp *me;
	unsigned int i, nread = 0;

	if (cpc_set_check(cpc, __func__, set))
		return -1;
	if (flags & ~CPC_BIND_LWP_INHERIT)
		return cpc_err(cpc, __func__, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "unknown flags 0x%x",
			       flags & ~CPC_BIND_LWP_INHERIT);
	notify = cpc_set_notifies(set);
	if (notify && !(cpc->pc->info.pi_caps & PCTR_CAP_NOTIFY))
		return cpc_err(cpc, __func__, CPC_NOT_SUPPORTED, ENOTSUP,
			       "CPC_OVF_NOTIFY_EMT: %s cannot signal counter overflow",
			       cpc->cciname);
	if (cpc_prepare(cpc, __func__, set, slot))
		return -1;
	me = cpc_self_();
	if (me->set)
		cpc_set_unbind_(me->set);
	/* Its inherited counters, if any, end with the release below. */
	cpc_self_forget_(me);

	/* The handle's descriptor, with a page of this thread's own. */
	set->pc = *cpc->pc;
	set->pc.page = NULL;
	set->pc.retries = 0;
	set->pc.fallbacks = 0;
	set->pid = me->pid;
	set->tid = me->tid;
	if (ioctl(set->pc.fd, PCIOCRELEASE) < 0)
		goto fail;
	/* New functions start at 0: far from any overflow. */
	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		req->slot = slot[i];
		if (pctr_set(&set->pc, slot[i], req->fn) < 0)
			goto fail;
		if ((unsigned int)slot[i] + 1 > nread)
			nread = slot[i] + 1;
	}
	req = NULL;
	/*
	 * Hold every slot still until all are preset: a slot preset near
	 * its wrap could otherwise signal while the others still count
	 * from their pctr_set(), and the handler would see them ahead.
	 */
	if (ioctl(set->pc.fd, PCIOCDISABLE) < 0)
		goto fail;
	if ((flags & CPC_BIND_LWP_INHERIT) || (notify && CPC_EMT_SIGNO)) {
		memset(&opts, 0, sizeof(opts));
		if (flags & CPC_BIND_LWP_INHERIT)
			opts.po_flags = PCTR_O_INHERIT;
		opts.po_signo = CPC_EMT_SIGNO;
		if (ioctl(set->pc.fd, PCIOCSOPTS, &opts) < 0)
			goto fail;
	}
	if (pctr_map(&set->pc) < 0)
		goto fail;
	/*
	 * Bound from here on: a preset close to the wrap may signal
	 * before this returns, and the SIGEMT handler samples, presets and
	 * restarts the set.
	 */
	set->nread = nread;
	set->inherit = !!(flags & CPC_BIND_LWP_INHERIT);
	set->bound = &cpc_lwp_binding;
	cpc_self_bound_(me, set);
	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		req->kpreset = req->preset;
		if (req->preset && pctr_preset(&set->pc, slot[i], req->preset))
			goto unbind;
	}
	req = NULL;
	/*
	 * Every slot back to its preset, then all of them counting at
	 * once, so that requests for one event count alike from the start.
	 */
	if (ioctl(set->pc.fd, PCIOCRESTART) < 0 ||
	    ioctl(set->pc.fd, PCIOCENABLE) < 0)
		goto unbind;
	return 0;
unbind:
	err = errno;
	cpc_set_unbind_(set);
	return cpc_bind_err(cpc, __func__, err, req);
fail:
	err = errno;
	pctr_release(&set->pc);
	for (i = 0; i < set->nreqs; i++)
		set->reqs[i].slot = -1;
	return cpc_bind_err(cpc, __func__, err, req);
}

/*
 * cpc_unbind() of an LWP set.  A thread counting an inheriting set it
 * did not bind (or a forked child) ends its own counters with it: the
 * binder's binding stays (in a forked child, the child's copy of the set
 * is unbound).
 */
static int cpc_lwp_unbind_check(cpc_t *cpc, cpc_set_t *set)
{
	struct cpc_lwp *me = cpc_self_();

	if (cpc_is_binder(set, me))
		return 0;
	if (set->inherit && !me->set && !cpc_adopt(cpc, set, me, NULL)) {
		ioctl(cpc->pc->fd, PCIOCRELEASE);
		cpc_self_forget_(me);
		return set->pid == me->pid;
	}
	if (set->pid != me->pid)
		return 0;		/* a forked child's copy */
	return cpc_err(cpc, "cpc_unbind", CPC_INVALID_ARGUMENT, EINVAL,
		       "the set is bound to another thread");
}

/*
 * The counters end (and signal no more) while the set is still bound: an
 * overflow signal that comes before the release finds the set bound and
 * may sample and restart it, as on Solaris.  In a forked child only the
 * child's own inherited counters end; if the binder exited, nothing is
 * left to end.
 */
static void cpc_lwp_quiesce(cpc_set_t *set, int inherited)
{
	struct cpc_lwp *me = cpc_self_();

	if (set->pid != me->pid ? set->inherit && inherited :
	    set->tid == me->tid)
		ioctl(set->pc.fd, PCIOCRELEASE);
}

/*
 * End the binding, its counters ended by cpc_lwp_quiesce().  In a forked
 * child the parent's page is not mapped there (VM_DONTCOPY: a mapping
 * made since may sit where it was), and the bound descriptors are shared
 * with the parent, whose bindings stay.
 */
static void cpc_lwp_unbind(cpc_set_t *set, int inherited)
{
	struct cpc_lwp *me = cpc_self_();

	(void)inherited;
	if (set->pid == me->pid && set->pc.page)
		munmap((void *)set->pc.page, PCTR_PAGE_SIZE);
	set->pc.page = NULL;
}

/*
 * A new preset for request @index of the calling thread's set, used from
 * the next cpc_set_restart() on.  The binder's is the set's own (and what
 * threads made after that restart inherit); a thread counting an
 * inheriting set it did not bind keeps its presets to itself.
 */
int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	struct cpc_lwp *me = cpc_self_();
	cpc_set_t *set = me->set;

	if (!set || set->cpc != cpc) {
		set = cpc_inherited_set(cpc, me);
		if (!set)
			return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT,
				       EINVAL, "this thread has no bound set");
	}
	if (index < 0 || (unsigned int)index >= set->nreqs)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "no request %d in the bound set", index);
	if (set == me->set) {
		set->reqs[index].preset = preset;
		return 0;
	}
	me->preset[index] = preset;
	me->dirty |= 1ULL << index;
	return 0;
}

/*
 * Count on, every request from its preset: after an overflow signal (the
 * counters are frozen until then) or at any time.  Presets changed with
 * cpc_request_preset() go to the kernel first; the others are there.
 */
int cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	struct pctr_preset ps = { 0 };
	struct cpc_request *req;
	struct cpc_lwp *me;
	unsigned int i;

	if (cpc_set_check(cpc, __func__, set))
		return -1;
	me = cpc_self_();
	if (set->bound != &cpc_lwp_binding)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is not bound to the calling LWP");
	if (cpc_is_binder(set, me)) {
		for (i = 0; i < set->nreqs; i++) {
			req = &set->reqs[i];
			if (req->preset == req->kpreset)
				continue;
			ps.ps_ctr = req->slot;
			ps.ps_value = req->preset;
			if (ioctl(set->pc.fd, PCIOCPRESET, &ps) < 0)
				return cpc_bind_err(cpc, __func__, errno, req);
			req->kpreset = req->preset;
		}
	} else if (set->inherit && !me->set) {
		if (cpc_adopt(cpc, set, me, NULL))
			return cpc_sample_err(cpc, __func__, errno);
		for (i = 0; i < set->nreqs; i++) {
			if (!(me->dirty & (1ULL << i)))
				continue;
			ps.ps_ctr = set->reqs[i].slot;
			ps.ps_value = me->preset[i];
			if (ioctl(cpc->pc->fd, PCIOCPRESET, &ps) < 0)
				return cpc_bind_err(cpc, __func__, errno,
						    &set->reqs[i]);
			me->dirty &= ~(1ULL << i);
		}
	} else {
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is bound to another thread");
	}
	if (ioctl(cpc->pc->fd, PCIOCRESTART) < 0)
		return cpc_sample_err(cpc, __func__, errno);
	return 0;
}

/*
 * The calling thread's counters of an LWP-bound set: from its page if
 * it bound the set, with PCIOCRD if it counts it by inheritance.  *@tick
 * is the virtual TSC from the page; with PCIOCRD, the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, in TSC cycles): it began counting when it
 * was made.
 */
static int cpc_lwp_sample(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
			  uint64_t *tick)
{
	struct cpc_lwp *me = cpc_self_();
	struct timespec ts;
	struct pctrst st;

	if (cpc_is_binder(set, me)) {
		/*
		 * From the page; a set a CPU binding invalidated reads by the
		 * ioctl (the page's slots say so), which says what it counted.
		 */
		if (pctr_read_n(&set->pc, vals, set->nread) < 0)
			return cpc_sample_err(cpc, "cpc_set_sample", errno);
		*tick = pctr_vtsc(&set->pc);
		return 0;
	}
	if (!set->inherit || me->set)
		return cpc_err(cpc, "cpc_set_sample", CPC_INVALID_ARGUMENT,
			       EINVAL, "the set is bound to another thread");
	if (cpc_adopt(cpc, set, me, &st)) {
		if (errno == EINVAL)
			return cpc_err(cpc, "cpc_set_sample",
				       CPC_INVALID_ARGUMENT, EINVAL,
				       "this thread does not count the set (it was made before the bind, or unbound)");
		return cpc_sample_err(cpc, "cpc_set_sample", errno);
	}
	memcpy(vals, st.pctr_hwc, sizeof(st.pctr_hwc));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	*tick = cpc_ns_to_ticks(cpc, (uint64_t)ts.tv_sec * 1000000000 +
					     ts.tv_nsec);
	return 0;
}

/*
 * cpc_enable(), cpc_disable(): counting of the calling thread's counters
 * on and off, nothing else changed.  They act on counters another
 * process bound to this thread with cpc_bind_pctx() too, which is what
 * they are for under a tool like cputrack.
 */
static int cpc_switch(cpc_t *cpc, const char *fn, unsigned long req)
{
	if (!cpc)
		return errno = EINVAL, -1;
	if (ioctl(cpc->pc->fd, req) == 0)
		return 0;
	if (errno == EINVAL)
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EINVAL,
			       "no counters are bound to the calling thread");
	if (errno == EAGAIN)
		return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, EAGAIN,
			       "the counters were invalidated by a CPU binding");
	return cpc_err(cpc, fn, CPC_INVALID_ARGUMENT, errno, "%s",
		       strerror(errno));
}

int cpc_enable(cpc_t *cpc)
{
	return cpc_switch(cpc, __func__, PCIOCENABLE);
}

int cpc_disable(cpc_t *cpc)
{
	return cpc_switch(cpc, __func__, PCIOCDISABLE);
}

static const struct cpc_binding cpc_lwp_binding = {
	.thread_owned	= 1,
	.sample		= cpc_lwp_sample,
	.unbind_check	= cpc_lwp_unbind_check,
	.quiesce	= cpc_lwp_quiesce,
	.unbind		= cpc_lwp_unbind,
};
