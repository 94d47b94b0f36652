/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A context, a thread's counters: the one structure every part of the
 * engine shares (ctx.h).  Here, apart from the engine's calls, so that
 * the code below the engine (page.c) sees the structure and nothing
 * above it.
 */
#ifndef _PCTR_CTX_TYPES_H
#define _PCTR_CTX_TYPES_H

#include <linux/llist.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include "backend.h"

struct page;
struct pctr_sampler;
struct pid;

/* A thread's counters. */
struct pctr_ctx {
	struct preempt_notifier	pn;
	u64		id;		/* unique for the module's life */
	u64		fn[PCTR_NUM];	/* functions, as the user set them */
	u64		sum[PCTR_NUM];	/* 64-bit virtual values */
	u64		prev[PCTR_NUM];	/* raw value at the last fold */
	u64		preset[PCTR_NUM]; /* where restart and children start */
	struct pctr_hw	hw;		/* what the backend loads and stops */
	int		last_cpu;	/* CPU of the last stop, or -1 */
	bool		running;	/* the thread is on a CPU */
	bool		dirty;		/* registers must be rewritten */
	bool		pce;		/* user rdpmc turned on for it */
	bool		frozen;		/* stopped by an overflow */
	bool		disabled;	/* stopped by PCIOCDISABLE */
	bool		remote;		/* programmed by a thread binding */
	bool		dead;		/* the thread's side has ended */
	bool		pmu;		/* it holds the PMU: it has counters */
	bool		released;	/* a binder let go: ends at once */
	u32		notify;		/* slots with PCTR_INT */
	u32		ovf;		/* of which wrapped, until restart */
	u32		opts;		/* PCTR_O_* */
	int		signo;		/* the overflow signal */
	int		err;		/* a register access failed: -EIO */
	u32		seq;		/* odd while running: remote reads */
	int		cpu;		/* where it runs, while seq is odd */
	u64		vtsc;		/* TSC cycles run up to tsc_in */
	u64		tsc_in;		/* TSC at the last switch-in */
	/*
	 * Of vtsc, the cycles it ran with counters to count but a CPU
	 * binding held the CPU's (ctx.c): up to starve_in, while starving.
	 * Each slot's enabled and running times count from its function's
	 * start (en_base, st_base: vtsc and starved then).
	 */
	u64		starved;
	u64		starve_in;	/* TSC when the span began */
	bool		starving;	/* its thread runs, counters held */
	u64		en_base[PCTR_NUM];
	u64		st_base[PCTR_NUM];
	struct page	*page;		/* the page user space maps, or NULL */
	struct pctr_page *upage;	/* its kernel address */
	u32		published;	/* slots the page describes */
	u8		page_abi;	/* layouts mapped: PAGE_ABI_V* */
	refcount_t	ref;
	struct pid	*pid;		/* the thread, for signals */
	unsigned long	ovf_pc;		/* user PC at the last overflow */
	struct callback_head ovf_work;	/* sends the overflow signal */
	bool		ovf_queued;	/* ovf_work waits to run */
	struct llist_node ovf_node;	/* queued from an NMI: ctx.c */
	struct callback_head end_work;	/* a thread binding's end */
	struct callback_head exit_work;	/* its thread's exit waits for the PMU */
	u32		sampling;	/* slots in sampling mode (sample.c) */
	u32		throttled;	/* of which not armed until a later tick */
	struct pctr_sampler *smp;	/* their ring and periods, or NULL */
};

#endif /* _PCTR_CTX_TYPES_H */
