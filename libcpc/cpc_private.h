/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libcpc's private header (never installed; the public ones are
 * libcpc.h and libcpc_impl.h): the handle, sets, requests and buffers,
 * the binding ops, and the bottom layer (common.c) every other file
 * builds on.
 *
 * The files are layered; each calls only the ones below it (and the
 * binding kinds only through a set's ops):
 *
 *   cpc.c                   the handle: open, close, what the CPU offers
 *   set.c                   sets and requests
 *   lwp.c cpu.c pctx.c      one binding kind each, with its ops table
 *                           (pctx.c on libpctx, ../libpctx/)
 *   events.c  buf.c         event names to pctr functions; buffers
 *   common.c                errors, the calling thread, what every
 *                           binding shares, sample and unbind by the ops
 */
#ifndef _LIBCPC_PRIVATE_H
#define _LIBCPC_PRIVATE_H

#include <stdint.h>

#include "pctr.h"
#include "libcpc.h"

#define CPC_NAME_MAX	CPC_MAX_EVENT_LEN

struct cpc_event {
	char		name[48];
	uint64_t	fn;		/* event and unit mask, no flags */
	uint64_t	slots;		/* slots that can count it */
};

struct __cpc {
	pctr_t		*pc;		/* info, events, the descriptor */
	int		writable;	/* pc's descriptor is open O_RDWR */
	struct cpc_event *events;
	unsigned int	nevents;
	uint64_t	general_slots;	/* pctr slots of the general counters */
	uint64_t	fixed_slots;	/* and of the fixed ones */
	cpc_errhndlr_t	*errfn;
	struct __cpc_set *sets;		/* every set, for cpc_close() */
	struct __cpc_buf *bufs;		/* every buffer, likewise */
	uint64_t	nsets;		/* sets made: the next set's id */
	char		cciname[96];
};

struct cpc_request {
	char		event[CPC_NAME_MAX];
	uint64_t	preset;
	uint_t		flags;
	uint_t		nattrs;
	cpc_attr_t	*attrs;		/* a copy, names included */
	uint64_t	fn;		/* pctr function: event, flags, EN */
	uint64_t	slots;		/* slots it may use (picnum applied) */
	int		slot;		/* assigned at bind, else -1 */
	uint64_t	kpreset;	/* the binder's slot preset in the kernel */
};

/*
 * What a binding kind does for the calls that act on any bound set.  A
 * bind (cpc_bind_curlwp, cpc_bind_cpu, cpc_bind_pctx) fills in the set
 * and then points set->bound at its kind's table; cpc_set_unbind_()
 * clears the pointer, then ends the binding through the table, so that
 * a signal handler that samples meanwhile finds the set unbound.
 */
struct cpc_binding {
	/*
	 * Only the binding thread can end it (its own counters, its CPU
	 * affinity): while that thread lives, no other may unbind, rebind
	 * or destroy the set.
	 */
	int		thread_owned;
	/* cpc_set_sample(): the slots' values and the tick; -1 reported. */
	int		(*sample)(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
				  uint64_t *tick);
	/*
	 * cpc_unbind() from the calling thread, before the set is unbound:
	 * 0 to unbind it, 1 if done without (the thread ended its own
	 * part only), -1 (reported) if it may not.  NULL: always 0.
	 */
	int		(*unbind_check)(cpc_t *cpc, cpc_set_t *set);
	/*
	 * cpc_unbind(), the set still bound: end the counters and their
	 * overflow signals (the driver sends none once a thread lets go).
	 * A signal that comes before finds the set bound, as on Solaris.
	 * @inherited as for unbind.  NULL: nothing to end first.
	 */
	void		(*quiesce)(cpc_set_t *set, int inherited);
	/*
	 * End the binding; the set is marked unbound already.  @inherited:
	 * the calling thread counted it by inheritance (and bound none).
	 */
	void		(*unbind)(cpc_set_t *set, int inherited);
};

struct __cpc_set {
	cpc_t		*cpc;
	struct __cpc_set *next;
	uint64_t	id;		/* its handle's, for its buffers */
	struct cpc_request *reqs;
	unsigned int	nreqs;
	const struct cpc_binding *bound;	/* NULL: unbound */
	int		inherit;	/* LWP: bound with CPC_BIND_LWP_INHERIT */
	/*
	 * The process that bound it (a forked child has a copy of the set
	 * but not the binding), and the thread: the binding thread for LWP
	 * and CPU bindings, the target for a pctx binding.
	 */
	pid_t		pid;
	pid_t		tid;
	/*
	 * LWP: the handle's descriptor, with the binding thread's page.
	 * CPU, PCTX: a descriptor of the set's own, bound with PCIOCBIND
	 * (no page: PCIOCRD reads the binding).
	 */
	struct pctr	pc;
	unsigned int	nread;		/* slots pctr_read_n() must cover */
	/* CPU: the CPU, the binder's affinity before, the TSC at the bind. */
	int		cpu;
	void		*oldmask;	/* cpu_set_t, masksize bytes */
	void		*curmask;	/* room for sampling's affinity check */
	size_t		masksize;
	uint64_t	tsc0;
	/* PCTX: the capture it was bound through, its run time then (ns). */
	pctx_t		*pctx;
	struct __cpc_set *pctx_next;	/* the capture's list of sets */
	uint64_t	run0;
	uint64_t	tick;		/* the last tick sampled */
	/*
	 * cpc_set_sample(): each slot's enabled and running times, where
	 * the binding's sample gives them (PCTX, PCIOCRDX); else zero.
	 */
	uint64_t	enabled[PCTR_NUM];
	uint64_t	running[PCTR_NUM];
};

struct __cpc_buf {
	cpc_t		*cpc;
	struct __cpc_buf *next;
	uint64_t	set_id;		/* the set it was made for */
	unsigned int	n;
	hrtime_t	hrtime;
	uint64_t	tick;
	/* n values, then n enabled and n running times (cpc_buf_times()) */
	uint64_t	val[];
};

/*
 * common.c: error reporting.  cpc_err() reports through the handle's
 * handler, sets errno and returns -1; the others turn a pctr errno into
 * the report Solaris's libcpc would give.
 */
int cpc_err(cpc_t *cpc, const char *fn, int subcode, int err,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int cpc_bind_err(cpc_t *cpc, const char *fn, int err,
		 const struct cpc_request *req);
int cpc_sample_err(cpc_t *cpc, const char *fn, int err);

/*
 * common.c: the calling thread as libcpc knows it.  Kept per thread and
 * checked against fork: a forked child starts afresh (see cpc_self_()).
 */
struct cpc_lwp {
	pid_t		pid;		/* the process this was filled in */
	pid_t		tid;
	cpc_set_t	*set;		/* the set this thread bound, if any */
	/*
	 * A thread counting an inheriting set it did not bind (made
	 * after the bind, or a forked child): that set, once PCIOCRD
	 * showed this thread counts it, and the presets
	 * cpc_request_preset() gave for this thread only, not yet in the
	 * kernel (bit i of @dirty: request i has one in @preset[i]).
	 */
	cpc_set_t	*inherited;
	uint64_t	dirty;
	uint64_t	preset[PCTR_NUM];
};

void cpc_self_init_(void);
void cpc_self_bound_(struct cpc_lwp *me, cpc_set_t *set);
struct cpc_lwp *cpc_self_(void);
void cpc_self_forget_(struct cpc_lwp *me);

/* common.c: what the binding kinds share. */
int cpc_assign(const struct cpc_request *reqs, unsigned int n, int *slot);
int cpc_set_check(cpc_t *cpc, const char *fn, cpc_set_t *set);
int cpc_set_bound_elsewhere_(const cpc_set_t *set);
int cpc_set_unbind_here_(cpc_t *cpc, const char *fn, cpc_set_t *set);
void cpc_set_unbind_(cpc_set_t *set);
int cpc_set_notifies(const cpc_set_t *set);
int cpc_bind_check(cpc_t *cpc, const char *fn, cpc_set_t *set,
		   uint_t flags, const char *why_no_notify);
int cpc_prepare(cpc_t *cpc, const char *fn, cpc_set_t *set, int *slot);
void cpc_fill_bind(const cpc_set_t *set, const int *slot,
		   struct pctr_bind *pb, unsigned int kind, unsigned int id);
void cpc_set_take(cpc_set_t *set, pctr_t *p, const int *slot, pid_t tid,
		  const struct cpc_binding *kind);
uint64_t cpc_ns_to_ticks(const cpc_t *cpc, uint64_t ns);

#endif /* _LIBCPC_PRIVATE_H */
